package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// A test-only case source kind, added as a new source kind is: this file
// and the one line in testExtensions (extensions_test.go). A fixture block lists utterances
// that share one expect map:
//
//	fixture "问候" {
//	  utterances = ["你好", "再见"]
//	  expect     = { "$.intent.name" = "greet" }
//	}

type fixtureKind struct{}

var fixtureSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "utterances", Required: true}, {Name: "expect"}, {Name: "level"}},
}

func (fixtureKind) Block() string { return "fixture" }

func (fixtureKind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, fixtureSchema)
	if !ok {
		return nil
	}
	f := &fixtureSource{s: d.Suite(), name: b.Labels[0], rng: b.DefRange}
	f.utterances = d.Strings(c.Attributes, "utterances")
	f.info = spec.SourceInfo{Level: d.String(c.Attributes, "level", ""), Slots: []string{}, Reviewed: true}
	if a, ok := c.Attributes["expect"]; ok {
		f.info.Expect = d.Expect(a, nil)
	}
	f.expect = spec.StaticExpectations(f.info.Expect)
	return f
}

type fixtureSource struct {
	s          *spec.Suite
	name       string
	rng        hcl.Range
	utterances []string
	info       spec.SourceInfo
	expect     schema.Expectations
}

func (f *fixtureSource) Name() string           { return f.name }
func (f *fixtureSource) Kind() string           { return "fixture" }
func (f *fixtureSource) DeclRange() hcl.Range   { return f.rng }
func (f *fixtureSource) Info() *spec.SourceInfo { return &f.info }

func (f *fixtureSource) build(c *schema.Case, text string) {
	*c = schema.Case{
		ID: spec.CaseID("fixture\x00"+f.name, map[string]schema.Slot{"": {Value: text}}), Suite: f.s.Name,
		Source: f.name, SourceKind: "fixture", Text: text, Level: f.info.Level, Schema: f.s.SchemaName, Expect: f.expect,
	}
}

func (f *fixtureSource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	for _, u := range f.utterances {
		sc, c := schema.NewSingle()
		f.build(c, u)
		if in, err := g.Admit(c); err != nil || !in {
			if err != nil {
				return err
			}
			continue
		}
		if err := yield(sc.Seal()); err != nil {
			return err
		}
	}
	return nil
}

func (f *fixtureSource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	id, text := saved.ID, saved.Text
	if saved.Case != nil {
		id, text = saved.Case.ID, saved.Case.Text
	}
	for _, u := range f.utterances {
		c := &schema.Case{}
		if f.build(c, u); u == text && c.ID == id {
			return c, f.s.AssignSplits(c) == nil
		}
	}
	return nil, false
}

const fixtureSuite = `
suite "寒暄" {}

target "demo" {
  demo {}
}

split "smoke" { where = case.level == "S1" }

fixture "问候" {
  utterances = ["你好", "您好", "再见"]
  expect     = { "$.intent.name" = "greet" }
  level      = "S1"
}

threshold "问候" { condition = metrics.fixture["问候"].accuracy >= %s }
`

// A case source kind added in one test file works end to end: run, the
// results' source fields, a threshold on its keyed metrics node, eval with
// an edited suite, --list-metrics and JUnit, and validate's name checks.
func TestTestOnlySourceKindEndToEnd(t *testing.T) {
	dir := writeSuite(t, strings.Replace(fixtureSuite, "%s", "0.6", 1))
	run := filepath.Join(dir, "run")
	junit := filepath.Join(dir, "junit.xml")
	jsonReport := filepath.Join(dir, "report.json")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "run", dir, "--out", run, "--report-junit", junit, "--report-json", jsonReport)
	if code != ExitPass {
		t.Fatalf("run: exit %d, want 0 (2 of 3 greetings)\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "fixture 问候") || !strings.Contains(out, "0.667 (2/3)") {
		t.Errorf("the console report has no row for fixture 问候 with its accuracy:\n%s", out)
	}
	if !strings.Contains(errs, "fixture 问候: 3 cases, 2 passed, 1 failed") {
		t.Errorf("no per-source progress line:\n%s", errs)
	}
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var r schema.Result
	if err := r.UnmarshalJSON([]byte(strings.SplitN(string(raw), "\n", 2)[0])); err != nil {
		t.Fatal(err)
	}
	if r.Source != "问候" || r.SourceKind != "fixture" || r.Template != "" || len(r.Split) != 1 {
		t.Errorf("result record: source %q kind %q template %q split %v", r.Source, r.SourceKind, r.Template, r.Split)
	}
	j, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `threshold 问候`) {
		t.Errorf("JUnit lacks the threshold on metrics.fixture:\n%s", j)
	}

	var rep struct {
		Metrics struct {
			Fixture map[string]struct{ Total int } `json:"fixture"`
		} `json:"metrics"`
		Groups []schema.Group `json:"groups"`
	}
	if raw, err := os.ReadFile(jsonReport); err != nil || json.Unmarshal(raw, &rep) != nil {
		t.Fatalf("report.json: %v", err)
	}
	if rep.Metrics.Fixture["问候"].Total != 3 || len(rep.Groups) != 1 || rep.Groups[0].Kind != "fixture" || rep.Groups[0].Name != "问候" {
		t.Errorf("the JSON report's metrics.fixture %+v, groups %+v: want 3 cases of fixture 问候", rep.Metrics.Fixture, rep.Groups)
	}
	// eval --list-metrics lists the fixture node; the threshold, tightened,
	// fails on replay.
	_, list, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run, "--list-metrics")
	for _, want := range []string{`metrics.fixture.问候.accuracy = 0.666667 (2/3)`, `metrics.fixture.问候.total = 3`} {
		if !strings.Contains(list, want) {
			t.Errorf("--list-metrics lacks %q:\n%s%s", want, list, errs)
		}
	}
	tight := strings.Replace(fixtureSuite, "%s", "0.9", 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(tight), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run); code != ExitFail || !strings.Contains(out, "问候") {
		t.Errorf("eval with accuracy >= 0.9: exit %d, want 1\n%s\n%s", code, out, errs)
	}

	// validate knows the fixture's names.
	bad := strings.Replace(tight, `metrics.fixture["问候"]`, `metrics.fixture["问好"]`, 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLIWith(t, testExtensions(), dir, nil, "validate", dir); code != ExitInvalid || !strings.Contains(errs, `no fixture source "问好"`) || !strings.Contains(errs, `Did you mean "问候"?`) {
		t.Errorf("validate of an unknown fixture: exit %d\n%s", code, errs)
	}
}
