package reporters

import (
	"fmt"
	"math"
	"strings"

	"github.com/mattn/go-runewidth"
)

// The HTML report's charts are hand-written SVG: four chart shapes (a
// heat map, horizontal bars, a bar tree, vertical grouped bars) need a
// few hundred lines, while the Go chart libraries either draw raster
// images or load their JavaScript from a CDN, which a report opened
// offline from a CI artifact cannot do.

// seriesColors colour a chart's series in order.
var seriesColors = []string{"#0969da", "#1a7f37", "#bf8700", "#cf222e", "#8250df", "#57606a"}

// svgFont is the font size of chart text in px; pxWidth estimates text
// widths from it (CJK characters count double).
const svgFont = 12

var svgWidth = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

func pxWidth(s string) int { return svgWidth.StringWidth(s) * svgFont * 6 / 10 }

// svgLabel cuts a label to at most px pixels wide.
func svgLabel(s string, px int) string {
	s = oneLine(s)
	if pxWidth(s) <= px {
		return s
	}
	return svgWidth.Truncate(s, px*10/(svgFont*6), "…")
}

func (h *htmlDoc) chart(b *strings.Builder, ch *Chart) {
	h.charts++
	title := ch.Title
	if ch.Name != "" {
		title += " · " + ch.Name
	}
	fmt.Fprintf(b, "<figure class=\"chart %s\">\n<figcaption>%s</figcaption>\n", esc(string(ch.Kind)), esc(oneLine(title)))
	switch ch.Kind {
	case ChartConfusion:
		h.confusionSVG(b, ch)
	case ChartBars:
		h.barsSVG(b, ch)
	case ChartHistogram, ChartDistribution:
		h.columnsSVG(b, ch)
	case ChartReliability:
		h.reliabilitySVG(b, ch)
	case ChartROC:
		h.rocSVG(b, ch)
	case ChartTrend:
		h.trendSVG(b, ch)
	}
	b.WriteString("</figure>\n")
}

// fmtChartValue prints a chart value in its unit.
func fmtChartValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case unit == "ratio":
		return fmtFixed(v)
	case unit == "ms":
		return fmtMS(v) + " ms"
	case unit == "cases":
		return fmtNum(math.Round(v))
	}
	return fmtNum(v)
}

// confusionSVG draws a confusion matrix as a heat map: rows expected,
// columns predicted, each cell shaded by its share of the row (green on
// the diagonal, red off it), counts written in cells large enough.
func (h *htmlDoc) confusionSVG(b *strings.Builder, ch *Chart) {
	m := ch.Matrix
	if m == nil || len(m.Labels) == 0 {
		return
	}
	n := len(m.Labels)
	if n > htmlMaxConfusion {
		fmt.Fprintf(b, "<p class=\"more\">%d labels, more than %d: the JSON report has the matrix.</p>\n", n, htmlMaxConfusion)
		return
	}
	cell := max(14, min(40, 560/n))
	lw := 0
	for _, l := range m.Labels {
		lw = max(lw, pxWidth(l))
	}
	lw = min(lw, 160) + 8
	left, top := lw+16, lw*7/10+24
	w, hh := left+n*cell+8, top+n*cell+8
	fmt.Fprintf(b, "<svg class=\"heat\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"12\" class=\"axis\">predicted →</text>\n", left)
	fmt.Fprintf(b, "<text x=\"12\" y=\"%d\" class=\"axis\" transform=\"rotate(-90 12 %d)\" text-anchor=\"end\">← expected</text>\n", top, top)
	for j, l := range m.Labels {
		x, y := left+j*cell+cell/2, top-6
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-45 %d %d)\">%s</text>\n", x, y, x, y, esc(svgLabel(l, lw)))
	}
	for i, l := range m.Labels {
		row := 0
		for j := range m.Labels {
			row += m.count(i, j)
		}
		y := top + i*cell
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left-6, y+cell/2+4, esc(svgLabel(l, lw)))
		for j, p := range m.Labels {
			c := m.count(i, j)
			share := 0.0
			if row > 0 {
				share = float64(c) / float64(row)
			}
			fill := "26,127,55"
			if i != j {
				fill = "207,34,46"
			}
			alpha := 0.04
			if c > 0 {
				alpha = 0.15 + 0.85*share
			}
			x := left + j*cell
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgba(%s,%.2f)\"><title>expected %s, predicted %s: %d of %d</title></rect>\n",
				x, y, cell-1, cell-1, fill, alpha, esc(oneLine(l)), esc(oneLine(p)), c, row)
			if cell >= 20 && c > 0 {
				color := "#1f2328"
				if alpha > 0.6 {
					color = "#fff"
				}
				fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%d</text>\n", x+cell/2, y+cell/2+4, color, c)
			}
		}
	}
	b.WriteString("</svg>\n")
}

// barsSVG draws one row of horizontal bars per point, one bar per series,
// values in [0, 1] for ratios. Points whose labels are "/"-separated
// paths (scenes) are indented by depth, so the chart reads as a tree.
func (h *htmlDoc) barsSVG(b *strings.Builder, ch *Chart) {
	pts := ch.Points
	if len(pts) == 0 {
		return
	}
	left := len(pts) - htmlMaxBars
	if left > 0 {
		pts = pts[:htmlMaxBars]
	}
	tree := ch.Tree
	lw := 0
	for _, p := range pts {
		l, depth := barLabel(p.Label, tree)
		lw = max(lw, pxWidth(l)+depth*treeIndent)
	}
	lw = min(lw, 200) + 10
	ns := max(1, len(ch.Series))
	bar, gap := 12, 8
	rowH := ns*bar + gap
	const plot, valW = 320, 110
	top := 8
	if ns > 1 {
		top = 26
	}
	vmax := chartMax(ch)
	w, hh := lw+plot+valW, top+len(pts)*rowH+22
	fmt.Fprintf(b, "<svg class=\"bars\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	if ns > 1 {
		legend(b, ch.Series, lw, 12)
	}
	for i, p := range pts {
		y := top + i*rowH
		label, depth := barLabel(p.Label, tree)
		if tree {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\">%s<title>%s (n = %d)</title></text>\n",
				4+depth*treeIndent, y+rowH/2+2, esc(svgLabel(label, lw-depth*treeIndent-10)), esc(oneLine(p.Label)), p.N)
		} else {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s<title>%s (n = %d)</title></text>\n",
				lw-6, y+rowH/2+2, esc(svgLabel(label, lw)), esc(oneLine(p.Label)), p.N)
		}
		for k := 0; k < ns && k < len(p.Values); k++ {
			v := p.Values[k]
			bw := 0
			if !math.IsNaN(v) && vmax > 0 {
				bw = int(math.Round(float64(plot) * v / vmax))
			}
			name := ""
			if k < len(ch.Series) {
				name = ch.Series[k]
			}
			by := y + k*bar
			tip := fmtChartValue(v, ch.Unit)
			lo, hi, hasCI := p.ci(k)
			if hasCI {
				tip += " [" + fmtChartValue(lo, ch.Unit) + ", " + fmtChartValue(hi, ch.Unit) + "]"
			}
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s %s: %s</title></rect>\n",
				lw, by, max(bw, 1), bar-2, seriesColors[k%len(seriesColors)], esc(oneLine(p.Label)), esc(name), tip)
			textX := lw + bw + 4
			if hasCI && vmax > 0 {
				textX = max(textX, errorBar(b, lw, by+(bar-2)/2, plot, lo/vmax, hi/vmax, tip)+4)
			}
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>\n", textX, by+bar-3, fmtChartValue(v, ch.Unit))
		}
	}
	axisY := top + len(pts)*rowH
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/>\n", lw, top-2, lw, axisY)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"axis\">0</text><text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">%s</text>\n",
		lw, axisY+14, lw+plot, axisY+14, fmtChartValue(vmax, ch.Unit))
	b.WriteString("</svg>\n")
	if left > 0 {
		fmt.Fprintf(b, "<p class=\"more\">…and %d more not drawn; the table lists them.</p>\n", left)
	}
}

// errorBar draws a horizontal error bar from lo to hi (shares of the
// plot's width) at height y, with whiskers, and returns its right end.
func errorBar(b *strings.Builder, x0, y, plot int, lo, hi float64, tip string) int {
	x1 := x0 + int(math.Round(float64(plot)*math.Max(0, lo)))
	x2 := x0 + int(math.Round(float64(plot)*math.Min(1, hi)))
	fmt.Fprintf(b, "<path class=\"ci\" d=\"M%d %dH%dM%d %dv6M%d %dv6\"><title>%s</title></path>\n", x1, y, x2, x1, y-3, x2, y-3, esc(tip))
	return x2
}

// treeIndent is the indent in px of one level of a bar tree.
const treeIndent = 14

// barLabel is a point's label as drawn and its depth: in a tree, the last
// path segment, indented by its depth.
func barLabel(label string, tree bool) (string, int) {
	if !tree {
		return label, 0
	}
	parts := strings.Split(label, "/")
	return parts[len(parts)-1], len(parts) - 1
}

// legendWidth is the width in px legend draws.
func legendWidth(series []string) int {
	w := 0
	for _, s := range series {
		w += 24 + pxWidth(s)
	}
	return w
}

// chartMax is the scale of a chart: 1 for ratios, else the largest value.
func chartMax(ch *Chart) float64 {
	if ch.Unit == "ratio" {
		return 1
	}
	m := 0.0
	for _, p := range ch.Points {
		for _, v := range p.Values {
			if !math.IsNaN(v) && v > m {
				m = v
			}
		}
	}
	return m
}

func legend(b *strings.Builder, series []string, x, y int) {
	for k, s := range series {
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y-9, seriesColors[k%len(seriesColors)], x+14, y, esc(s))
		x += 24 + pxWidth(s)
	}
}

// columnsSVG draws a histogram: one group of vertical bars per bucket, in
// order, one bar per series, with the sample size under each bucket.
func (h *htmlDoc) columnsSVG(b *strings.Builder, ch *Chart) {
	pts := ch.Points
	if len(pts) == 0 {
		return
	}
	ns := max(1, len(ch.Series))
	bar := max(3, min(16, 200/(ns*len(pts))))
	group := ns*bar + 14
	const plotH, left, top = 180, 56, 28
	lw := 0
	for _, p := range pts {
		lw = max(lw, pxWidth(p.Label))
	}
	group = max(group, lw+6)
	vmax := niceCeil(chartMax(ch))
	w, hh := left+len(pts)*group+10, top+plotH+40
	if ns > 1 {
		w = max(w, left+legendWidth(ch.Series)+10)
	}
	fmt.Fprintf(b, "<svg class=\"cols\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	if ns > 1 {
		legend(b, ch.Series, left, 12)
	}
	for _, f := range []float64{0, 0.5, 1} {
		y := top + plotH - int(f*plotH)
		fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/><text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">%s</text>\n",
			left, y, w-6, y, left-4, y+4, fmtChartValue(f*vmax, ch.Unit))
	}
	for i, p := range pts {
		x0 := left + i*group + 7
		for k := 0; k < ns && k < len(p.Values); k++ {
			v := p.Values[k]
			bh := 0
			if !math.IsNaN(v) && vmax > 0 {
				bh = int(math.Round(plotH * v / vmax))
			}
			name := ""
			if k < len(ch.Series) {
				name = ch.Series[k]
			}
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s %s: %s</title></rect>\n",
				x0+k*bar, top+plotH-bh, bar-1, max(bh, 1), seriesColors[k%len(seriesColors)], esc(oneLine(p.Label)), esc(name), fmtChartValue(v, ch.Unit))
		}
		cx := left + i*group + group/2
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", cx, top+plotH+14, esc(svgLabel(p.Label, group)))
		if ns > 1 {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">n=%d</text>\n", cx, top+plotH+28, p.N)
		}
	}
	b.WriteString("</svg>\n")
}

// niceCeil rounds a scale up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
