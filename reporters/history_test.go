package reporters

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// driftHistory is a 12-run history of accuracy, 0.91 until run 8 and
// 0.86 from run 9 on, labelled 发布-N, with its change and a failing
// drift gate over the last ten earlier runs.
func driftHistory() schema.MetricHistory {
	h := schema.MetricHistory{Metric: "metrics.accuracy"}
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for i := range 12 {
		v := 0.91
		if i >= 8 {
			v = 0.86
		}
		p := schema.HistoryPoint{Run: i + 1, ID: "r" + strconv.Itoa(i+1), Label: "发布-" + strconv.Itoa(i+1), Commit: "c0ffee" + strconv.Itoa(i) + "deadbeef",
			Time: t0.Add(time.Duration(i) * time.Hour), Value: fp(v), CILow: fp(v - 0.012), CIHigh: fp(v + 0.011), Confidence: 0.95, Current: i == 11}
		h.Points = append(h.Points, p)
	}
	h.Slope = &schema.HistorySlope{Runs: 12, Slope: 0, CILow: -0.0071, CIHigh: 0}
	h.Changes = []schema.HistoryChange{{Index: 8, Before: 0.91, After: 0.86, P: 0.0001}}
	h.Drift = &schema.Drift{Outcome: schema.DriftFail, Window: 10, MaxDrop: 0.02, Alpha: 0.05, Better: "higher", From: 1, To: 10,
		Level: fp(0.895), Drop: fp(0.035), Limit: fp(0.071), P: fp(0.2),
		Change: &schema.HistoryChange{Index: 8, Before: 0.91, After: 0.86, P: 0.0001},
		Text:   "accuracy fell from 0.910 (runs 2–8) to 0.860 at run 9 (label 发布-9, commit c0ffee8deadb), the run where it changed, and has stayed there to run 12: more than max_drop 0.02 beyond the runs' noise (change p = 0.0001)"}
	return h
}

// driftReport is iaoPass whose accuracy threshold's drift gate failed,
// and whose latency threshold has a history without a gate.
func driftReport() *schema.Report {
	r := iaoPass()
	h := driftHistory()
	r.Thresholds[0].History = []schema.MetricHistory{h}
	r.Thresholds[0].Outcome = schema.Fail
	lat := schema.MetricHistory{Metric: "metrics.latency.p95_ms"}
	for i, v := range []float64{230, 221, 212.6} {
		lat.Points = append(lat.Points, schema.HistoryPoint{Run: i + 10, ID: "r", Time: h.Points[i+9].Time, Value: fp(v), Current: i == 2})
	}
	lat.Slope = &schema.HistorySlope{Runs: 3, Slope: -8.7, CILow: -9, CIHigh: -8.4}
	r.Thresholds[2].History = []schema.MetricHistory{lat}
	r.Verdict = schema.Verdict{Outcome: schema.Fail, ByThresholds: true, Reasons: []string{`threshold "总体准确率": drift: ` + h.Drift.Text}}
	return r
}

// TestDriftInEveryFormat: a failing drift gate's sentence is in the
// console, Markdown, HTML and JUnit reports, the threshold fails, and the
// HTML report draws both trends with the change marked and the gate's
// window, level and limit.
func TestDriftInEveryFormat(t *testing.T) {
	r := driftReport()
	want := "drift: accuracy fell from 0.910 (runs 2–8) to 0.860 at run 9 (label 发布-9, commit c0ffee8deadb), the run where it changed"
	for name, render := range map[string]func(*bytes.Buffer) error{
		"console":  func(b *bytes.Buffer) error { return Console(b, r, Options{}) },
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, r, Options{}) },
		"html":     func(b *bytes.Buffer) error { return HTML(b, r, Options{}) },
		"junit":    func(b *bytes.Buffer) error { return JUnit(b, r, Options{}) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s lacks the drift sentence", name)
		}
		golden(t, "drift."+map[string]string{"console": "console.txt", "markdown": "md", "html": "html", "junit": "junit.xml"}[name], b.Bytes())
	}
	var b bytes.Buffer
	_ = HTML(&b, r, Options{})
	page := b.String()
	for _, s := range []string{`<svg class="trend"`, `class="change"`, `class="window"`, `class="level"`, `class="limit"`, `class="run cur"`, "Trend of metrics.latency.p95_ms"} {
		if !strings.Contains(page, s) {
			t.Errorf("the HTML report lacks %s", s)
		}
	}
	if n := strings.Count(page, `<svg class="trend"`); n != 2 {
		t.Errorf("%d trend charts; want 2", n)
	}
}

// TestHistoryView: history show's layout, with Chinese labels, in the
// console and Markdown.
func TestHistoryView(t *testing.T) {
	h := driftHistory()
	h.Drift = nil
	s := []HistorySeries{{Suite: "出行助手", Target: "线上", Runs: 12, Metrics: []schema.MetricHistory{h}, Gates: map[string][]string{"metrics.accuracy": {"准确率"}}}}
	var c, m bytes.Buffer
	if err := ConsoleView(&c, HistoryView(".nlutest/history.db", s), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := MarkdownView(&m, HistoryView(".nlutest/history.db", s), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{c.String(), m.String()} {
		for _, want := range []string{"出行助手 · 线上", "metrics.accuracy", "发布-12", "change of level at run 9 (发布-9, c0ffee8deadb, 2026-12-01 16:00): 0.910 → 0.860", "slope over the last 12 runs: 0 per run "} {
			if !strings.Contains(out, want) {
				t.Errorf("lacks %q:\n%s", want, out)
			}
		}
	}
	golden(t, "history.console.txt", c.Bytes())
	golden(t, "history.md", m.Bytes())
}
