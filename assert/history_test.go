package assert

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
)

const historySuite = `suite "漂移" { schema = "rasa" }
template "查天气" {
  text   = "北京天气"
  expect = { "$.intent.name" = "weather" }
}
threshold "准确率" {
  condition = metrics.accuracy.ci_low >= 0.5
  history {
    window   = 10
    max_drop = 0.02
  }
}
threshold "错误率" {
  condition = metrics.error_rate <= 0.5
  severity  = "warn"
}
`

var hist0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// accuracyPoint is run i's accuracy of a series with its Wilson interval
// over n cases.
func accuracyPoint(i int, v float64, n int) schema.HistoryPoint {
	lo, hi, _ := infer.Wilson(v*float64(n), float64(n), 0.95)
	return schema.HistoryPoint{Run: i + 1, ID: "r" + strconv.Itoa(i+1), Label: "v1." + strconv.Itoa(i+1),
		Time: hist0.Add(time.Duration(i) * time.Hour), Value: &v, CILow: &lo, CIHigh: &hi, Confidence: 0.95}
}

// historyReport is a report of the suite whose accuracy is v over n cases.
func historyReport(v float64, n int) *schema.Report {
	m := &schema.Metrics{}
	m.Total, m.Passed = n, int(math.Round(v*float64(n)))
	m.Accuracy = schema.R(m.Passed, n)
	lo, hi, _ := infer.Wilson(float64(m.Passed), float64(n), 0.95)
	m.Accuracy.SetCI(lo, hi)
	m.ErrorRate = schema.R(0, n)
	return &schema.Report{
		Suite:      schema.SuiteInfo{Name: "漂移"},
		Run:        schema.RunInfo{ID: "current", Target: "生产", Finished: hist0.Add(100 * time.Hour)},
		Intervals:  &schema.Intervals{Confidence: 0.95, Resamples: 1000, Seed: infer.DefaultSeed},
		Metrics:    m,
		Thresholds: []schema.ThresholdResult{{Name: "准确率", Severity: "error", Outcome: schema.Pass}, {Name: "错误率", Severity: "warn", Outcome: schema.Pass}},
		Verdict:    schema.Verdict{Outcome: schema.Pass, ByThresholds: true},
	}
}

// TestDriftGateNamesTheRun: eleven earlier runs at accuracy 0.91 over
// 2,000 cases each, the last three of them at 0.86, and a current run at
// 0.86: the drift gate fails, naming run 9 (label v1.9) where accuracy
// fell from its level over the window's runs before it (2–8), the
// verdict fails with that sentence, and the trend's change says the same
// (its Theil–Sen slope, the median of pairwise slopes of a step, is 0,
// with an interval reaching below). The warn threshold without a history block gets
// its series too, and no drift answer.
func TestDriftGateNamesTheRun(t *testing.T) {
	s := loadSuite(t, historySuite)
	var past []schema.HistoryPoint
	for i := range 11 {
		v := 0.91
		if i >= 8 {
			v = 0.86
		}
		past = append(past, accuracyPoint(i, v, 2000))
	}
	rep := historyReport(0.86, 2000)
	ApplyHistory(s, rep, HistoryOptions{Past: func(steps []string) []schema.HistoryPoint {
		if strings.Join(steps, ".") != "accuracy" && strings.Join(steps, ".") != "error_rate" {
			t.Errorf("asked for %v", steps)
		}
		return past
	}, Label: "v1.12", Commit: "0123456789abcdef"})
	th := rep.Thresholds[0]
	if len(th.History) != 1 {
		t.Fatalf("history %+v", th.History)
	}
	h := th.History[0]
	d := h.Drift
	if h.Metric != "metrics.accuracy" || len(h.Points) != 12 || !h.Points[11].Current || h.Points[11].Run != 12 || h.Points[11].Label != "v1.12" {
		t.Fatalf("metric %s, %d points, last %+v", h.Metric, len(h.Points), h.Points[len(h.Points)-1])
	}
	if d == nil || d.Outcome != schema.DriftFail || d.Change == nil || d.Change.Index != 8 || th.Outcome != schema.Fail {
		t.Fatalf("drift %+v, threshold %s", d, th.Outcome)
	}
	want := "accuracy fell from 0.910 (runs 2–8) to 0.860 at run 9 (label v1.9), the run where it changed, and has stayed there to run 12"
	if !strings.HasPrefix(d.Text, want) {
		t.Errorf("text %q\nwant %q…", d.Text, want)
	}
	if rep.Verdict.Outcome != schema.Fail || len(rep.Verdict.Reasons) != 1 || !strings.Contains(rep.Verdict.Reasons[0], `threshold "准确率": drift: `+want) {
		t.Errorf("verdict %+v", rep.Verdict)
	}
	if len(h.Changes) != 1 || h.Changes[0].Index != 8 || h.Slope == nil || h.Slope.Slope > 0 || h.Slope.CILow >= 0 {
		t.Errorf("changes %+v slope %+v", h.Changes, h.Slope)
	}
	warn := rep.Thresholds[1]
	if len(warn.History) != 1 || warn.History[0].Metric != "metrics.error_rate" || warn.History[0].Drift != nil || warn.Outcome != schema.Pass {
		t.Errorf("warn threshold %+v", warn)
	}
}

// TestDriftGateLevelTest: ten earlier runs at 0.91 and a current run at
// 0.85 (over 2,000 cases: an interval of ±0.016) fail the gate, naming
// the window's runs and the current run (the change test, run first, finds
// the drop in the current run too).
func TestDriftGateLevelTest(t *testing.T) {
	s := loadSuite(t, historySuite)
	var past []schema.HistoryPoint
	for i := range 10 {
		past = append(past, accuracyPoint(i, 0.91+0.004*float64(i%3-1), 2000))
	}
	rep := historyReport(0.85, 2000)
	ApplyHistory(s, rep, HistoryOptions{Past: func([]string) []schema.HistoryPoint { return past }, Label: "发布-11"})
	d := rep.Thresholds[0].History[0].Drift
	if d.Outcome != schema.DriftFail || d.From != 0 || d.To != 9 {
		t.Fatalf("drift %+v", d)
	}
	if !strings.HasPrefix(d.Text, "accuracy fell from 0.9") || !strings.Contains(d.Text, "(runs 1–10) to 0.850 at run 11 (label 发布-11)") {
		t.Errorf("text %q", d.Text)
	}
}

// TestDriftGateNoData: without a history file, with too few earlier
// runs, the drift gate answers no data: the threshold keeps the
// condition's outcome and the verdict is unchanged; a flat history
// passes with the figures it compared.
func TestDriftGateNoData(t *testing.T) {
	s := loadSuite(t, historySuite)
	rep := historyReport(0.85, 2000)
	ApplyHistory(s, rep, HistoryOptions{})
	d := rep.Thresholds[0].History[0].Drift
	if d.Outcome != schema.DriftNoData || !strings.Contains(d.Text, "no history file") || rep.Thresholds[0].Outcome != schema.Pass || rep.Verdict.Outcome != schema.Pass {
		t.Errorf("no file: %+v, verdict %+v", d, rep.Verdict)
	}
	if rep.Thresholds[1].History != nil {
		t.Errorf("a threshold without a history block got one without a file: %+v", rep.Thresholds[1].History)
	}
	rep = historyReport(0.85, 2000)
	two := []schema.HistoryPoint{accuracyPoint(0, 0.91, 2000), accuracyPoint(1, 0.91, 2000)}
	ApplyHistory(s, rep, HistoryOptions{Past: func([]string) []schema.HistoryPoint { return two }})
	if d := rep.Thresholds[0].History[0].Drift; d.Outcome != schema.DriftNoData || !strings.Contains(d.Text, "2 earlier runs with metrics.accuracy; the gate needs 3") {
		t.Errorf("two runs: %+v", d)
	}
	var flat []schema.HistoryPoint
	for i := range 12 {
		flat = append(flat, accuracyPoint(i, 0.9+0.003*float64(i%4-2), 2000))
	}
	rep = historyReport(0.9, 2000)
	ApplyHistory(s, rep, HistoryOptions{Past: func([]string) []schema.HistoryPoint { return flat }})
	d = rep.Thresholds[0].History[0].Drift
	if d.Outcome != schema.DriftPass || !strings.HasPrefix(d.Text, "no drift: accuracy 0.900 at run 13 against 0.899") || !strings.Contains(d.Text, "over runs 3–12") || rep.Verdict.Outcome != schema.Pass {
		t.Errorf("flat: %+v", d)
	}
}

// TestTrendSlopes: series with known slopes per run (−0.01, 0, +0.005,
// exact lines) come back with that Theil–Sen slope and an interval
// around it; a noisy series' interval covers its true slope.
func TestTrendSlopes(t *testing.T) {
	for _, slope := range []float64{-0.01, 0, 0.005} {
		var pts []schema.HistoryPoint
		for i := range 12 {
			pts = append(pts, accuracyPoint(i, 0.8+slope*float64(i), 2000))
		}
		got := slopeOf(pts, 0.95)
		if got == nil || math.Abs(got.Slope-slope) > 1e-12 || got.CILow > slope+1e-12 || got.CIHigh < slope-1e-12 || got.Runs != 12 {
			t.Errorf("slope %g: %+v", slope, got)
		}
	}
	s := infer.NewStream(3, "slopes")
	covered := 0
	for range 100 {
		var pts []schema.HistoryPoint
		for i := range 15 {
			pts = append(pts, accuracyPoint(i, 0.8-0.004*float64(i)+0.01*s.Normal(), 2000))
		}
		got := slopeOf(pts, 0.95)
		if got.CILow <= -0.004 && -0.004 <= got.CIHigh {
			covered++
		}
	}
	t.Logf("Sen's 95 %% interval covered the slope −0.004 in %d of 100 noisy series", covered)
	if covered < 88 {
		t.Errorf("covered %d of 100; at least 88 (95 %% less 3 standard deviations)", covered)
	}
}
