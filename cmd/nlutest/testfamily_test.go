package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// A metric family added by tests only, as a new family is added: this file
// and the one line in testExtensions (extensions_test.go). It measures the inputs: how many
// cases, their mean length in characters, and the share of long ones.

var charsShape = &schema.Family{Name: "chars", Subs: []*schema.Sub{{
	Name: "chars", Doc: "input length in characters (test-only family)",
	Shape: &schema.Shape{Attrs: []schema.Attr{
		{Name: "cases", Kind: schema.MetricCount, Doc: "cases measured"},
		{Name: "mean", Kind: schema.MetricNumber, Doc: "mean input length in characters"},
		{Name: "long_share", Kind: schema.MetricRatio, Doc: "inputs over 10 characters / cases"},
	}},
	Props: []string{"mean", "long_share"},
}}}

type charsFamily struct{}

func (charsFamily) Shape() *schema.Family { return charsShape }

// NewAcc applies the family to every suite: it is only in the set of
// testExtensions, so the other tests of this package never see it.
func (charsFamily) NewAcc(*spec.Suite) assert.Acc { return &charsAcc{} }

type charsAcc struct{ cases, runes, long int }

type charsValue struct {
	Cases     int          `json:"cases"`
	Mean      float64      `json:"mean"`
	LongShare schema.Ratio `json:"long_share"`
}

func (a *charsAcc) Add(o *assert.Observation) {
	n := utf8.RuneCountInString(o.Result.Text)
	a.cases++
	a.runes += n
	if n > 10 {
		a.long++
	}
}

func (a *charsAcc) Merge(o assert.Acc) {
	b := o.(*charsAcc)
	a.cases, a.runes, a.long = a.cases+b.cases, a.runes+b.runes, a.long+b.long
}

func (a *charsAcc) Fill(n *schema.Node) {
	if a.cases == 0 {
		return
	}
	assert.SetFamily(n, "chars", &charsValue{Cases: a.cases, Mean: float64(a.runes) / float64(a.cases), LongShare: schema.R(a.long, a.cases)})
}

// The test-only family works end to end: run fills it in every node of the
// report, a threshold reads it (and validate checks its names), eval
// recomputes it from the saved results through forked collectors, and
// --list-metrics and JUnit properties show it.
func TestRegisteredFamilyEndToEnd(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "suites", "quickstart", "quickstart.nlutest.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	suite := string(src) + `
threshold "inputs" {
  condition = metrics.chars.mean >= 5 && metrics.split.smoke.chars.long_share > 0
}
`
	dir := writeSuite(t, suite)
	run := filepath.Join(dir, "run")
	junit := filepath.Join(dir, "junit.xml")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "run", dir, "--out", run, "--report-junit", junit)
	if code != ExitPass {
		t.Fatalf("run exit %d\n%s\n%s", code, out, errs)
	}
	rep := loadReport(t, run)
	m := rep.Metrics
	var want charsAcc
	for _, c := range rep.Cases {
		want.Add(&assert.Observation{Result: &schema.Result{Case: schema.Case{Text: c.Text}}})
	}
	if len(rep.Cases) != m.Total || m.Total == 0 {
		t.Fatalf("the report lists %d of %d cases", len(rep.Cases), m.Total)
	}
	// read back from report.json, the family's value is raw JSON; the
	// descriptor reads it all the same
	tree, err := testExtensions().Tree()
	if err != nil {
		t.Fatal(err)
	}
	val, idx := assert.MetricsValue(tree, m)
	mean, _ := val.GetAttr("chars").GetAttr("mean").AsBigFloat().Float64()
	if wantMean := float64(want.runes) / float64(want.cases); mean != wantMean {
		t.Errorf("metrics.chars.mean = %g, want %g", mean, wantMean)
	}
	if r := idx["metrics.chars.long_share"]; r != schema.R(want.long, want.cases) {
		t.Errorf("metrics.chars.long_share = %v, want %d/%d", r, want.long, want.cases)
	}
	if n, ok := m.Template["订机票"].Families["chars"]; !ok || !strings.Contains(fmt.Sprintf("%s", n), `"cases": `) {
		t.Errorf("the template node has no chars: %v", m.Template["订机票"].Families)
	}
	var th *schema.ThresholdResult
	for i := range rep.Thresholds {
		if rep.Thresholds[i].Name == "inputs" {
			th = &rep.Thresholds[i]
		}
	}
	if th == nil || th.Outcome != schema.Pass || len(th.Observed) != 2 || th.Observed[1].Name != `metrics.split.smoke.chars.long_share` || th.Observed[1].Den == nil {
		t.Errorf("threshold on the family: %+v", th)
	}
	xml, _ := os.ReadFile(junit)
	for _, p := range []string{`<property name="metrics.chars.mean" value="`, `<property name="metrics.chars.long_share" value="`} {
		if !strings.Contains(string(xml), p) {
			t.Errorf("JUnit lacks %s", p)
		}
	}

	// eval recomputes the same figures from the saved results.
	cp := filepath.Join(t.TempDir(), "copy")
	copyRunDir(t, run, cp)
	code, list, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", cp, "--list-metrics")
	if code != ExitPass {
		t.Fatalf("eval exit %d\n%s", code, errs)
	}
	for _, re := range []string{`(?m)^metrics\.chars\.cases = ` + strconv.Itoa(want.cases) + `$`, `(?m)^metrics\.chars\.long_share = [0-9.]+ \(` + strconv.Itoa(want.long) + `/` + strconv.Itoa(want.cases) + `\)$`,
		`(?m)^metrics\.template\.订机票\.chars\.mean = `, `(?m)^metrics\.split\.smoke\.chars\.cases = `} {
		if !regexp.MustCompile(re).MatchString(list) {
			t.Errorf("--list-metrics lacks %s:\n%s", re, list)
		}
	}

	// A threshold the family's figures miss fails the run; a misspelt name
	// is caught by validate with a suggestion.
	failing := strings.Replace(suite, "metrics.chars.mean >= 5", "metrics.chars.mean >= 500", 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", cp); code != ExitFail {
		t.Errorf("eval with a missed threshold on chars: exit %d, want %d\n%s", code, ExitFail, errs)
	}
	typo := strings.Replace(suite, "metrics.chars.mean", "metrics.chars.means", 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLIWith(t, testExtensions(), dir, nil, "validate", dir)
	if code != ExitInvalid || !strings.Contains(errs, `chars has no "means". Did you mean "mean"?`) {
		t.Errorf("validate of metrics.chars.means: exit %d\n%s", code, errs)
	}
}
