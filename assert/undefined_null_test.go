package assert_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// undefinedMetrics is a metrics tree in which every family holds figures
// that are not defined: ratios over 0 and numbers that are null (kappas
// over one label, a mean over no kept item), as their families make them
// when nothing counts towards them.
func undefinedMetrics() *schema.Metrics {
	n := schema.Node{
		Total: 2, Errored: 2,
		Dimension: map[string]*schema.Dimension{
			"city":   {Kind: "leaf", Values: map[string]*schema.Dimension{"北京": {Kind: "leaf"}}},
			"entity": {Kind: "items", Types: map[string]*schema.Dimension{"城市": {Kind: "items"}}},
			"iao":    {Kind: "case"},
		},
		Label:   map[string]*schema.Label{"intent": {Labels: map[string]*schema.LabelStats{"订机票": {}}}},
		Latency: &schema.Latency{Bucket: map[string]*schema.LatencyStats{"<=20": {}}},
		Families: map[string]any{
			"usage":      &schema.TokenUsage{},
			"text":       &schema.Text{},
			"robustness": &schema.Robustness{Kind: map[string]*schema.RobustKind{"swap": {}}},
			"dialogue":   &schema.Dialogue{Turn: map[string]*schema.TurnStats{"1": {}}},
			"repeat":     &schema.Repeat{},
			"ratings":    assert.RatingsValue{"第一轮": {Dimension: map[string]*assert.RatingDim{"满意度": {}}}},
			"ranking":    &assert.RankingValue{PositiveGrade: map[string]*assert.RankFigures{"4": {}}, Source: map[string]*assert.RankFigures{"回复选择": {}}},
			"memory":     &schema.Memory{Distance: map[string]*schema.MemoryStats{"0": {}}},
			"rubric":     map[string]*schema.RubricStats{"共情": {}},
			"scenario":   &schema.Scenario{BySlot: map[string]*schema.SlotCounts{"city": {}}},
			"coverage":   &schema.Coverage{Intents: &schema.CoverageKind{Item: map[string]schema.CoverageItem{"问候": {}}}},
			"tools": &schema.Tools{Tool: map[string]*schema.ToolFigures{"search_flights": {}},
				Mode: map[string]*schema.ModeFigures{schema.ModeInOrder: {}}},
			"task": &schema.Task{Domain: map[string]*schema.TaskFigures{"机票": {}}},
			// no case: every figure null, the bins and thresholds too
			"calibration": map[string]*schema.Calibration{"intent": (&metrics.CalibrationAcc{}).Result()},
			"oos":         map[string]*schema.OOS{"intent": metrics.NewOOSAcc(0.7).Result()},
		},
	}
	n.Dimension["city"].Precision = &schema.Ratio{}
	n.Dimension["iao"].Accuracy = &schema.Ratio{}
	return &schema.Metrics{Node: n}
}

// alwaysDefined lists the figures that have a value whenever their family
// is present (a family without data is absent, not null): latency in ms
// (absent without a call), corpus BLEU (0 when nothing matches, as
// sacrebleu).
var alwaysDefined = []string{"mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "bleu"}

// TestUndefinedFiguresAreNull: in threshold conditions every figure of
// every family that is not defined is null — ratios over 0 and the
// numbers a family leaves null (Cohen's and Fleiss' kappas with one label
// throughout, a ratings mean over no kept item), which read as 0 before
// and let "metrics.ratings[…].cohen_kappa >= 0" pass — and a threshold on
// any of them is an error saying it has no data, not a raw HCL error. Every
// family of the program's extension set (extensions.Default: its shapes
// wherever they are defined) with a figure that is not a count is
// covered: a new family fails here until undefinedMetrics holds it.
func TestUndefinedFiguresAreNull(t *testing.T) {
	m := undefinedMetrics()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(`suite "null" {}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, extensions.Default().LoadOptions(spec.Options{}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tree := s.Tree
	var null []string
	families := map[string]bool{}
	var walk func(o *schema.Obj)
	walk = func(o *schema.Obj) {
		for _, mt := range o.Metrics {
			if mt.Kind == schema.MetricCount || slices.Contains(alwaysDefined, mt.Name) {
				continue
			}
			if mt.Value != nil {
				t.Errorf("%s = %v, want null (no data)", mt.Addr, *mt.Value)
			}
			null = append(null, mt.Addr)
			first := strings.TrimPrefix(mt.Addr, "metrics.")
			if i := strings.IndexAny(first, ".["); i >= 0 {
				first = first[:i]
			}
			if f := tree.FamilyOf(first); f != nil {
				families[f.Name] = true
			}
		}
		for _, c := range o.Children {
			if c.Obj != nil {
				walk(c.Obj)
				continue
			}
			for _, e := range c.Entries {
				walk(e)
			}
		}
	}
	walk(tree.ReadMetrics(m))
	for _, f := range tree.Families {
		if hasUndefinable(f) && !families[f.Name] {
			t.Errorf("family %s has figures that can be undefined but none was checked: add it to undefinedMetrics", f.Name)
		}
	}
	for _, want := range []string{`metrics.ratings["第一轮"].dimension["满意度"].cohen_kappa`, `metrics.ratings["第一轮"].dimension["满意度"].fleiss_kappa`,
		`metrics.ratings["第一轮"].dimension["满意度"].mean`, "metrics.accuracy", `metrics.label.intent.labels["订机票"].precision`,
		"metrics.calibration.intent.mce", "metrics.calibration.intent.ece", `metrics.calibration.intent.bins["0.9-1.0"].gap`,
		"metrics.oos.intent.auroc", "metrics.scenario.success_rate", "metrics.scenario.turns_mean", "metrics.coverage.ratio", "metrics.coverage.intents.passing_ratio",
		"metrics.tools.f1", "metrics.tools.argument_accuracy", `metrics.tools.tool["search_flights"].recall`, `metrics.tools.mode["in_order"].pass_rate`, "metrics.task.inform_rate", "metrics.task.book_rate", `metrics.task.domain["机票"].inform_f1`, "metrics.oos.intent.aupr", "metrics.oos.intent.fpr_at_95_tpr", `metrics.oos.intent.thresholds["0.7"].oos_recall`} {
		if !slices.Contains(null, want) {
			t.Errorf("%s not among the null figures %q", want, null)
		}
	}

	for _, addr := range null {
		expr, diags := hclsyntax.ParseExpression([]byte(addr+" >= 0"), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", addr, diags)
		}
		s.Thresholds = append(s.Thresholds, &spec.Threshold{Name: addr, Condition: expr, Severity: "error"})
	}
	for _, tr := range assert.EvaluateThresholds(s, m) {
		if tr.Outcome != schema.Error || !strings.Contains(tr.Error, "has no data") {
			t.Errorf("threshold on %s: %s %q, want error \"… has no data …\"", tr.Name, tr.Outcome, tr.Error)
		}
	}
}

// hasUndefinable reports whether a family has a figure that is not a
// count and not always defined.
func hasUndefinable(f *schema.Family) bool {
	var in func(attrs []schema.Attr, subs []*schema.Sub) bool
	in = func(attrs []schema.Attr, subs []*schema.Sub) bool {
		for _, a := range attrs {
			if a.Kind != schema.MetricCount && !slices.Contains(alwaysDefined, a.Name) {
				return true
			}
		}
		for _, s := range subs {
			shapes := []*schema.Shape{s.Shape}
			for _, v := range s.Variants {
				shapes = append(shapes, v)
			}
			for _, sh := range shapes {
				if sh != nil && in(sh.Attrs, sh.Subs) {
					return true
				}
			}
		}
		return false
	}
	return in(f.Attrs, f.Subs)
}
