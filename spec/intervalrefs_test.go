package spec

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func spellTraversal(tr hcl.Traversal) string {
	var b strings.Builder
	for _, s := range tr {
		switch t := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(t.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + t.Name)
		case hcl.TraverseIndex:
			b.WriteString("[" + t.Key.AsString() + "]")
		}
	}
	return b.String()
}

// Load rewrites the interval bounds a threshold reads into the attribute
// the metrics object holds them in (NAME#ci_low), after validate checked
// the names as written; WrittenTraversal gives the written form back,
// which reports show. A bound behind an index computed at run time is an
// error, not a silent miss.
func TestIntervalBoundsRewritten(t *testing.T) {
	const suite = `
suite "s" { schema = "rasa" }
variable "s" { default = "冒烟" }
template "订机票" {
  text  = "订机票"
  level = "S1"
  expect = { "$.intent.name" = "订机票" }
}
split "冒烟" { where = case.level == "S1" }
`
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": suite +
		"threshold \"t\" { condition = metrics.split.冒烟.accuracy.ci_low >= 0.85 && metrics.label.intent.macro_f1[\"ci_high\"] > 0.2 && metrics.accuracy > 0 }\n"})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got, written []string
	for _, tr := range s.Thresholds[0].Condition.Variables() {
		got = append(got, spellTraversal(tr))
		written = append(written, spellTraversal(WrittenTraversal(tr)))
	}
	if want := "metrics.split.冒烟.accuracy#ci_low metrics.label.intent.macro_f1#ci_high metrics.accuracy"; strings.Join(got, " ") != want {
		t.Errorf("rewritten: %v, want %s", got, want)
	}
	if want := "metrics.split.冒烟.accuracy.ci_low metrics.label.intent.macro_f1.ci_high metrics.accuracy"; strings.Join(written, " ") != want {
		t.Errorf("written: %v, want %s", written, want)
	}

	dir = writeFiles(t, map[string]string{"s.nlutest.hcl": suite + "threshold \"t\" { condition = metrics.split[var.s].accuracy.ci_low >= 0.85 }\n"})
	_, diags = testLoad(dir, Options{})
	d := findDiag(diags, "Interval of a computed address")
	if d == nil || !strings.Contains(d.Detail, `metrics.split["smoke"].accuracy.ci_low`) || d.Subject == nil || d.Subject.Start.Line != 10 {
		t.Errorf("computed address: %v", diags)
	}
}
