package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// glossaryNote is one `glossary "NAME" { term = "…" }` block of
// glossarySettings, a labelled settings block a family could declare.
type glossaryNote struct{ Name, Term string }

type glossarySettings struct{}

func (glossarySettings) Block() string     { return "glossary" }
func (glossarySettings) LabelName() string { return "name" }
func (glossarySettings) Default() any      { return []glossaryNote(nil) }
func (glossarySettings) Append(settings, v any) any {
	return append(settings.([]glossaryNote), v.(glossaryNote))
}

var glossarySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "term", Required: true}}}

func (glossarySettings) Decode(d *Decoder, b *hcl.Block) any {
	c, ok := d.Content(b, glossarySchema)
	term := d.String(c.Attributes, "term", "")
	if a := c.Attributes["term"]; a != nil && strings.TrimSpace(term) == "" {
		d.Errorf(a.Expr.Range().Ptr(), "Empty term", "A glossary names its term.")
		return nil
	}
	if !ok {
		return nil
	}
	return glossaryNote{b.Labels[0], term}
}

// TestFamilyLabelledSettingsBlock: a family's labelled settings block
// (LabelledSettingsBlock) may repeat under distinct names; its settings
// are every block's, in declaration order; a repeated name is refused at
// its label (pointing at the first), an empty or missing name is refused
// too, and every block's mistakes are reported in the one load.
func TestFamilyLabelledSettingsBlock(t *testing.T) {
	head := "suite \"s\" {}\n"
	tests := []struct {
		name, body string
		want       []glossaryNote
		errs       []string // "Summary@file:line:col"
	}{
		{"none: the default", "", nil, nil},
		{"two, in order", `
glossary "意图" { term = "intent" }
glossary "槽位" { term = "slot" }`, []glossaryNote{{"意图", "intent"}, {"槽位", "slot"}}, nil},
		{"a repeated name", `
glossary "意图" { term = "intent" }
glossary "意图" { term = "again" }`, []glossaryNote{{"意图", "intent"}},
			[]string{"Duplicate glossary block@s.nlutest.hcl:4:10 (context s.nlutest.hcl:3:10)"}},
		{"an empty name, a missing one and a bad body, in one pass", `
glossary "" { term = "x" }
glossary { term = "y" }
glossary "实体" { term = "" }
glossary "对话" { terms = "z" }
glossary "好" { term = "fine" }`, []glossaryNote{{"好", "fine"}},
			// hcl reports the missing name as it reads the file; a
			// misspelt required attribute is one diagnostic (did you mean).
			[]string{"Missing name for glossary@s.nlutest.hcl:4:10 (context s.nlutest.hcl:4:1)", "Empty name@s.nlutest.hcl:3:10",
				"Empty term@s.nlutest.hcl:5:24", "Unsupported argument@s.nlutest.hcl:6:17"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": head + tc.body})
			s, diags := Load(dir, Options{Settings: []SettingsBlock{glossarySettings{}}})
			var errs []string
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				e := fmt.Sprintf("%s@%s", d.Summary, place(d.Subject))
				if d.Context != nil {
					e += " (context " + place(d.Context) + ")"
				}
				errs = append(errs, e)
			}
			if strings.Join(errs, "\n") != strings.Join(tc.errs, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(tc.errs, "\n"))
			}
			if s == nil {
				t.Fatal("no suite")
			}
			got, _ := s.Settings("glossary").([]glossaryNote)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("settings %v, want %v", got, tc.want)
			}
		})
	}
}

// place is a range's start as file:line:col, the file without its
// directory.
func place(r *hcl.Range) string {
	if r == nil {
		return "-"
	}
	f := r.Filename[strings.LastIndexAny(r.Filename, `/\`)+1:]
	return fmt.Sprintf("%s:%d:%d", f, r.Start.Line, r.Start.Column)
}
