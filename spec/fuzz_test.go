package spec

// Fuzz tests for the suite loader and the placeholder and JSONPath parsers
// (SPEC §11: "fuzz tests for the HCL loader, the JSONPath/placeholder
// parsing and the material and dataset readers"; the material readers' is
// spec/materials' FuzzParse).
//
// Every FuzzXxx also runs as a normal test over its seeds (f.Add and
// testdata/fuzz/FuzzXxx). To fuzz one for a minute:
//
//	go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 60s ./spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// errFuzzEnough stops generation in FuzzLoad.
var errFuzzEnough = errors.New("enough cases")

// maxFuzzCases bounds the cases FuzzLoad generates per input.
const maxFuzzCases = 500

// fuzzLoadSeeds are suites from the repository: the example suites and the
// validate fixtures (each a typical mistake).
func fuzzLoadSeeds(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("..", "suites", "*", "*.nlutest.hcl"),
		filepath.Join("..", "cmd", "nlutest", "testdata", "validate", "*.nlutest.hcl"),
	} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`suite "出行" { schema = "rasa" }
materials "城市" { values = ["北京", "上海"] }
template "订机票" {
  text   = "从{城市}到{城市#2}的机票"
  expect = { "$.entities[?(@.entity == '城市')].value" = ["{城市}", "{城市#2}"] }
}
`))
	f.Add([]byte("template \"坏\" {\n  text = \"{城市\"\n}\n"))
	f.Add([]byte("\xef\xbb\xbfsuite \"带BOM\" {}\nmaterials \"手机号\" { source = \"materials/phones.txt\" }\ntemplate \"查\" { text = \"查{手机号}\" }\n"))
	// Hostile shapes (issue 12): nesting past MaxNesting in every form,
	// NUL and control bytes, CRLF heredocs, full-width braces.
	for _, deep := range []string{"[", "{", "(", "!", "- ", "a {\n", "\"${"} {
		f.Add([]byte("a = " + strings.Repeat(deep, MaxNesting+5)))
	}
	f.Add([]byte("a = " + strings.Repeat("[", MaxNesting-5) + strings.Repeat("]", MaxNesting-5)))
	f.Add([]byte("suite \"x\" {}\x00\x00\x00\n"))
	f.Add([]byte("suite \"\x1b[31mx\x07\" {}\nmaterials \"m\" { values = [\"\x1b]0;t\x07\"] }\n@@@"))
	f.Add([]byte("suite \"x\" {}\r\nmaterials \"城市\" { values = [\"北京\"] }\r\ntemplate \"t\" {\r\n  text = <<EOT\r\n查{城市}\r\nEOT\r\n}\r\n"))
	f.Add([]byte("suite \"x\" {}\nmaterials \"城市\" { values = [\"北京\"] }\ntemplate \"t\" { text = \"查｛城市｝和{城市｝\" }\n"))
}

// FuzzLoad loads arbitrary bytes as a suite file. Load and diagfmt.Write
// must not panic; every diagnostic about the file must point inside it, at
// a line that matches its byte offset; a suite without errors must
// generate (its first cases) without panicking.
func FuzzLoad(f *testing.F) {
	fuzzLoadSeeds(f)
	dir, err := os.MkdirTemp("", "nlutest-fuzzload-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.MkdirAll(filepath.Join(dir, "materials"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "materials", "phones.txt"), []byte("# 手机号\n13301791708\n13612349005\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "suite"+FileSuffix)
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags := testLoad(path, Options{Env: func(string) (string, bool) { return "", false }})
		var sources map[string][]byte
		if s != nil {
			sources = s.Sources
		}
		var out bytes.Buffer
		diagfmt.Write(&out, diags, sources, false)
		diagfmt.Write(io.Discard, diags, sources, true)
		if len(diags) > 0 && out.Len() == 0 {
			t.Errorf("%d diagnostics printed nothing", len(diags))
		}
		// Diagnostics are capped per file and their excerpts cut and
		// escaped: no input floods the terminal or drives it.
		if out.Len() > 200_000 {
			t.Errorf("%d bytes of diagnostics for a %d-byte file", out.Len(), len(src))
		}
		if bytes.ContainsAny(out.Bytes(), "\x00\x1b\x07") {
			t.Errorf("diagnostics quote raw control bytes: %.300q", out.String())
		}
		text := sources[path]
		if text == nil {
			text = src
		}
		for _, d := range diags {
			for _, r := range []*hcl.Range{d.Subject, d.Context} {
				if r != nil && r.Filename == path {
					if msg := fuzzRangeProblem(text, *r); msg != "" {
						t.Errorf("diagnostic %q (%s): %s", d.Summary, d.Detail, msg)
					}
				}
			}
		}
		if s == nil || diags.HasErrors() {
			return
		}
		n := 0
		err := s.Generate(GenOptions{}, func(c *schema.Case) error {
			if !utf8.ValidString(c.Text) && utf8.Valid(src) {
				t.Errorf("case %s: text %q is not valid UTF-8", c.ID, c.Text)
			}
			n++
			if n >= maxFuzzCases {
				return errFuzzEnough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFuzzEnough) {
			// Generation may refuse a suite (a limit, say); it must say why.
			if err.Error() == "" {
				t.Errorf("generation failed with an empty error")
			}
		}
	})
}

// fuzzRangeProblem describes what is wrong with r as a range of src, or "".
func fuzzRangeProblem(src []byte, r hcl.Range) string {
	s, e := r.Start, r.End
	switch {
	case s.Line < 1 || s.Column < 1:
		return fmt.Sprintf("start %d:%d is before the file", s.Line, s.Column)
	case s.Byte < 0 || s.Byte > len(src):
		return fmt.Sprintf("start byte %d outside the file (%d bytes)", s.Byte, len(src))
	case e.Byte < s.Byte || e.Byte > len(src):
		return fmt.Sprintf("end byte %d outside [%d, %d]", e.Byte, s.Byte, len(src))
	case e.Line < s.Line || (e.Line == s.Line && e.Column < s.Column):
		return fmt.Sprintf("end %d:%d before start %d:%d", e.Line, e.Column, s.Line, s.Column)
	}
	if want := bytes.Count(src[:s.Byte], []byte("\n")) + 1; want != s.Line {
		return fmt.Sprintf("start byte %d is on line %d, the range says line %d", s.Byte, want, s.Line)
	}
	if want := bytes.Count(src[:e.Byte], []byte("\n")) + 1; want != e.Line {
		return fmt.Sprintf("end byte %d is on line %d, the range says line %d", e.Byte, want, e.Line)
	}
	return ""
}

// FuzzParsePlaceholders parses arbitrary texts. It must not panic; a text
// it accepts must split into literals and placeholders that cover the text
// exactly and survive a round trip (escape the literals, rejoin, reparse).
func FuzzParsePlaceholders(f *testing.F) {
	for _, s := range []string{
		"{查询操作}{手机号11位}的{伴随关系}人员",
		"从{城市}到{城市#2}",
		"{{不是占位符}} 订{ 城市 }的票",
		"open {城市", "empty {} here", "stray } brace", "{城市#x}", "{城市#0}", "{#2}", "{城市#9223372036854775808}",
		"}}{{{城市}}}", "{a{b}", "\xff{城市}\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lits, phs, err := ParsePlaceholders(text)
		if err != nil {
			if lits != nil || phs != nil {
				t.Errorf("%q: error %v with results", text, err)
			}
			return
		}
		if len(lits) != len(phs)+1 {
			t.Fatalf("%q: %d literals for %d placeholders", text, len(lits), len(phs))
		}
		prev := 0
		var rebuilt strings.Builder
		for i, p := range phs {
			if p.Start < prev || p.End <= p.Start || p.End > len(text) {
				t.Fatalf("%q: placeholder %d at [%d,%d) after %d", text, i, p.Start, p.End, prev)
			}
			if text[p.Start:p.End] != "{"+p.Key+"}" {
				t.Errorf("%q: placeholder %+v does not span {%s}", text, p, p.Key)
			}
			if p.Material == "" || p.Draw < 1 || p.Material != strings.TrimSpace(p.Material) {
				t.Errorf("%q: placeholder %+v has a bad material or draw", text, p)
			}
			if p.Draw == 1 && p.Material != strings.TrimSpace(p.Key) && !strings.Contains(p.Key, "#") {
				t.Errorf("%q: material %q of key %q", text, p.Material, p.Key)
			}
			// The literal before it is the text between, braces unescaped.
			between := text[prev:p.Start]
			if got := fuzzUnescapeBraces(between); got != lits[i] {
				t.Errorf("%q: literal %d is %q, the text between is %q", text, i, lits[i], between)
			}
			rebuilt.WriteString(fuzzEscapeBraces(lits[i]) + "{" + p.Key + "}")
			prev = p.End
		}
		if got := fuzzUnescapeBraces(text[prev:]); got != lits[len(phs)] {
			t.Errorf("%q: last literal is %q, the tail is %q", text, lits[len(phs)], text[prev:])
		}
		rebuilt.WriteString(fuzzEscapeBraces(lits[len(phs)]))
		lits2, phs2, err := ParsePlaceholders(rebuilt.String())
		if err != nil {
			t.Fatalf("%q: rebuilt %q does not parse: %v", text, rebuilt.String(), err)
		}
		if strings.Join(lits2, "\x00") != strings.Join(lits, "\x00") || len(phs2) != len(phs) {
			t.Fatalf("%q: round trip through %q changed the literals or count", text, rebuilt.String())
		}
		for i := range phs {
			if phs[i].Key != phs2[i].Key || phs[i].Material != phs2[i].Material || phs[i].Draw != phs2[i].Draw {
				t.Errorf("%q: round trip changed placeholder %d: %+v → %+v", text, i, phs[i], phs2[i])
			}
		}
		if HasPlaceholder(text) != (len(phs) > 0) {
			t.Errorf("%q: HasPlaceholder disagrees with ParsePlaceholders", text)
		}
	})
}

func fuzzEscapeBraces(s string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}

func fuzzUnescapeBraces(s string) string {
	return strings.NewReplacer("{{", "{", "}}", "}").Replace(s)
}
