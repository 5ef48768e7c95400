package spec

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// nestSuite is a suite whose template asserts cond (on line 5).
func nestSuite(cond string) string {
	return "suite \"嵌套\" {}\nmaterials \"城市\" { values = [\"北京\", \"上海\"] }\ntemplate \"t\" {\n  text = \"查{城市}天气\"\n  assert { condition = " + cond + " }\n}\n"
}

// TestNestingEveryForm: every expression form that makes HCL's parser or
// hclsyntax.Walk recurse counts towards MaxNesting, so a generated chain
// of it is a located "Nesting too deep" before HCL parses the file (it
// used to be a Go stack overflow at a million levels, and seconds and
// gigabytes below that). The diagnostic points at the first place past the
// limit: the token that opens the 101st level.
func TestNestingEveryForm(t *testing.T) {
	rep := strings.Repeat
	// The template and assert blocks are two levels: the 99th operator of
	// a chain in the condition is the 101st level.
	const past = MaxNesting - 1
	tests := []struct {
		name, cond string
		// the diagnostic is at the nth tok of the condition (n 0: only
		// the line is checked).
		tok string
		n   int
	}{
		{"ternary in the true branch, 100,000 deep", rep("true ? ", 100_000) + "true" + rep(" : false", 100_000), "?", past},
		{"ternary else-if chain, 100,000 long", rep("case.text == \"北京\" ? true : ", 100_000) + "false", "\"北京\"", past - 1}, // the string is a level in the comparison
		{"+ chain of 200,000 terms", "1" + rep(" + 1", 200_000) + " > 0", "+", past},
		{"|| chain of 200,000 terms", "false" + rep(" || false", 200_000), "||", past},
		{"&& chain", "true" + rep(" && true", 200_000), "&&", past},
		{"* chain", "1" + rep(" * 1", 200_000) + " > 0", "*", past},
		{"- chain (binary)", "1" + rep(" - 1", 200_000) + " > 0", "-", past},
		{"== chain", "true" + rep(" == true", 200_000), "==", past},
		{"unary - chain", rep("-", 200_000) + "1 > 0", "-", past},
		{"unary ! chain", rep("!", 200_000) + "true", "!", past},
		// An index is a level while open and one for the rest of the operand.
		{"index chain", "[[1]]" + rep("[0]", 200_000) + " == 1", "[0]", past - 1},
		{"index chain with expressions", "[[1]]" + rep("[length(case.text) - 3]", 100_000) + " == 1", "", 0},
		{"splat chain", "[[1]]" + rep("[*]", 200_000) + " != null", "[*]", past - 1},
		{"attribute after an index", "[{a = [{a = 1}]}]" + rep("[0].a", 200_000) + " == 1", "", 0},
		{"template if directives", "\"" + rep("%{ if true }", 100_000) + "x" + rep("%{ endif }", 100_000) + "\" == \"x\"", "", 0},
		{"template for directives", "\"" + rep("%{ for c in [1] }", 100_000) + "x" + rep("%{ endfor }", 100_000) + "\" == \"x\"", "", 0},
		{"mixed operators and conditionals", rep("1 + 2 * 3 > 4 ? ", 100_000) + "true" + rep(" : false", 100_000), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := nestSuite(tt.cond)
			diags := CheckSource("x.nlutest.hcl", []byte(src))
			d := findDiag(diags, "Nesting too deep")
			if d == nil {
				t.Fatalf("diagnostics %v, want Nesting too deep", diags)
			}
			if d.Subject == nil || d.Subject.Start.Line != 5 {
				t.Fatalf("at %v, want line 5 (the condition)", d.Subject)
			}
			if tt.n > 0 {
				line := strings.Split(src, "\n")[4]
				off := 0
				for range tt.n {
					off += strings.Index(line[off:], tt.tok) + len(tt.tok)
				}
				want := 1 + len([]rune(line[:off-len(tt.tok)]))
				if d.Subject.Start.Column != want {
					t.Errorf("at column %d, want %d (the %d%s %q): the first place past the limit", d.Subject.Start.Column, want, tt.n, "th", tt.tok)
				}
			}
			if !strings.Contains(d.Detail, "100 deep") || !strings.Contains(d.Detail, "conditionals") {
				t.Errorf("detail %q", d.Detail)
			}
			// Load stops at the check too: no parse, no Walk.
			_, sums, _ := loadText(t, src)
			if !strings.Contains(sums, "Nesting too deep") {
				t.Errorf("Load: %s", sums)
			}
		})
	}
}

// TestNestingRealisticExpressionsLoad: long but ordinary expressions —
// a 60-way || of comparisons, a 30-step else-if chain, arithmetic in
// nested calls, deep response paths, nested template directives — stay
// under the limit and the suite loads and generates.
func TestNestingRealisticExpressionsLoad(t *testing.T) {
	var or, elif []string
	for i := range 60 {
		or = append(or, `case.text == "查城市`+strings.Repeat("北", i%5)+`天气"`)
	}
	for i := range 30 {
		elif = append(elif, `length(case.text) == `+strings.Repeat("1", 1+i%3)+` ? "第`+strings.Repeat("一", 1+i%4)+`" :`)
	}
	src := `suite "嵌套" {}
materials "城市" { values = ["北京", "上海"] }
template "t" {
  text = "查{城市}天气"
  assert {
    condition = ` + strings.Join(or, " || ") + ` || true
  }
  assert {
    condition = (` + strings.Join(elif, " ") + ` "其他") != ""
  }
  assert {
    condition = max(1, min(2, abs(floor(ceil(length(case.text) * 2 + 3 - 1 / 4 % 5))))) > 0 && !(case.text == "") && -length(case.text) < 0
  }
  assert {
    condition = try(response.data[0].content.des[0].phone_number, "") == "" || response.data[*].content[*].rel[0].relName != null
  }
  assert {
    condition = "%{ for c in split("", case.text) }%{ if c == "北" }%{ if length(c) == 1 }北%{ else }?%{ endif }%{ endif }%{ endfor }" != "x"
  }
}
`
	s, sums, out := loadText(t, src)
	if sums != "" {
		t.Fatalf("diagnostics:\n%s", out)
	}
	n := 0
	if err := s.Generate(GenOptions{}, func(*schema.Case) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("generated %d cases, %v", n, err)
	}
}
