package assert

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/dataset"
	"github.com/nlutest/nlutest/sources/memory"
	"github.com/nlutest/nlutest/spec"
)

// replySuite is a template whose reply block is block; its one case
// fills {城市} with 上海.
func replySuite(block string) string {
	return `suite "s" {}
materials "城市" {
  values = ["上海"]
}
template "book" {
  text = "订去{城市}的机票"
  reply {
` + block + `
  }
}
`
}

// replyEval evaluates reply against the reply block and returns the
// failures' messages as the reports show them (kind: message).
func replyEval(t testing.TB, block, reply string) []string {
	t.Helper()
	s := loadSuite(t, replySuite(block))
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	r := &schema.Result{Case: *c, Response: json.RawMessage(`{}`), Reply: reply}
	NewEvaluator(s).Evaluate(r)
	var out []string
	for _, f := range r.Failures {
		if f.File == "" || f.Line == 0 {
			t.Errorf("failure %q is not located", f.Message)
		}
		out = append(out, f.Kind+": "+f.Message)
	}
	if (len(out) == 0) != (r.Outcome == schema.Pass) {
		t.Errorf("outcome %s with failures %q", r.Outcome, out)
	}
	return out
}

// Each reply check passes and fails as written, and a failure names the
// check, what it looked for and the reply (SPEC §14.1).
func TestReplyChecks(t *testing.T) {
	const r0 = "好的，去上海。请问哪天出发？"
	for _, tc := range []struct {
		name, block, reply string
		want               []string
	}{
		{"contains passes", `contains = ["上海", "哪天"]`, r0, nil},
		{"contains fails", `contains = ["后天"]`, r0, []string{`reply: contains "后天": not found in "好的，去上海。请问哪天出发？"`}},
		{"contains one text", `contains = "出发"`, r0, nil},
		{"placeholder resolves", `contains = ["去{城市}"]`, r0, nil},
		{"placeholder fails with its value", `contains = ["到{城市}"]`, r0, []string{`reply: contains "到上海": not found in "好的，去上海。请问哪天出发？"`}},
		{"literal braces", `contains = ["{{上海}}"]`, "到{上海}了", nil},
		{"contains_any passes", `contains_any = ["确认", "哪天"]`, r0, nil},
		{"contains_any fails", `contains_any = ["确认", "对吗"]`, r0, []string{`reply: contains_any ["确认", "对吗"]: none found in "好的，去上海。请问哪天出发？"`}},
		{"not_contains passes", `not_contains = ["抱歉", "sorry"]`, r0, nil},
		{"not_contains fails", `not_contains = ["抱歉", "sorry"]`, "抱歉，我不明白", []string{`reply: not_contains "抱歉": found in "抱歉，我不明白"`}},
		{"not_contains ignore_case", "not_contains = [\"sorry\"]\nignore_case = true", "Sorry!", []string{`reply: not_contains "sorry": found in "Sorry!"`}},
		{"case matters by default", `not_contains = ["sorry"]`, "Sorry!", nil},
		{"matches passes", `matches = "订单号\\s*[A-Z0-9]{6,8}"`, "您的订单号 AB12CD34", nil},
		{"matches fails", `matches = "订单号\\s*[A-Z0-9]{6,8}"`, "订单号 ab12", []string{`reply: matches "订单号\\s*[A-Z0-9]{6,8}": no match in "订单号 ab12"`}},
		{"matches ignore_case", "matches = \"订单号\\\\s*[A-Z0-9]{6,8}\"\nignore_case = true", "订单号 ab12cd", nil},
		{"matches full-width reply", `matches = "[A-Z]{2}[0-9]{2}"`, "订单 ＡＢ１２", nil},
		{"equals passes", `equals = "好的"`, " 好的 ", nil},
		{"equals fails", `equals = "好的"`, "好的。", []string{`reply: equals "好的": got "好的。"`}},
		{"one_of passes", `one_of = ["好的", "好的。"]`, "好的。", nil},
		{"one_of fails", `one_of = ["好的", "好的。"]`, "不行", []string{`reply: one_of ["好的", "好的。"]: got "不行"`}},
		{"width folded always", `contains = ["OK123"]`, "ＯＫ１２３", nil},
		{"full-width literal", `equals = "ＯＫ"`, "OK", nil},
		{"NFC folded always", `contains = ["Café"]`, "Cafe\u0301 au lait", nil},
		{"ignore_case full-width", "equals = \"ok\"\nignore_case = true", "ＯＫ", nil},
		{"similar rougeL passes", `similar = { to = ["好的，请问哪天出发？"], metric = "rougeL", min = 0.6 }`, r0, nil},
		{"similar rougeL fails", `similar = { to = ["抱歉，航班已满"], metric = "rougeL", min = 0.6 }`, r0,
			[]string{`reply: similar rougeL 0.0000 is below min 0.6: "好的，去上海。请问哪天出发？" against ["抱歉，航班已满"]`}},
		{"similar f1 with placeholder", `similar = { to = ["去{城市}"], metric = "f1", min = 0.3 }`, r0, nil},
		{"similar bleu", `similar = { to = ["好的，去上海。请问哪天出发？"], metric = "bleu", min = 0.99 }`, r0, nil},
		{"every failing check", "contains = [\"后天\"]\nnot_contains = [\"上海\"]", r0, []string{
			`reply: contains "后天": not found in "好的，去上海。请问哪天出发？"`,
			`reply: not_contains "上海": found in "好的，去上海。请问哪天出发？"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := replyEval(t, tc.block, tc.reply)
			if !slices.Equal(got, tc.want) {
				t.Errorf("failures\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The similar scores are the text metrics' own: ROUGE-L F and token F1
// on Chinese characters, sentence BLEU with the zh tokenizer.
func TestReplySimilarity(t *testing.T) {
	opts := TextMetrics{}
	refs := []string{"好的，请问哪天出发？"}
	reply := "好的，去上海。请问哪天出发？"
	// ROUGE-L on Chinese characters, punctuation dropped: the LCS
	// 好的请问哪天出发 is 8 of 8 (reference) and of 11 (reply):
	// F = 2·(8/11)·1/(8/11+1) = 16/19.
	p, r := 8.0/11, 1.0
	if got, want := ReplySimilarity("rougeL", reply, refs, opts), 2*p*r/(p+r); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", want) {
		t.Errorf("rougeL %v, want %v", got, want)
	}
	if got := ReplySimilarity("f1", "去上海", []string{"去上海"}, opts); got != 1 {
		t.Errorf("f1 of equal texts %v, want 1", got)
	}
	if got := ReplySimilarity("bleu", reply, []string{reply}, opts); got < 0.999 {
		t.Errorf("bleu of equal texts %v, want 1", got)
	}
}

// A bad reply block is a located diagnostic with a full-sentence detail.
func TestReplyBlockDiagnostics(t *testing.T) {
	for _, tc := range []struct{ block, at, summary, detail string }{
		{`matches = "订单号(["`, "8,11", "Invalid regular expression", "RE2"},
		{`contains = ["{日期}"]`, "8,14", "Unknown placeholder in reply", "{日期} does not appear"},
		{`similar = { to = ["好"], metric = "meteor", min = 0.5 }`, "8,11", "Unknown similarity metric", `not "meteor"`},
		{`similar = { metric = "f1", min = 0.5 }`, "8,11", "Invalid similar", "similar needs to"},
		{`similar = { to = ["好"], min = 1.5 }`, "8,11", "Invalid similar", "from 0 to 1"},
		{"equals = \"a\"\none_of = [\"b\"]", "9,1", "Conflicting reply checks", "one_of"},
		{`ignore_case = true`, "7,3", "Reply block without checks", "at least one"},
		{`contains = [""]`, "8,12", "Empty reply text", "remove it"},
		{`begins = "x"`, "8,1", "Unsupported argument", "begins"},
	} {
		t.Run(tc.summary, func(t *testing.T) {
			dir := t.TempDir()
			writeSuiteFile(t, dir, replySuite(tc.block))
			_, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags.Errs()[0].Error()
			if !strings.Contains(d, "s.nlutest.hcl:"+tc.at) || !strings.Contains(d, tc.summary) || !strings.Contains(d, tc.detail) {
				t.Errorf("diagnostic %q, want %s at %s with %q", d, tc.summary, tc.at, tc.detail)
			}
		})
	}
}

// The reply block works on every case kind: a conversation's turns (each
// its own, placeholders from the conversation's slots), a dataset's rows
// (similar compares with each row's references when it gives no to) and a
// memory fact's questions.
func TestReplyOnEveryKind(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "rows.jsonl"), `{"q":"几点开门","a":"早上九点开门"}`+"\n"+`{"q":"在哪","a":"在人民广场"}`+"\n")
	writeSuiteFile(t, dir, `suite "s" {}
materials "城市" {
  values = ["上海"]
}
materials "姓名" {
  values = ["张伟"]
}
conversation "c" {
  turn {
    user = "去{城市}"
    reply {
      contains = ["{城市}"]
    }
  }
  turn {
    user = "明天"
    reply {
      contains_any = ["确认", "对吗"]
    }
  }
}
dataset "d" {
  source     = "rows.jsonl"
  text       = row.q
  references = [row.a]
  reply {
    not_contains = ["抱歉"]
    similar      = { metric = "f1", min = 0.5 }
  }
}
memory "m" {
  fact {
    say    = "我叫{姓名}。"
    ask    = "我叫什么？"
    expect = "{姓名}"
    reply {
      not_contains = ["不知道"]
    }
  }
}
`)
	s, diags := spec.Load(dir, spec.Options{SourceKinds: append(testSourceKinds(), dataset.Kind{}, memory.Kind{})})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ev := NewEvaluator(s)
	replies := map[string]string{
		"c/1": "好的，去上海", "c/2": "明天出发",
		"d:几点开门": "早上九点开门", "d:在哪": "抱歉，不知道",
		"m:我叫什么？": "我不知道",
	}
	var got []string
	err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
		for _, c := range sc.Turns {
			key := c.Source + ":" + c.Text
			if c.SourceKind == spec.KindConversation {
				key = c.Source + "/" + fmt.Sprint(c.Turn)
			}
			reply, ok := replies[key]
			if !ok {
				reply = "嗯"
			}
			r := &schema.Result{Case: *c, Response: json.RawMessage(`{}`), Reply: reply}
			ev.Evaluate(r)
			for _, f := range r.Failures {
				if f.Kind == ReplyFailureKind {
					got = append(got, key+" "+f.Message)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`c/2 contains_any ["确认", "对吗"]: none found in "明天出发"`,
		`d:在哪 not_contains "抱歉": found in "抱歉，不知道"`,
		`d:在哪 similar f1 0.0000 is below min 0.5: "抱歉，不知道" against ["在人民广场"]`,
		`m:我叫什么？ not_contains "不知道": found in "我不知道"`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("reply failures\n got %q\nwant %q", got, want)
	}
}

func writeSuiteFile(t *testing.T, dir, src string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "s.nlutest.hcl"), src)
}

// BenchmarkReplyChecks is what a typical reply block adds to evaluating
// one case (docs/performance.md): contains ×2, not_contains ×2, one
// matches, ignore_case, against a 40-character Chinese reply that passes
// every check (the common case; a failing check builds its message).
func BenchmarkReplyChecks(b *testing.B) {
	s := loadSuite(b, replySuite(`contains     = ["{城市}", "出发"]
    not_contains = ["抱歉", "Sorry"]
    matches      = "订单号\\s*[A-Z0-9]{6,8}"
    ignore_case  = true`))
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		b.Fatal("no case", err)
	}
	ev := NewEvaluator(s)
	sc := ev.sourceOf(&schema.Result{Case: *c})
	r := &schema.Result{Case: *c, Reply: "好的，已为您预订明天去上海的机票，订单号 AB12CD34，请问几点出发呢？"}
	if n := len([]rune(r.Reply)); n < 38 || n > 42 {
		b.Fatalf("reply has %d characters, want about 40", n)
	}
	ev.replyChecks(r, sc)
	if len(r.Failures) > 0 {
		b.Fatalf("failures %v", r.Failures)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu, ok := threadCPU(func() {
		for range b.N {
			r.Failures = r.Failures[:0]
			ev.replyChecks(r, sc)
		}
	})
	if ok {
		// The wall clock counts the time other jobs held the CPU; this
		// thread's CPU time does not (garbage collection on other
		// threads excluded: 96 bytes per case).
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// A turn's capture that selects nothing fails that turn (kind capture,
// located), and a later turn's condition reading it says which capture is
// missing instead of HCL's "Unsupported attribute".
func TestCaptureFailuresInEvaluation(t *testing.T) {
	s := loadSuite(t, `suite "s" {}
conversation "c" {
  turn {
    user          = "订票"
    capture_reply = { order = "订单号\\s*([A-Z0-9]+)" }
  }
  turn {
    user = "确认"
    assert {
      condition = strcontains(reply, capture.order)
    }
  }
}
`)
	var turns []*schema.Case
	if err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error { turns = sc.Turns; return nil }); err != nil || len(turns) != 2 {
		t.Fatal("no script", err)
	}
	ev := NewEvaluator(s)
	r1 := &schema.Result{Case: *turns[0], Response: json.RawMessage(`{}`), Reply: "好的，请稍等。"}
	ev.Evaluate(r1)
	if len(r1.Failures) != 1 || r1.Outcome != schema.Fail || r1.Failures[0].Line != 5 ||
		r1.Failures[0].Message != `capture_reply "order": "订单号\\s*([A-Z0-9]+)" matched nothing in "好的，请稍等。"` {
		t.Errorf("turn 1: %s %+v", r1.Outcome, r1.Failures)
	}
	r2 := &schema.Result{Case: *turns[1], Response: json.RawMessage(`{}`), Reply: "已确认"}
	ev.Evaluate(r2)
	if len(r2.Failures) != 1 || r2.Failures[0].Message != `strcontains(reply, capture.order) could not be evaluated: capture "order" is missing (turn 1 selected nothing)` {
		t.Errorf("turn 2: %+v", r2.Failures)
	}
}
