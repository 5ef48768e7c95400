package template

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
)

const suiteSrc = `suite "订票" {}
materials "城市" { values = ["北京", "上海"] }
template "订机票" {
  text   = "帮我订一张去{城市}的机票"
  expect = { "$.intent" = "book_flight", "$.city" = "{城市}" }
}
`

// load writes src as a suite file and loads it with kinds.
func load(t *testing.T, src string, kinds []spec.SourceKind) (*spec.Suite, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec.Load(dir, spec.Options{SourceKinds: kinds})
}

// TestKindGeneratesAndRebuilds loads a template through the kind and
// checks its cases, their source and that a saved case rebuilds.
func TestKindGeneratesAndRebuilds(t *testing.T) {
	s, diags := load(t, suiteSrc, []spec.SourceKind{Kind{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var texts []string
	var saved []*schema.Case
	if err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		texts = append(texts, c.Text)
		cp := *c
		saved = append(saved, &cp)
		if c.SourceKind != schema.KindTemplate || c.Source != "订机票" || c.Slots["城市"].Value == "" {
			t.Errorf("case %+v: want source template 订机票 with slot 城市", c)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts, "|"); got != "帮我订一张去北京的机票|帮我订一张去上海的机票" {
		t.Fatalf("texts = %s", got)
	}
	if len(s.Templates) != 1 || generate.TemplateOf(s.CaseSources[0]) != s.Templates[0] {
		t.Fatalf("the template source is not the suite's template")
	}
	c, ok := s.CaseSources[0].Rebuild(spec.Saved{Case: saved[1]})
	if !ok || c.Text != "帮我订一张去上海的机票" {
		t.Fatalf("rebuild = %v, %v", c, ok)
	}
}

// TestWithoutTheKind: a suite loaded without the template kind (nil
// SourceKinds: spec has no built-in kind) gets the diagnostic any unknown
// block gets, at the block.
func TestWithoutTheKind(t *testing.T) {
	_, diags := load(t, suiteSrc, nil)
	if !diags.HasErrors() {
		t.Fatal("want an error for the template block")
	}
	d := diags[0]
	if d.Summary != "Unsupported block type" || d.Subject == nil || d.Subject.Start.Line != 3 || !strings.Contains(d.Detail, `"template"`) {
		t.Fatalf("diagnostic = %s: %s at %v", d.Summary, d.Detail, d.Subject)
	}
}

// TestDiagnostics checks the kind's own mistakes keep their summaries and
// places: an unknown materials name with its did-you-mean, a distinct
// draw of too few values, a second perturb block.
func TestDiagnostics(t *testing.T) {
	cases := []struct{ name, body, summary, detail string }{
		{"unknown materials", `text = "去{城巿}"`, "Unknown materials", "Did you mean {城市}?"},
		{"distinct draws", `text = "{城市}到{城市#3}"`, "Not enough values for distinct draws", "3-th distinct value"},
		{"bad placeholder", `text = "去{城市"`, "Invalid placeholder", ""},
		{"two perturb", "text = \"去{城市}\"\n  perturb { kinds = [\"swap\"] }\n  perturb { kinds = [\"swap\"] }", "Duplicate perturb block", "one perturb block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "suite \"s\" {}\nmaterials \"城市\" { values = [\"北京\", \"上海\"] }\ntemplate \"t\" {\n  " + c.body + "\n}\n"
			_, diags := load(t, src, []spec.SourceKind{Kind{}})
			for _, d := range diags {
				if d.Summary == c.summary && strings.Contains(d.Detail, c.detail) && d.Subject != nil && d.Subject.Start.Line >= 4 {
					return
				}
			}
			t.Fatalf("no %q diagnostic in %s", c.summary, diags.Error())
		})
	}
}
