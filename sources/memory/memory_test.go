package memory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const memoryTestSuite = `
suite "m" {}
materials "姓名" {
  values = ["张伟", "李雷"]
}
materials "city" {
  value "Beijing" {
    normalize = { rasa = "BJ" }
  }
  value "Shanghai" {}
}
memory "m" {
  fact {
    say    = "我叫{姓名}。"
    ask    = ["我叫什么名字？", "我是谁？"]
    expect = "{姓名}"
  }
  fact {
    say    = "I live in {city}."
    ask    = "Where do I live?"
    expect = "{city}"
  }
  filler   = ["f1", "f2"]
  distance = [0, 3]
}
memory "r" {
  fact {
    say    = "我的电话是{姓名}。"
    ask    = "电话？"
    expect = "^你叫.*{姓名}"
  }
  judge = "regex"
}
`

// A memory block generates one script per slot assignment and distance:
// the facts, distance fillers cycling through the list, then every
// question carrying its fact and expected answer; the source rebuilds
// every turn.
func TestMemoryScripts(t *testing.T) {
	s := loadSuite(t, memoryTestSuite)
	var scripts []*schema.Script
	if err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error { scripts = append(scripts, sc); return nil }); err != nil {
		t.Fatal(err)
	}
	var m []*schema.Script
	for _, sc := range scripts {
		if sc.Source == "m" {
			m = append(m, sc)
		}
	}
	if len(m) != 4 {
		t.Fatalf("%d scripts of m, want 2 assignments × 2 distances", len(m))
	}
	sc := m[1]
	var texts []string
	for _, c := range sc.Turns {
		texts = append(texts, c.Text)
	}
	slot := sc.Turns[0].Slots["姓名"].Value
	city := sc.Turns[0].Slots["city"].Value
	want := []string{"我叫" + slot + "。", "I live in " + city + ".", "f1", "f2", "f1", "我叫什么名字？", "我是谁？", "Where do I live?"}
	if strings.Join(texts, "|") != strings.Join(want, "|") || !strings.HasSuffix(sc.ID, "-d3") {
		t.Fatalf("script %s turns %q, want %q", sc.ID, texts, want)
	}
	q := sc.Turns[7]
	if q.Fact != "I live in "+city+"." || q.Expected != city || q.Distance != 3 || q.Turn != 8 || sc.Turns[2].Fact != "" {
		t.Errorf("question turn: fact %q expected %q distance %d turn %d", q.Fact, q.Expected, q.Distance, q.Turn)
	}
	src := s.SourceByKind(spec.KindMemory, "m")
	for _, c := range sc.Turns {
		raw, _ := json.Marshal(c.Slots)
		back, ok := src.Rebuild(spec.Saved{ID: c.ID, Text: c.Text, Slots: raw, Script: c.Script, Turn: c.Turn})
		if !ok || back.Text != c.Text || back.Fact != c.Fact || back.Distance != c.Distance {
			t.Errorf("turn %d does not rebuild: %v %+v", c.Turn, ok, back)
		}
		cp := *c
		if back, ok := src.Rebuild(spec.Saved{Case: &cp}); !ok || back.ID != c.ID {
			t.Errorf("turn %d does not rebuild from a whole case", c.Turn)
		}
	}
	if _, ok := src.Rebuild(spec.Saved{ID: "x", Text: q.Text, Script: strings.TrimSuffix(sc.ID, "-d3") + "-d5", Turn: 8}); ok {
		t.Error("a distance no longer listed rebuilt")
	}
}

// The contains judge: entailed when the reply holds the expected value raw,
// folded (case, full width, spaces) or normalised; contradicted when it
// holds another value of the materials; neutral otherwise; unanswered when
// empty. The regex judge matches the expected pattern.
func TestMemoryJudges(t *testing.T) {
	s := loadSuite(t, memoryTestSuite)
	judge := s.SourceByKind(spec.KindMemory, "m").Info().Judge
	name := &schema.Case{Turn: 3, Fact: "我叫张伟。", Expected: "张伟", Slots: map[string]schema.Slot{"姓名": {Value: "张伟"}}}
	city := &schema.Case{Turn: 5, Fact: "I live in Beijing.", Expected: "Beijing", Slots: map[string]schema.Slot{"city": {Value: "Beijing", Normalized: "BJ"}}}
	for _, tc := range []struct {
		c           *schema.Case
		reply, want string
	}{
		{name, "你叫张伟。", schema.Entailed},
		{name, "你叫李雷。", schema.Contradicted},
		{name, "我不记得了。", schema.Neutral},
		{name, "  ", schema.Unanswered},
		{city, "You live in ＢＥＩＪＩＮＧ.", schema.Entailed},
		{city, "you live in bei jing", schema.Entailed},
		{city, "BJ", schema.Entailed},
		{city, "You live in shanghai!", schema.Contradicted},
		{city, "No idea.", schema.Neutral},
		{&schema.Case{Turn: 2, Text: "filler"}, "whatever", ""},
	} {
		if got, _ := judge(&schema.Result{Case: *tc.c}, tc.reply); got != tc.want {
			t.Errorf("judge(%q, %q) = %q, want %q", tc.c.Expected, tc.reply, got, tc.want)
		}
	}
	rj := s.SourceByKind(spec.KindMemory, "r").Info().Judge
	c := &schema.Case{Turn: 2, Fact: "f", Expected: "^你叫.*张伟"}
	if got, _ := rj(&schema.Result{Case: *c}, "你叫老张伟"); got != schema.Entailed {
		t.Errorf("regex judge: %q", got)
	}
	if got, _ := rj(&schema.Result{Case: *c}, "他叫张伟"); got != schema.Neutral {
		t.Errorf("regex judge: %q", got)
	}
}

// A judge other than contains and regex is a diagnostic at the attribute.
func TestMemoryUnknownJudge(t *testing.T) {
	dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": `
materials "x" {
  values = ["a"]
}
memory "m" {
  fact {
    say    = "{x}"
    ask    = "?"
    expect = "{x}"
  }
  judge = "contain"
}
`})
	_, diags := load(dir)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "s.nlutest.hcl:11,11") || !strings.Contains(diags.Error(), `Did you mean "contains"?`) {
		t.Errorf("diagnostics: %v", diags)
	}
}

const exclusiveTestSuite = `
suite "m" {}
materials "城市" { values = ["北京", "上海", "广州", "深圳", "北京市"] }
memory "默认" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
}
memory "排他" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  judge = { name = "contains", exclusive = true }
}
`

// Minor 5 of the 2026-12-01 security audit: the default contains judge
// passes a hedge that names every city. With exclusive, an answer that
// names another value of the expected slot's materials too is
// contradicted; a value written inside the right one (北京 in 北京市) does
// not count.
func TestMemoryContainsExclusive(t *testing.T) {
	s := loadSuite(t, exclusiveTestSuite)
	const hedge = "我不确定，可能是北京、上海、广州或深圳。"
	asked := func(city string) *schema.Case {
		return &schema.Case{Turn: 2, Fact: "我住在" + city + "。", Expected: city, Slots: map[string]schema.Slot{"城市": {Value: city}}}
	}
	for _, tc := range []struct {
		block, city, reply, want string
	}{
		{"默认", "北京", hedge, schema.Entailed}, // documented: the default rewards a hedge
		{"默认", "深圳", hedge, schema.Entailed},
		{"排他", "北京", hedge, schema.Contradicted},
		{"排他", "深圳", hedge, schema.Contradicted},
		{"排他", "北京", "你住在北京。", schema.Entailed},
		{"排他", "北京", "你住在上海。", schema.Contradicted},
		{"排他", "北京", "我不记得了。", schema.Neutral},
		{"排他", "北京市", "你住在北京市。", schema.Entailed},
		{"排他", "北京", "你住在北京市。", schema.Entailed},
		{"排他", "上海", "是上海，不是北京市。", schema.Contradicted},
		{"排他", "北京", "  ", schema.Unanswered},
	} {
		judge := s.SourceByKind(spec.KindMemory, tc.block).Info().Judge
		if got, _ := judge(&schema.Result{Case: *asked(tc.city)}, tc.reply); got != tc.want {
			t.Errorf("%s: judge(%q, %q) = %q, want %q", tc.block, tc.city, tc.reply, got, tc.want)
		}
	}
}

// The judge object's mistakes are diagnostics at the attribute.
func TestMemoryJudgeSettingErrors(t *testing.T) {
	for _, tc := range []struct {
		judge, summary, detail string
	}{
		{`{ name = "regex", exclusive = true }`, "Setting of another judge", `judge "regex" does not take it`},
		{`{ name = "contains", exclusiv = true }`, "Unknown judge setting", `Did you mean "exclusive"?`},
		{`{ exclusive = true }`, "Judge without a name", `judge = { name = "contains", exclusive = true }`},
		{`{ name = "contains", exclusive = "是" }`, "Invalid judge", "exclusive must be true or false"},
		{`3`, "Invalid judge", "The judge is a number"},
		{`{ name = "contain" }`, "Unknown judge", `Did you mean "contains"?`},
		{`{ name = "contains", exclusive = false }`, "", ""},
	} {
		dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": `
materials "城市" { values = ["北京", "上海"] }
memory "m" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪里？"
    expect = "{城市}"
  }
  judge = ` + tc.judge + `
}
`})
		_, diags := load(dir)
		if tc.summary == "" {
			if diags.HasErrors() {
				t.Errorf("judge = %s: %v", tc.judge, diags)
			}
			continue
		}
		if len(diags) == 0 || diags[0].Summary != tc.summary || !strings.Contains(diags[0].Detail, tc.detail) || !strings.Contains(diags.Error(), "s.nlutest.hcl:9,11") {
			t.Errorf("judge = %s: %v; want %q (%q) at s.nlutest.hcl:9,11", tc.judge, diags, tc.summary, tc.detail)
		}
	}
}

// A memory block's scripts differ in length, one per distance: the suite
// gives every recorded turn the length of its own script (a resumed run
// checks recorded scripts against it), not 0 for "not known".
func TestMemoryScriptTurns(t *testing.T) {
	s := loadSuite(t, memoryTestSuite)
	seen := map[int]bool{}
	err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
		for _, c := range sc.Turns {
			if got := s.ScriptTurns(c); got != len(sc.Turns) {
				t.Errorf("%s: ScriptTurns = %d, want %d", c.ID, got, len(sc.Turns))
			}
		}
		seen[len(sc.Turns)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// m: 2 facts + 3 questions at distances 0 and 3; r: 1 fact + 1 question.
	if !seen[5] || !seen[8] || !seen[2] {
		t.Errorf("script lengths %v, want 5, 8 and 2", seen)
	}
}
