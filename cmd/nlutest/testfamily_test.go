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

	"github.com/hashicorp/hcl/v2"
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
// testExtensions, so the other tests of this package never see it. What
// counts as long comes from the suite's chars block (charsSettings).
func (charsFamily) NewAcc(s *spec.Suite) assert.Acc {
	longOver, _ := s.Settings("chars").(int)
	if longOver == 0 {
		longOver = 10 // a suite loaded without the family's settings
	}
	return &charsAcc{longOver: longOver}
}

// Settings makes the family an assert.SettingsFamily: its settings block
// is the family's own, decoded through spec's public Decoder.
func (charsFamily) Settings() spec.SettingsBlock { return charsSettings{} }

// charsSettings is the family's settings block:
//
//	chars {
//	  long_over = 10   # an input longer than this many characters is long
//	}
type charsSettings struct{}

func (charsSettings) Block() string { return "chars" }
func (charsSettings) Default() any  { return 10 }

var charsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "long_over", Required: true}}}

func (charsSettings) Decode(d *spec.Decoder, b *hcl.Block) any {
	c, ok := d.Content(b, charsSchema)
	if !ok {
		return nil
	}
	n := d.Int(c.Attributes, "long_over", 10, 1)
	if n > 1000 {
		d.Errorf(c.Attributes["long_over"].Expr.Range().Ptr(), "Value out of range", "long_over is at most 1000 characters; it is %d.", n)
		return nil
	}
	return n
}

type charsAcc struct{ longOver, cases, runes, long int }

type charsValue struct {
	Cases     int          `json:"cases"`
	Mean      float64      `json:"mean"`
	LongShare schema.Ratio `json:"long_share"`
}

func (a *charsAcc) Add(o *assert.Observation) {
	n := utf8.RuneCountInString(o.Result.Text)
	a.cases++
	a.runes += n
	if n > a.longOver {
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
	suite := quickstartSource(t) + `
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
	want := charsAcc{longOver: 10}
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

// TestFamilySettingsBlock: the test-only family brings its own settings
// block (chars { long_over = N }), decoded by the family through spec's
// public Decoder: the figures follow it, a bad value is refused by
// validate with the file, line and column, a second block is a duplicate,
// and the default set does not know the block.
func TestFamilySettingsBlock(t *testing.T) {
	suite := func(settings string) string {
		return `suite "设置" {}
target "回声" {
  echo { intent = "greet" }
}
fixture "问候" {
  utterances = ["你好", "早上好，今天天气真不错呀"]
}
` + settings
	}
	x := testExtensions()
	for _, c := range []struct {
		settings string
		long     string
	}{
		{"", "0.5 (1/2)"}, // the default: longer than 10 characters
		{"chars {\n  long_over = 1\n}\n", "1 (2/2)"},
		{"chars {\n  long_over = 20\n}\n", "0 (0/2)"},
	} {
		dir := writeSuite(t, suite(c.settings))
		run := filepath.Join(dir, "run")
		if code, out, errs := runCLIWith(t, x, dir, nil, "run", dir, "--out", run); code != ExitPass {
			t.Fatalf("run with %q: exit %d\n%s%s", c.settings, code, out, errs)
		}
		_, list, _ := runCLIWith(t, x, dir, nil, "eval", run, "--list-metrics")
		if want := "metrics.chars.long_share = " + c.long; !strings.Contains(list, want) {
			t.Errorf("with %q: --list-metrics lacks %q:\n%s", c.settings, want, list)
		}
	}
	for _, c := range []struct{ settings, summary, at string }{
		{"chars {\n  long_over = 0\n}\n", "Error: ", "suite.nlutest.hcl:9:15:"},
		{"chars {\n  long_over = 5000\n}\n", "Error: Value out of range", "suite.nlutest.hcl:9:15:"},
		{"chars {\n  long_over = \"长\"\n}\n", "Error: ", "suite.nlutest.hcl:9:15:"},
		{"chars {\n  longer = 3\n}\n", "Error: Unsupported argument", "suite.nlutest.hcl:9:3:"},
		{"chars {\n  long_over = 3\n}\nchars {\n  long_over = 4\n}\n", "Error: Duplicate chars block", "suite.nlutest.hcl:11:1:"},
	} {
		dir := writeSuite(t, suite(c.settings))
		code, _, errs := runCLIWith(t, x, dir, nil, "validate", dir)
		if code != ExitInvalid || !strings.Contains(errs, c.summary) || !strings.Contains(errs, c.at) {
			t.Errorf("validate with %q: exit %d, want %d, %q at %q\n%s", c.settings, code, ExitInvalid, c.summary, c.at, errs)
		}
	}
	dir := writeSuite(t, "suite \"默认\" {}\nchars {\n  long_over = 3\n}\n")
	if code, _, errs := runCLI(t, dir, nil, "validate", dir); code != ExitInvalid || !strings.Contains(errs, "Unsupported block type") {
		t.Errorf("the default set must not know the chars block: exit %d\n%s", code, errs)
	}
}
