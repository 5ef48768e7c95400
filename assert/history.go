package assert

import (
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/drift"
	"github.com/zclconf/go-cty/cty"
)

// HistoryOptions set ApplyHistory.
type HistoryOptions struct {
	// Past returns the earlier runs of the report's suite and target
	// that hold the metric at steps (spec.TraversalSteps), oldest first,
	// numbered, without the current run. Nil: no history file was given.
	Past func(steps []string) []schema.HistoryPoint
	// Label and Commit name the current run in the series.
	Label, Commit string
	// TrendRuns is how many earlier runs a trend shows at least (a drift
	// gate's window may ask for more); 0 selects 20.
	TrendRuns int
}

// DefaultTrendRuns is how many earlier runs a threshold's trend shows
// unless HistoryOptions.TrendRuns says otherwise.
const DefaultTrendRuns = 20

// ApplyHistory adds the metrics' history to each threshold of rep that
// has a history block (the drift gate) or, when a history file was given
// (o.Past), to every threshold: the series of each metric it reads, the
// Theil–Sen slope, the changes of level and the drift gate's answer. A
// driftOf gate that fails fails its threshold and, for severity error, the
// verdict, with the sentence that names the run where the metric
// changed. Without a history file a drift gate answers "no data", which
// the reports show and the verdict does not count as a pass or a fail.
func ApplyHistory(s *spec.Suite, rep *schema.Report, o HistoryOptions) {
	if o.TrendRuns <= 0 {
		o.TrendRuns = DefaultTrendRuns
	}
	mv, _ := MetricsValue(s.Tree, rep.Metrics)
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"metrics": mv}}
	for i, th := range s.Thresholds {
		if i >= len(rep.Thresholds) || (th.History == nil && o.Past == nil) {
			continue
		}
		tr := &rep.Thresholds[i]
		for _, w := range watched(th) {
			h := metricHistory(s, rep, ctx, th.History, w, o)
			tr.History = append(tr.History, h)
			if h.Drift == nil || h.Drift.Outcome != schema.DriftFail {
				continue
			}
			tr.Outcome = schema.Fail
			if tr.Severity == "error" {
				rep.Verdict.Outcome = schema.Fail
				rep.Verdict.Reasons = append(rep.Verdict.Reasons, fmt.Sprintf("threshold %q: drift: %s", tr.Name, h.Drift.Text))
			}
		}
	}
}

// watched are the metrics a threshold's history covers: its drift gate's,
// else those its condition reads (in the direction it compares them, or
// higher).
func watched(th *spec.Threshold) []drift.Metric {
	if th.History != nil {
		return th.History.Watch
	}
	var out []drift.Metric
	for _, tr := range spec.ConditionMetrics(th.Condition) {
		out = append(out, drift.Metric{Traversal: tr, Better: "higher"})
	}
	return out
}

// metricHistory is one metric's series, slope, changes and drift answer.
func metricHistory(s *spec.Suite, rep *schema.Report, ctx *hcl.EvalContext, gate *drift.Gate, w drift.Metric, o HistoryOptions) schema.MetricHistory {
	name := conditionAddress(s.Tree, w.Traversal)
	h := schema.MetricHistory{Metric: name}
	steps, ok := spec.TraversalSteps(w.Traversal)
	var past []schema.HistoryPoint
	if ok && o.Past != nil {
		past = o.Past(steps)
	}
	show := o.TrendRuns
	if gate != nil {
		show = max(show, gate.Window)
	}
	past = past[max(0, len(past)-show):]
	cur := currentPoint(rep, ctx, w.Traversal, o)
	if len(past) > 0 {
		cur.Run = past[len(past)-1].Run + 1
	} else {
		cur.Run = 1
	}
	h.Points = append(append(h.Points, past...), cur)
	h.Slope, h.Changes = trendOf(h.Points, rep, name)
	if gate != nil {
		h.Drift = driftOf(rep, gate, w, &h, o.Past != nil)
	}
	return h
}

// currentPoint is the report's own value of the metric, with its
// interval.
func currentPoint(rep *schema.Report, ctx *hcl.EvalContext, tr hcl.Traversal, o HistoryOptions) schema.HistoryPoint {
	p := schema.HistoryPoint{ID: rep.Run.ID, Label: o.Label, Commit: o.Commit, Time: rep.Run.Finished, Current: true}
	if rep.Intervals != nil {
		p.Confidence = rep.Intervals.Confidence
	}
	p.Value = numberAt(tr, ctx)
	if last, ok := tr[len(tr)-1].(hcl.TraverseAttr); ok {
		bound := func(b string) *float64 {
			btr := append(tr[:len(tr)-1:len(tr)-1], hcl.TraverseAttr{Name: spec.IntervalAttr(last.Name, b)})
			return numberAt(btr, ctx)
		}
		p.CILow, p.CIHigh = bound(spec.CILow), bound(spec.CIHigh)
	}
	return p
}

// numberAt is the number tr reads in ctx, nil without one.
func numberAt(tr hcl.Traversal, ctx *hcl.EvalContext) *float64 {
	v, diags := tr.TraverseAbs(ctx)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return nil
	}
	f, _ := v.AsBigFloat().Float64()
	return &f
}

// inferPoints are the points with a value, as infer reads them (the
// standard error from each interval), and their indexes in pts.
func inferPoints(pts []schema.HistoryPoint) ([]infer.Point, []int) {
	var out []infer.Point
	var idx []int
	for i, p := range pts {
		if p.Value == nil {
			continue
		}
		ip := infer.Point{Value: *p.Value}
		if p.CILow != nil && p.CIHigh != nil {
			ip.SE = infer.SEFromInterval(*p.CILow, *p.CIHigh, p.Confidence)
		}
		out = append(out, ip)
		idx = append(idx, i)
	}
	return out, idx
}

// trendOf is Trend of the points with the report's interval settings.
func trendOf(pts []schema.HistoryPoint, rep *schema.Report, name string) (*schema.HistorySlope, []schema.HistoryChange) {
	var seed uint64
	conf := 0.0
	if rep.Intervals != nil {
		seed, conf = rep.Intervals.Seed, rep.Intervals.Confidence
	}
	return Trend(pts, seed, conf, historyAddress(rep, name))
}

// Trend is a series' Theil–Sen slope per run (x the run numbers) with
// Sen's interval at conf, and its changes of level (infer.ChangePoints,
// Gaussian null, alpha 0.05, the standard errors from the points'
// intervals, the stream from seed and address); nothing with fewer than
// 3 values.
func Trend(pts []schema.HistoryPoint, seed uint64, conf float64, address string) (*schema.HistorySlope, []schema.HistoryChange) {
	ips, idx := inferPoints(pts)
	if len(ips) < 3 {
		return nil, nil
	}
	var changes []schema.HistoryChange
	for _, c := range infer.ChangePoints(ips, infer.ChangeOptions{Null: infer.GaussianNull, Seed: seed, Address: address}) {
		changes = append(changes, schema.HistoryChange{Index: idx[c.Index], Before: c.Before, After: c.After, P: c.P})
	}
	return slopeOf(pts, conf), changes
}

// slopeOf is the Theil–Sen slope per run of the points' values (x the
// run numbers) with Sen's interval at conf; nil with fewer than 3 values.
func slopeOf(pts []schema.HistoryPoint, conf float64) *schema.HistorySlope {
	var x, y []float64
	for _, p := range pts {
		if p.Value != nil {
			x, y = append(x, float64(p.Run)), append(y, *p.Value)
		}
	}
	if len(y) < 3 {
		return nil
	}
	fit, ok := infer.TheilSen(x, y, conf)
	if !ok {
		return nil
	}
	return &schema.HistorySlope{Runs: len(y), Slope: fit.Slope, CILow: fit.Lo, CIHigh: fit.Hi}
}

// historyAddress names a metric's series in its suite and target: the
// address its change tests' streams are drawn from.
func historyAddress(rep *schema.Report, name string) string {
	return "history/" + rep.Suite.Name + "/" + rep.Run.Target + "/" + name
}

// driftOf is the drift gate's answer for metric w over the history h (its
// last point the current run); hasFile says a history file was given.
func driftOf(rep *schema.Report, gate *drift.Gate, w drift.Metric, h *schema.MetricHistory, hasFile bool) *schema.Drift {
	d := &schema.Drift{Window: gate.Window, MaxDrop: gate.MaxDrop, Alpha: gate.Alpha, Better: w.Better}
	short := strings.TrimPrefix(h.Metric, "metrics.")
	n := len(h.Points) - 1
	cur := h.Points[n]
	ips, idx := inferPoints(h.Points[:n])
	ips, idx = ips[max(0, len(ips)-gate.Window):], idx[max(0, len(idx)-gate.Window):]
	switch {
	case !hasFile:
		return noData(d, "no history file: run or eval with --history FILE to compare this run with the earlier ones")
	case cur.Value == nil:
		return noData(d, fmt.Sprintf("this run has no value of %s", h.Metric))
	case len(ips) < gate.MinRuns:
		return noData(d, fmt.Sprintf("the history holds %d earlier run%s with %s; the gate needs %d (min_runs)", len(ips), plural(len(ips)), h.Metric, gate.MinRuns))
	}
	d.From, d.To = idx[0], idx[len(idx)-1]
	curIP, _ := inferPoints([]schema.HistoryPoint{cur})
	dir := infer.HigherIsBetter
	if w.Better == "lower" {
		dir = infer.LowerIsBetter
	}
	var seed uint64
	if rep.Intervals != nil {
		seed = rep.Intervals.Seed
	}
	r, ok := infer.Drift(ips, curIP[0], infer.DriftOptions{MaxDrop: gate.MaxDrop, Alpha: gate.Alpha, Direction: dir, Seed: seed, Address: historyAddress(rep, h.Metric)})
	if !ok {
		return noData(d, fmt.Sprintf("the earlier values of %s cannot be compared", h.Metric))
	}
	d.Level, d.Drop, d.Limit, d.P = ptr(r.Level), ptr(r.Drop), ptr(r.Limit), ptr(r.P)
	if r.Change != nil {
		d.Change = &schema.HistoryChange{Index: pointIndex(idx, n, r.Change.Index), Before: r.Change.Before, After: r.Change.After, P: r.Change.P}
	}
	d.Outcome, d.Text = schema.DriftPass, passText(short, h, d, r)
	if r.Fail {
		d.Outcome, d.Text = schema.DriftFail, failText(short, h, d, r, idx)
	}
	return d
}

func noData(d *schema.Drift, why string) *schema.Drift {
	d.Outcome, d.Text = schema.DriftNoData, "no data: "+why
	return d
}

// pointIndex maps an index into the window followed by the current run
// to an index into the history's points.
func pointIndex(idx []int, current, i int) int {
	if i >= len(idx) {
		return current
	}
	return idx[i]
}

func ptr(f float64) *float64 { return &f }

// failText says how the metric fell: from the level before the change to
// the level from the run where it changed on (the change test), else
// from the window's level to the current value (the level test).
func failText(short string, h *schema.MetricHistory, d *schema.Drift, r infer.DriftResult, idx []int) string {
	verb := "fell"
	if d.Better == "lower" {
		verb = "rose"
	}
	n := len(h.Points) - 1
	cur := h.Points[n]
	if r.ChangeFail {
		at := h.Points[d.Change.Index]
		from := h.Points[pointIndex(idx, n, r.ChangeFrom)]
		before := h.Points[max(d.Change.Index-1, 0)]
		s := fmt.Sprintf("%s %s from %s (%s) to %s at %s, the run where it changed", short, verb, fmtLevel(r.Change.Before), runSpan(from, before), fmtLevel(r.Change.After), runName(at))
		if at.Run != cur.Run {
			s += fmt.Sprintf(", and has stayed there to run %d", cur.Run)
		}
		return s + fmt.Sprintf(": more than max_drop %g beyond the runs' noise (change p = %.3g)", d.MaxDrop, r.Change.P)
	}
	return fmt.Sprintf("%s %s from %s (%s) to %s at %s: %s worse, beyond the %s that max_drop %g and the runs' noise allow (p = %.3g)",
		short, verb, fmtLevel(r.Level), runSpan(h.Points[d.From], h.Points[d.To]), fmtLevel(*cur.Value), runName(cur),
		fmtLevel(r.Drop), fmtLevel(r.Limit), d.MaxDrop, r.P)
}

// passText says the gate passed, with the figures it compared.
func passText(short string, h *schema.MetricHistory, d *schema.Drift, r infer.DriftResult) string {
	cur := h.Points[len(h.Points)-1]
	return fmt.Sprintf("no drift: %s %s at run %d against %s over %s (%s worse; the gate fails beyond %s)",
		short, fmtLevel(*cur.Value), cur.Run, fmtLevel(r.Level), runSpan(h.Points[d.From], h.Points[d.To]), fmtLevel(math.Max(r.Drop, 0)), fmtLevel(r.Limit))
}

// runSpan names the runs from a to b: "runs 3–10", or "run 3".
func runSpan(a, b schema.HistoryPoint) string {
	if a.Run == b.Run {
		return fmt.Sprintf("run %d", a.Run)
	}
	return fmt.Sprintf("runs %d–%d", a.Run, b.Run)
}

// runName names a run: "run 11 (label v1.11, commit 1a2b3c4d)".
func runName(p schema.HistoryPoint) string {
	var parts []string
	if p.Label != "" {
		parts = append(parts, "label "+p.Label)
	}
	if p.Commit != "" {
		c := p.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+c)
	}
	if len(parts) == 0 && !p.Time.IsZero() {
		parts = append(parts, p.Time.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("run %d", p.Run)
	}
	return fmt.Sprintf("run %d (%s)", p.Run, strings.Join(parts, ", "))
}

// fmtLevel writes a level as the reports write ratios, with three
// decimals (four significant digits from 10 on: latencies).
func fmtLevel(f float64) string {
	if math.Abs(f) >= 10 {
		return fmt.Sprintf("%.4g", f)
	}
	return fmt.Sprintf("%.3f", f)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
