package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/compare"
	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// pairedRun evaluates the run directory run against the suite at dir
// recording its units for p, as diff does.
func pairedRun(t *testing.T, dir, run string, p *assert.Pairing) (*spec.Suite, *schema.Report, *assert.Units) {
	t.Helper()
	x := extensions.Default()
	s, diags := spec.Load(dir, x.LoadOptions(spec.Options{}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	meta, err := pipeline.ReadMeta(run)
	if err != nil {
		t.Fatal(err)
	}
	col, rep, err := pipeline.Evaluate(s, []string{run}, meta, pipeline.EvalOptions{Families: x.Families, Pairing: p})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep, col.Units()
}

// TestPairedFiguresMatchReport: every figure a paired comparison tests is
// computed from the units' contributions, not from the report, so each
// family's contribution must give, over a run's units, exactly the figure
// the family reports. Each example suite is run (with --repeat 2 for
// pass@1) and compared with itself: every tested figure's baseline is the
// report's value, the difference 0, p 1 and the verdict no detectable
// difference; the families each suite exercises are all tested.
func TestPairedFiguresMatchReport(t *testing.T) {
	for _, c := range []struct {
		suite  string
		args   []string
		expect []string // figures that must be among those tested
	}{
		{"quickstart", nil, []string{"metrics.accuracy", "metrics.error_rate", "metrics.label.intent.macro_f1", "metrics.label.intent.accuracy"}},
		{"iao-hotel", nil, []string{"metrics.accuracy"}},
		{"booking-dialogue", []string{"--repeat", "2"}, []string{"metrics.dialogue.task_completion", "metrics.dialogue.turn_accuracy", "metrics.repeat.pass_at_1"}},
		{"memory", nil, []string{"metrics.memory.score"}},
		{"agent-tools", nil, []string{"metrics.scenario.success_rate", "metrics.dialogue.task_completion"}},
		{"dataset-qa", nil, []string{"metrics.text.exact_match", "metrics.text.f1", "metrics.text.rougeL", "metrics.text.meteor"}},
	} {
		t.Run(c.suite, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, filepath.Join("..", "..", "suites", c.suite), dir)
			run := filepath.Join(dir, "run")
			if code, out, errs := runCLI(t, dir, nil, append([]string{"run", dir, "--out", run, "--quiet"}, c.args...)...); code != ExitPass && code != ExitFail {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
			}
			p := assert.NewPairing(nil)
			s, rep, units := pairedRun(t, dir, run, p)
			r := compare.Run{Metrics: s.Tree.ReadMetrics(rep.Metrics), Units: units}
			sig := compare.Runs(r, r, compare.Options{Stats: assert.InferOptions(assert.StatisticsOf(s))})
			want := map[string]*schema.Metric{}
			eachMetric(s.Tree, rep.Metrics, func(_ string, _ *float64, _ string, m *schema.Metric) { want[m.Addr] = m })
			var tested []string
			for _, m := range sig.Metrics {
				if m.Test == schema.TestNone {
					continue
				}
				tested = append(tested, m.Metric)
				w := want[m.Metric]
				switch {
				case w == nil:
					t.Errorf("%s: tested, but the report has no such metric", m.Metric)
				case (w.Value == nil) != (m.Baseline == nil) || w.Value != nil && math.Abs(*w.Value-*m.Baseline) > 1e-12:
					t.Errorf("%s: the units give %v, the report %v", m.Metric, fmtNum(m.Baseline), fmtNum(w.Value))
				case m.Diff != nil && *m.Diff != 0 || m.Verdict != schema.VerdictNoDifference || m.P == nil || *m.P != 1:
					t.Errorf("%s against itself: Δ %v, p %v, %s", m.Metric, fmtNum(m.Diff), fmtNum(m.P), m.Verdict)
				}
			}
			t.Logf("%d figures tested: %s", len(tested), strings.Join(tested, ", "))
			for _, e := range c.expect {
				if !slices.Contains(tested, e) {
					t.Errorf("%s is not tested; tested: %s", e, strings.Join(tested, ", "))
				}
			}
		})
	}
}
