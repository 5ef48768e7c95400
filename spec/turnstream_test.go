package spec

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/nlutest/nlutest/internal/mutate"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/diagfmt"
	"github.com/nlutest/nlutest/spec/turnstream"
)

// streamSamples are conversations written to trip a skim of the text:
// braces, quotes and markers inside strings, interpolations holding
// strings with braces, heredocs, comments between and inside turns,
// Chinese text, a closing brace at column 1, an item between turns,
// fragments, asserts, replies and captures.
var streamSamples = map[string]string{
	"lexical": `suite "流式" {}
variable "who" { default = "小明" }
materials "城市" { values = ["北京", "上海"] }
fragment "确认" {
  turn {
    user   = "确认 }}{{ \" 订单"
    expect = { "$.intent.name" = "confirm" }
  }
}
conversation "订票" {
  level = "S1"
  # a comment with } and "quotes
  turn {
    user   = "我想去{城市}，${var.who} 说 \"}}\" 和 ${ "{{" }"
    expect = { "$.entities[0].value" = "{城市}" }
    assert {
      condition = strcontains(reply, "}") || reply != "/* not a comment */"
      message   = "回复 ${ lookup({ a = "}" }, "a", "x") } 不对"
    }
  } // after the block
  /* a block comment
     between turns, with turn { user = "x" } inside */
  turn {
    user = "$${{not}} %%{{ also not }} 第二轮"
    capture_reply = { order = "订单号\\s*([A-Z0-9]+)" }
    reply {
      contains = ["好的"]
    }
  }
  tags = ["a", "b"]
  turn {
    use = "确认"
  }
turn {
    user = <<-EOT
      第四轮 ${var.who} }}
        EOT
}
  turn {
    user = "最后 {城市}"
    assert {
      condition = reply != ""
      message   = <<EOT
The reply is polite. "quoted" }
EOT
    }
  }
}
conversation "短" {
  turn { user = "一" }
}
target "t" {
  demo {}
}
template "单" {
  text = "你好 {城市}"
}
`,
	"crlf": "suite \"s\" {}\r\nconversation \"c\" {\r\n  turn {\r\n    user = \"一\"\r\n  }\r\n  turn {\r\n    user = \"二\"\r\n    expect = { \"$.x\" = 1 }\r\n  }\r\n}\r\n",
	"batches": func() string {
		var b strings.Builder
		b.WriteString("suite \"s\" {}\nmaterials \"m\" { values = [\"甲\", \"乙\"] }\nconversation \"长\" {\n")
		for i := range 3*turnstream.MaxBatchTurns + 7 {
			switch i {
			case 50:
				b.WriteString("  scene = [\"出行\"]\n")
			case 300:
				b.WriteString("  tags = [\"长\"]\n  # 注释\n")
			}
			fmt.Fprintf(&b, "  turn {\n    user = \"第%d轮 {m}\"\n", i)
			if i%3 == 0 {
				fmt.Fprintf(&b, "    expect = { \"$.n\" = %d }\n", i)
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
		return b.String()
	}(),
}

// loadSummary loads the suite in dir and describes everything a
// conversation's turns become: the diagnostics as printed, every turn's
// fields and every generated case.
func loadSummary(t *testing.T, dir string, stream bool) string {
	t.Helper()
	old := streamTurns
	streamTurns = stream
	defer func() { streamTurns = old }()
	s, diags := testLoad(dir, Options{})
	var b bytes.Buffer
	if s != nil {
		diagfmt.Write(&b, diags, s.Sources, false)
	}
	if s == nil || diags.HasErrors() {
		return b.String()
	}
	for _, src := range s.CaseSources {
		for i, turn := range TurnsOf(src) {
			fmt.Fprintf(&b, "%s turn %d: %q %v bot_first=%v %v reply=%v rubrics=%d\n", src.Name(), i+1, turn.User, turn.UserRange, turn.BotFirst, turn.BotFirstRange, turn.Reply != nil, len(turn.Rubrics))
			for _, e := range turn.Expect {
				fmt.Fprintf(&b, "  expect %s %v %v\n", e.Path, e.Value.GoString(), e.Range)
			}
			for _, a := range turn.Asserts {
				fmt.Fprintf(&b, "  assert %q %v %v\n", a.Message, a.DeclRange, a.Condition.Range())
			}
			for _, c := range turn.Capture {
				fmt.Fprintf(&b, "  capture %s %s %v\n", c.Name, c.Path, c.Range)
			}
		}
	}
	n := 0
	err := s.Generate(GenOptions{}, func(c *schema.Case) error {
		line, err := schema.EncodeLine(c)
		b.Write(line)
		if n++; n > 2000 {
			return errFuzzEnough
		}
		return err
	})
	if err != nil && !errors.Is(err, errFuzzEnough) {
		fmt.Fprintf(&b, "generate: %v\n", err)
	}
	return b.String()
}

// Streaming the turns (package turnstream) loads every suite as parsing the
// file whole does: the repository's suites with conversations, the
// samples, and edited copies of the samples (which reach the fallback to
// the whole parse).
func TestStreamedTurnsAgreeWithWholeParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "suites", "*", "*.nlutest.hcl"))
	golden, _ := filepath.Glob(filepath.Join("..", "importer", "testdata", "golden", "*.nlutest.hcl"))
	samples := map[string]string{}
	for _, f := range append(files, golden...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("conversation \"")) {
			samples[f] = string(src)
		}
	}
	for name, src := range streamSamples {
		samples[name] = src
	}
	for name, src := range samples {
		t.Run(filepath.Base(name), func(t *testing.T) {
			if n, want := streamedConversations(t, src), strings.Count(src, "\nconversation \""); n != want {
				t.Fatalf("%d of the %d conversations of %s are streamed", n, want, name)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "s"+FileSuffix)
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(name, "suites") {
				// the suite's material files
				matches, _ := filepath.Glob(filepath.Join(filepath.Dir(name), "*"))
				for _, m := range matches {
					if b, err := os.ReadFile(m); err == nil && !strings.HasSuffix(m, FileSuffix) {
						_ = os.WriteFile(filepath.Join(dir, filepath.Base(m)), b, 0o644)
					}
				}
			}
			whole, streamed := loadSummary(t, dir, false), loadSummary(t, dir, true)
			if whole != streamed {
				t.Fatalf("streamed turns load differently:\n--- whole\n%s\n--- streamed\n%s", whole, streamed)
			}
		})
	}
}

// streamedConversations is the number of conversation blocks whose turns
// the loader streams when it reads src.
func streamedConversations(t *testing.T, src string) int {
	t.Helper()
	l := &loader{parser: hclparse.NewParser(), suite: &Suite{Sources: map[string][]byte{}}}
	if _, diags, _, ok := l.parseStreamed([]byte(src), "s"+FileSuffix); ok && diags.HasErrors() {
		t.Fatalf("the suite does not parse: %v", diags)
	}
	return len(l.streams)
}

// hclAlphabet is an alphabet for edits of suite text: structure, strings,
// templates, heredocs, comments and Chinese text.
var hclAlphabet = []byte("{}[]()\"\\$%<-#/*=\n \tturnEOT\xe4\xb8\xad")

func TestStreamedTurnsAgreeOnEditedSuites(t *testing.T) {
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	rng := rand.New(rand.NewPCG(35, 1))
	dir := t.TempDir()
	file := filepath.Join(dir, "s"+FileSuffix)
	for _, name := range []string{"lexical", "crlf"} {
		for r := range rounds {
			src := mutate.Edit(rng, []byte(streamSamples[name]), hclAlphabet)
			if err := os.WriteFile(file, src, 0o644); err != nil {
				t.Fatal(err)
			}
			whole, streamed := loadSummary(t, dir, false), loadSummary(t, dir, true)
			if whole != streamed {
				t.Fatalf("%s edit %d: streamed turns load differently:\n%s\n--- whole\n%s\n--- streamed\n%s", name, r, src, whole, streamed)
			}
		}
	}
}

// A sensitive variable in a streamed turn is refused exactly as in a turn
// of a conversation parsed whole (the rule walks every attribute of every
// block, secret_places.go): in turn 300 of 1,000, in a turn's tools block
// (turn 700), and in turn 1, each at the variable's line and column with
// the same diagnostic; an assert condition in a streamed turn may use it.
// No diagnostic quotes the value.
func TestSensitiveInStreamedTurns(t *testing.T) {
	const pin = "Zk-机密-7302"
	suite := func(at map[int]string) string {
		var b strings.Builder
		b.WriteString(`suite "长对话" {}
variable "pin" {
  default   = "` + pin + `"
  sensitive = true
}
tool "search_flights" {
  description = "查航班"
  parameters  = { type = "object" }
  result      = { flights = [] }
}
conversation "长" {
`)
		for i := 1; i <= 1000; i++ {
			fmt.Fprintf(&b, "  turn {\n    user = \"第%d轮\"\n", i)
			if extra, ok := at[i]; ok {
				b.WriteString(extra)
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
		return b.String()
	}
	const (
		inUser  = "    expect = { \"$.pin\" = \"PIN ${var.pin}\" }\n"
		inTools = "    tools {\n      called = [lower(var.pin)]\n    }\n"
		inCheck = "    assert { condition = !strcontains(reply, var.pin) }\n"
	)
	refusals := func(src string, stream bool) []string {
		t.Helper()
		if stream && streamedConversations(t, src) != 1 {
			t.Fatal("the conversation is not streamed")
		}
		old := streamTurns
		streamTurns = stream
		defer func() { streamTurns = old }()
		_, diags := testLoad(writeFiles(t, map[string]string{"s.nlutest.hcl": src}), Options{})
		var out []string
		for _, d := range diags {
			if strings.Contains(d.Summary+d.Detail, "7302") {
				t.Errorf("a diagnostic quotes the value: %s: %s", d.Summary, d.Detail)
			}
			if d.Severity == hcl.DiagError {
				line := strings.Split(src, "\n")[d.Subject.Start.Line-1]
				out = append(out, fmt.Sprintf("%s|%s|col %d|%s", d.Summary, strings.TrimSpace(line), d.Subject.Start.Column, d.Detail))
			}
		}
		return out
	}
	src := suite(map[int]string{300: inUser, 500: inCheck, 700: inTools})
	got := refusals(src, true)
	if whole := refusals(src, false); strings.Join(got, "\n") != strings.Join(whole, "\n") {
		t.Errorf("streamed:\n%s\nwhole:\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
	}
	col := func(line string) int { return len([]rune(line[:strings.Index(line, "var.pin")])) + 1 }
	first := refusals(suite(map[int]string{1: inUser, 2: inTools}), true)
	if len(got) != 2 || len(first) != 2 {
		t.Fatalf("want the two uses refused, got:\n%s\nin turns 1 and 2:\n%s", strings.Join(got, "\n"), strings.Join(first, "\n"))
	}
	for i, want := range []string{inUser, inTools} {
		line := strings.TrimSpace(strings.Split(want, "\n")[i])
		prefix := fmt.Sprintf("Sensitive variable outside a target|%s|col %d|", line, col(strings.Split(want, "\n")[i]))
		if !strings.HasPrefix(got[i], prefix) || got[i] != first[i] {
			t.Errorf("turn %d: %s\nwant %s…, as in an early turn:\n%s", []int{300, 700}[i], got[i], prefix, first[i])
		}
	}
}

// The every-attribute fixture's conversation is streamed, so that
// extensions' TestSensitiveEveryAttribute applies the rule to the
// attributes of streamed turns.
func TestEveryAttributeFixtureStreamed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "extensions", "testdata", "every_attribute", "every.nlutest.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := streamedConversations(t, string(src)); n != 1 {
		t.Errorf("%d of the fixture's conversations are streamed, want 1", n)
	}
}
