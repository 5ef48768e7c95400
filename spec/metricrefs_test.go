package spec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// nodeMembers is what the "Unknown metric" message lists a metrics node
// to have, from the families a suite loads with (here spec's own,
// schema.BuiltinFamilies): the node families' figures ("total", …), then
// each family's subtree ("dimension", …, "tools"), so a new family does
// not break the test that checks the message.
func nodeMembers(fams []*schema.Family) string {
	var figures, subtrees []string
	for _, f := range fams {
		for _, a := range f.Attrs {
			figures = append(figures, strconv.Quote(a.Name))
		}
		for _, s := range f.Subs {
			subtrees = append(subtrees, strconv.Quote(s.Name))
		}
	}
	all := append(figures, subtrees...)
	return strings.Join(all[:len(all)-1], ", ") + " or " + all[len(all)-1]
}

// Threshold conditions name metrics the run will have; validate checks each
// name against the metrics tree (and the suite's splits, templates, scenes
// and schema dimensions) and suggests the nearest.
func TestMetricReferenceDiagnostics(t *testing.T) {
	const suite = `
suite "s" { schema = "rasa" }
template "订机票" {
  text  = "订机票"
  level = "S1"
  scene = ["出行", "机票"]
  expect = { "$.intent.name" = "订机票" }
}
split "smoke" { where = case.level == "S1" }
`
	for _, c := range []struct {
		cond    string
		summary string // "" when the reference is valid
		detail  string
	}{
		{`metrics.accuracy >= 0.9`, "", ""},
		{`metrics.split.smoke.accuracy >= 0.9`, "", ""},
		{`metrics.split["smoke"].label.intent.macro_f1 >= 0.9`, "", ""},
		{`metrics.scene["出行/机票"].error_rate < 0.1`, "", ""},
		{`metrics.template["订机票"].passed > 0`, "", ""},
		{`metrics.level.S1.total > 0`, "", ""},
		{`metrics.core.accuracy >= 0.1`, "", ""},
		{`metrics.latency.p95_ms < 100`, "", ""},
		{`metrics.latency.bucket["<=20"].p95_ms < 100`, "", ""},
		{`metrics.dimension.entity.f1 > 0`, "", ""},
		{`metrics.dimension.entity.values["x"].precision > 0`, "", ""},
		{`metrics.label.intent.labels["订机票"].recall > 0`, "", ""},
		{`metrics.calibration.intent.ece < 0.1`, "", ""},
		{`metrics.calibration.intent.bins["0.9-1.0"].gap < 0.1`, "", ""},
		{`metrics.oos.intent.auroc >= 0.8`, "", ""},
		{`metrics.oos.intent.thresholds["0.7"].oos_recall >= 0.5`, "", ""},
		{`metrics.oos.intent.aroc >= 0.8`, "Unknown metric", `Did you mean "auroc"?`},
		{`metrics.oos.intnt.auroc >= 0.8`, "Unknown label dimension", `Did you mean "intent"?`},
		{`metrics.acuracy >= 0.9`, "Unknown metric", `There is no metric "acuracy" here. Did you mean "accuracy"? A metrics node has ` + nodeMembers(schema.BuiltinFamilies()) + `.`},
		{`metrics.splt.smoke.accuracy >= 0.9`, "Unknown metric", `There is no metric "splt" here. Did you mean "split"?`},
		{`metrics.split.smok.accuracy >= 0.9`, "Unknown split", `This suite has no split "smok", so metrics.split has no node for it. Did you mean "smoke"? Known: "smoke".`},
		{`metrics.split > 0`, "Incomplete metric", `metrics.split is a map of nodes; name one, e.g. metrics.split["NAME"].accuracy.`},
		{`metrics.template["订票"].accuracy > 0`, "Unknown template", `This suite has no template "订票"`},
		{`metrics.scene["出行/火车"].accuracy > 0`, "Unknown scene path", `This suite has no scene path "出行/火车"`},
		{`metrics.level.S2.accuracy > 0`, "Unknown template level", `Known: "S1".`},
		{`metrics.total.value > 0`, "Unsupported attribute", `total is a number; it has no attributes.`},
		{`metrics.accuracy.value > 0`, "Unsupported attribute", `accuracy is a number; its only attributes are the bounds of its confidence interval, ci_low and ci_high.`},
		// The bounds of an interval (issue 36), checked on the names as
		// written, with the metric's kind when it has none.
		{`metrics.accuracy.ci_low >= 0.85`, "", ""},
		{`metrics.split.smoke.accuracy.ci_high > 0.5 && metrics.split["smoke"].error_rate.ci_low < 0.1`, "", ""},
		{`metrics.label.intent.macro_f1.ci_low > 0.5`, "", ""},
		{`metrics.label.intent.labels["订机票"].recall.ci_low > 0.5`, "", ""},
		{`metrics.dimension.entity.f1["ci_low"] > 0.5`, "", ""},
		{`metrics.scene["出行/机票"].accuracy.ci_low > 0.5`, "", ""},
		{`metrics.accuracy.ci_lo > 0.5`, "Unsupported attribute", `Did you mean "ci_low"?`},
		{`metrics.latency.p95_ms.ci_high < 500`, "Metric without an interval", `p95_ms is a latency in milliseconds: it has no confidence interval, so no ci_high.`},
		{`metrics.passed.ci_low > 3`, "Metric without an interval", `passed is a count: it has no confidence interval, so no ci_low.`},
		{`metrics.oos.intent.auroc.ci_low > 0.8`, "Metric without an interval", `auroc is a number without an interval`},
		{`metrics.dimension.entity.values["x"].precision.ci_low > 0`, "Metric without an interval", `precision is a ratio that is not a proportion`},
		{`metrics.accuracy.ci_low.x > 0`, "Unsupported attribute", `accuracy.ci_low is a number; it has no attributes.`},
		{`metrics.latency.p95 < 100`, "Unknown metric", `latency has no "p95". Did you mean "p95_ms"?`},
		{`metrics.latency.bucket["<=20"].p95 < 100`, "Unknown metric", `bucket entries have "count", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms" or "max_ms"; "p95" is none of them. Did you mean "p95_ms"?`},
		{`metrics.label.intnt.accuracy > 0`, "Unknown label dimension", `The suite's schema has no label dimension "intnt". Did you mean "intent"? Known: "intent".`},
		{`metrics.dimension.intent.f1 > 0`, "Unknown dimension", `The suite's schema has no dimension "intent".`},
		{`metrics.label.intent.acc > 0`, "Unknown metric", `The label dimension "intent" has no "acc".`},
		{`metrics.dimension.entity.accuracy > 0`, "Unknown metric", `The items dimension "entity" has no "accuracy".`},
		{`metrics.dimension.entity.values["x"].recal > 0`, "Unknown metric", `values entries have "expected", "recognized", "correct", "wrong", "precision", "recall", "error_rate" or "f1"; "recal" is none of them. Did you mean "recall"?`},
		{`metrics.label.intent.labels["x"].f2 > 0`, "Unknown metric", `labels entries have "precision", "recall", "f1" or "support"; "f2" is none of them. Did you mean "f1"?`},
	} {
		t.Run(c.cond, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": suite + "threshold \"t\" { condition = " + c.cond + " }\n"})
			_, diags := testLoad(dir, Options{})
			if c.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected diagnostics: %v", diags)
				}
				return
			}
			d := findDiag(diags, c.summary)
			if d == nil {
				t.Fatalf("no %q diagnostic in %v", c.summary, diags)
			}
			if !strings.Contains(d.Detail, c.detail) {
				t.Errorf("detail %q\nwant it to contain %q", d.Detail, c.detail)
			}
		})
	}
}

// spec alone (this package's tests link no assert) knows every built-in
// family's names: a threshold on metrics.usage or metrics.text validates,
// and a misspelt one is caught, without the package that fills them.
func TestBuiltinFamiliesWithoutAssert(t *testing.T) {
	for _, c := range []struct {
		cond string
		ok   bool
	}{
		{`metrics.usage.total_tokens < 1000000`, true},
		{`metrics.text.rougeL >= 0.3`, true},
		{`metrics.text.meteor >= 0.3`, true},
		{`metrics.text.metor >= 0.3`, false},
		{`metrics.ratings["人工"].dimension["流畅"].cohen_kappa >= 0.4`, true},
		{`metrics.usage.total_token < 1000000`, false},
	} {
		dir := t.TempDir()
		src := "suite \"s\" {}\ntemplate \"t\" {\n  text = \"你好\"\n}\nthreshold \"th\" { condition = " + c.cond + " }\n"
		if err := os.WriteFile(filepath.Join(dir, "s"+FileSuffix), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := testLoad(dir, Options{})
		if diags.HasErrors() == c.ok {
			t.Errorf("%s: %v", c.cond, diags)
		}
	}
}

// docs/language.md's schema example, verbatim: its response type uses
// object({…}) and optional(T), type constructors the function-name check
// once took for calls to unknown functions ("There is no function named
// "object""); the type then checks response.* names as documented.
func TestDocumentedResponseTypeValidates(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "```hcl\nschema \"my-nlu\" {")
	if start < 0 {
		t.Fatal(`docs/language.md has no "schema \"my-nlu\"" example`)
	}
	start += len("```hcl\n")
	example := text[start : start+strings.Index(text[start:], "```")]
	for _, c := range []struct {
		cond, want string
	}{
		{`response.intent.confidence > 0.5`, ""},
		{`response.intent.confidnce > 0.5`, `Did you mean "confidence"?`},
	} {
		dir := t.TempDir()
		src := "suite \"s\" { schema = \"my-nlu\" }\n" + example + "template \"t\" {\n  text = \"订机票\"\n}\nassert {\n  condition = " + c.cond + "\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "s"+FileSuffix), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := testLoad(dir, Options{})
		switch {
		case c.want == "" && diags.HasErrors():
			t.Errorf("the documented example does not validate: %v", diags)
		case c.want != "" && !strings.Contains(diags.Error(), c.want):
			t.Errorf("%s: %v, want %s", c.cond, diags, c.want)
		}
	}
}
