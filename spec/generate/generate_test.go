package generate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
)

const bookingSuite = `suite "订票" {}
materials "城市" { values = ["北京", "上海", "广州"] }
template "订票" {
  text     = "从{城市}到{城市#2}，{{改签}}"
  strategy = "product"
  expect   = { "$.from" = "{城市}", "$.route" = ["{城市}", "{城市#2}"], "$.note" = "{{原样}}" }
}
`

// cases generates every case of s.
func cases(t *testing.T, s *spec.Suite, opts spec.GenOptions) []*schema.Case {
	t.Helper()
	var out []*schema.Case
	if err := s.Generate(opts, func(c *schema.Case) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// A template's cases are the product of its slots' values with distinct
// draws of one materials, each with the stable id spec.CaseID gives its
// slots, its text and its filled expectations; NewSource rebuilds each
// saved case to the same case, and refuses one whose slot value left the
// materials.
func TestTemplateCasesAndRebuild(t *testing.T) {
	s := kindtest.MustLoad(t, kindtest.Suite(bookingSuite))
	got := cases(t, s, spec.GenOptions{})
	if len(got) != 6 {
		t.Fatalf("%d cases, want 6 (3 × 2 distinct pairs)", len(got))
	}
	src := generate.NewSource(s, s.Templates[0])
	if generate.TemplateOf(src) != s.Templates[0] || generate.TemplateOf(s.CaseSources[0]) != s.Templates[0] {
		t.Fatal("TemplateOf does not return the source's template")
	}
	ids := map[string]bool{}
	for _, c := range got {
		from, to := c.Slots["城市"].Value, c.Slots["城市#2"].Value
		if from == to {
			t.Errorf("case %s draws %s twice", c.ID, from)
		}
		if want := "从" + from + "到" + to + "，{改签}"; c.Text != want {
			t.Errorf("text %q, want %q", c.Text, want)
		}
		if want := spec.CaseID("订票", c.Slots); c.ID != want || ids[c.ID] {
			t.Errorf("id %s, want %s, unique", c.ID, want)
		}
		ids[c.ID] = true
		wantExpect := fmt.Sprint(schema.Expectations{{Path: "$.from", Value: from}, {Path: "$.route", Value: []any{from, to}}, {Path: "$.note", Value: "{原样}"}})
		if fmt.Sprint(c.Expect) != wantExpect {
			t.Errorf("expect %v, want %v", c.Expect, wantExpect)
		}
		r, ok := src.Rebuild(spec.Saved{Case: c})
		if !ok || r.ID != c.ID || r.Text != c.Text || fmt.Sprint(r.Expect) != wantExpect {
			t.Errorf("rebuild of %s: %v %+v", c.ID, ok, r)
		}
	}
	gone := *got[0]
	gone.Slots = map[string]schema.Slot{"城市": {Value: "深圳"}, "城市#2": got[0].Slots["城市#2"]}
	if r, ok := src.Rebuild(spec.Saved{Case: &gone}); ok {
		t.Errorf("a case whose slot value left the materials rebuilt: %+v", r)
	}
}

// warnings generates s's cases and returns the warnings and the number of
// cases.
func warnings(t *testing.T, s *spec.Suite, opts spec.GenOptions) ([]string, int) {
	t.Helper()
	var warns []string
	opts.Warn = func(_ hcl.Range, msg string) { warns = append(warns, msg) }
	n := 0
	if err := s.Generate(opts, func(*schema.Case) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return warns, n
}

// values lists n distinct Chinese-numbered values.
func values(prefix string, n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%q", fmt.Sprintf("%s%d", prefix, i))
	}
	return "[" + strings.Join(vs, ", ") + "]"
}

// A product larger than DefaultProductCap without a limit generates the
// cap's cases and says so; an explicit limit drops the rest with a count;
// materials without values of the template's levels generate nothing.
func TestTemplateWarnings(t *testing.T) {
	big := fmt.Sprintf(`suite "大" {}
materials "出发" { values = %s }
materials "到达" { values = %s }
template "乘积" {
  text     = "{出发}到{到达}"
  strategy = "product"
}
`, values("城", 400), values("站", 300))
	warns, n := warnings(t, kindtest.MustLoad(t, kindtest.Suite(big)), spec.GenOptions{Lean: true, CountOnly: true})
	want := fmt.Sprintf(`template "乘积": strategy "product" makes 120000 cases (400 × 300 values); without a limit only the first %d are generated. Set limit, or use strategy "pairwise"`, generate.DefaultProductCap)
	if n != generate.DefaultProductCap || len(warns) != 1 || warns[0] != want {
		t.Errorf("uncapped product: %d cases, warnings %q; want %d and %q", n, warns, generate.DefaultProductCap, want)
	}
	limited := strings.Replace(big, `strategy = "product"`, "strategy = \"product\"\n  limit    = 7", 1)
	warns, n = warnings(t, kindtest.MustLoad(t, kindtest.Suite(limited)), spec.GenOptions{})
	if want := `template "乘积": limit 7 dropped 119993 of the product's 120000 cases`; n != 7 || len(warns) != 1 || warns[0] != want {
		t.Errorf("limited product: %d cases, warnings %q; want 7 and %q", n, warns, want)
	}
	levels := `suite "层" {}
materials "城市" {
  level  = "M1"
  values = ["北京", "上海"]
}
template "回归" {
  text            = "去{城市}"
  material_levels = ["M2", "M3"]
}
`
	warns, n = warnings(t, kindtest.MustLoad(t, kindtest.Suite(levels)), spec.GenOptions{})
	if want := `template "回归" generates no cases: materials "城市" has no values of levels M2, M3`; n != 0 || len(warns) != 1 || warns[0] != want {
		t.Errorf("no values of the levels: %d cases, warnings %q; want 0 and %q", n, warns, want)
	}
}
