package reporters

import (
	"fmt"
	"math"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// trendSVG draws a metric's history (ChartTrend): one point per run,
// oldest first, with its interval as a vertical error bar, the line
// through the values, the current run in black, each change of level as
// a dashed line before the run where it changed, and, for a drift gate,
// its window shaded with the window's level (dashed) and the value below
// which the gate fails (dotted).
func (h *htmlDoc) trendSVG(b *strings.Builder, ch *Chart) {
	m := ch.Trend
	if m == nil || len(m.Points) == 0 {
		return
	}
	const left, top, plotH, plotW = 56, 12, 180, 560
	lo, hi := trendRange(m)
	step := float64(plotW) / float64(max(len(m.Points)-1, 1))
	x := func(i int) float64 { return float64(left) + step*float64(i) }
	y := func(v float64) float64 { return float64(top) + float64(plotH)*(hi-v)/(hi-lo) }
	w, hh := left+plotW+24, top+plotH+34
	fmt.Fprintf(b, "<svg class=\"trend\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	if d := m.Drift; d != nil && d.Level != nil {
		driftLines(b, d, x, y, step, top, plotH)
	}
	for _, v := range []float64{lo, hi} {
		fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/><text x=\"%d\" y=\"%.1f\" class=\"axis\" text-anchor=\"end\">%s</text>\n",
			left, y(v), left+plotW, y(v), left-6, y(v)+4, fmtFixed(v))
	}
	for _, c := range m.Changes {
		cx := x(c.Index) - step/2
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"change\"><title>change of level at %s: %s → %s (p = %.3g)</title></line>\n",
			cx, top, cx, top+plotH, esc(pointName(m.Points[c.Index])), fmtFixed(c.Before), fmtFixed(c.After), c.P)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" class=\"chg\" text-anchor=\"middle\">◆</text>\n", cx, top+8)
	}
	trendPoints(b, m, x, y)
	every := max(1, len(m.Points)/14)
	for i, p := range m.Points {
		if i%every == 0 || p.Current {
			fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%d</text>\n", x(i), top+plotH+16, p.Run)
		}
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">run</text>\n", left+plotW/2, top+plotH+30)
	b.WriteString("</svg>\n")
}

// trendPoints draws the line, the error bars and the points.
func trendPoints(b *strings.Builder, m *schema.MetricHistory, x func(int) float64, y func(float64) float64) {
	var path []string
	for i, p := range m.Points {
		if p.Value != nil {
			cmd := "L"
			if len(path) == 0 {
				cmd = "M"
			}
			path = append(path, fmt.Sprintf("%s%.1f %.1f", cmd, x(i), y(*p.Value)))
		}
	}
	if len(path) > 1 {
		fmt.Fprintf(b, "<path class=\"line\" d=\"%s\"/>\n", strings.Join(path, ""))
	}
	for i, p := range m.Points {
		if p.Value == nil {
			continue
		}
		tip := pointName(p) + ": " + fmtFixed(*p.Value)
		if p.CILow != nil && p.CIHigh != nil {
			tip += " " + fmtInterval(p.CILow, p.CIHigh)
			fmt.Fprintf(b, "<path class=\"ci\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh6M%.1f %.1fh6\"><title>%s</title></path>\n",
				x(i), y(*p.CILow), y(*p.CIHigh), x(i)-3, y(*p.CILow), x(i)-3, y(*p.CIHigh), esc(tip))
		}
		class := "run"
		if p.Current {
			class, tip = "run cur", tip+" (this run)"
		}
		fmt.Fprintf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" class=\"%s\"><title>%s</title></circle>\n", x(i), y(*p.Value), class, esc(tip))
	}
}

// driftLines shades the drift gate's window and draws its level and the
// value beyond which the level test fails.
func driftLines(b *strings.Builder, d *schema.Drift, x func(int) float64, y func(float64) float64, step float64, top, plotH int) {
	x1, x2 := x(d.From)-step/2, x(d.To)+step/2
	fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"window\"><title>the drift gate's window: %d runs</title></rect>\n",
		x1, float64(top), x2-x1, float64(plotH), d.To-d.From+1)
	fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"level\"><title>the window's level %s</title></line>\n",
		x1, y(*d.Level), x2+step, y(*d.Level), fmtFixed(*d.Level))
	if d.Limit != nil {
		bound := *d.Level - *d.Limit
		if d.Better == "lower" {
			bound = *d.Level + *d.Limit
		}
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"limit\"><title>the drift gate fails a run %s %s</title></line>\n",
			x2-step/2, y(bound), x2+step, y(bound), map[bool]string{true: "above", false: "below"}[d.Better == "lower"], fmtFixed(bound))
	}
}

// trendRange is the value range a trend chart spans: its values, their
// intervals and the drift gate's lines, padded by a tenth.
func trendRange(m *schema.MetricHistory) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	add := func(f *float64) {
		if f != nil && !math.IsNaN(*f) && !math.IsInf(*f, 0) {
			lo, hi = math.Min(lo, *f), math.Max(hi, *f)
		}
	}
	for _, p := range m.Points {
		add(p.Value)
		add(p.CILow)
		add(p.CIHigh)
	}
	if d := m.Drift; d != nil && d.Level != nil {
		add(d.Level)
		if d.Limit != nil {
			b := *d.Level - *d.Limit
			if d.Better == "lower" {
				b = *d.Level + *d.Limit
			}
			add(&b)
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	pad := (hi - lo) / 10
	if pad == 0 {
		pad = math.Max(math.Abs(hi)/10, 0.01)
	}
	return lo - pad, hi + pad
}
