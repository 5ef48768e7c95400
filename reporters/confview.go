package reporters

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Charts of the confidence families: a reliability diagram per label
// dimension (metrics.calibration.DIM.bins), and per dimension of
// metrics.oos the ROC curve and the fallback's figures by threshold.
func init() {
	familyCharts["calibration"] = calibrationCharts
	familyCharts["oos"] = oosCharts
	familyTitles["oos"] = "Out-of-scope detection"
}

// jsonRatioValue reads a ratio of decoded JSON: its value, NaN without data.
func jsonRatioValue(v any) float64 {
	if m, ok := v.(map[string]any); ok {
		if f, ok := m["value"].(float64); ok {
			return f
		}
	}
	return math.NaN()
}

func calibrationCharts(obj map[string]any) []Chart {
	var out []Chart
	for _, dim := range orderedKeys(nil, obj) {
		e, _ := obj[dim].(map[string]any)
		bins, _ := e["bins"].(map[string]any)
		if len(bins) == 0 {
			continue
		}
		title := "Reliability diagram"
		if ece := jsonRatioValue(e["ece"]); !math.IsNaN(ece) {
			title += " (ECE " + fmtFixed(ece) + ")"
		}
		c := Chart{Kind: ChartReliability, Title: title, Name: dim, Unit: "ratio", Series: []string{"accuracy", "mean confidence"}}
		for _, k := range orderedKeys(nil, bins) {
			b, _ := bins[k].(map[string]any)
			n, _ := b["cases"].(float64)
			c.Points = append(c.Points, Point{Label: k, Values: []float64{jsonRatioValue(b["accuracy"]), jsonRatioValue(b["mean_confidence"])}, N: int(n)})
		}
		out = append(out, c)
	}
	return out
}

func oosCharts(obj map[string]any) []Chart {
	var out []Chart
	for _, dim := range orderedKeys(nil, obj) {
		e, _ := obj[dim].(map[string]any)
		if roc, _ := e["roc"].([]any); len(roc) > 0 {
			title := "ROC curve, in scope by confidence"
			if auc, ok := e["auroc"].(float64); ok {
				title += " (AUROC " + fmtFixed(auc) + ")"
			}
			c := Chart{Kind: ChartROC, Title: title, Name: dim, Unit: "ratio", Series: []string{"FPR", "TPR"}}
			for _, p := range roc {
				xy, _ := p.([]any)
				if len(xy) != 2 {
					continue
				}
				x, _ := xy[0].(float64)
				y, _ := xy[1].(float64)
				c.Points = append(c.Points, Point{Values: []float64{x, y}})
			}
			out = append(out, c)
		}
		ths, _ := e["thresholds"].(map[string]any)
		if len(ths) == 0 {
			continue
		}
		keys := make([]string, 0, len(ths))
		for k := range ths {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, _ := strconv.ParseFloat(keys[i], 64)
			b, _ := strconv.ParseFloat(keys[j], 64)
			return a < b
		})
		in, _ := e["in_scope"].(float64)
		oos, _ := e["out_of_scope"].(float64)
		c := Chart{Kind: ChartBars, Title: "Fallback below each threshold", Name: dim, Unit: "ratio",
			Series: []string{"in-scope accuracy", "out-of-scope recall"}}
		for _, k := range keys {
			t, _ := ths[k].(map[string]any)
			c.Points = append(c.Points, Point{Label: k, Values: []float64{jsonRatioValue(t["in_scope_accuracy"]), jsonRatioValue(t["oos_recall"])}, N: int(in + oos)})
		}
		out = append(out, c)
	}
	return out
}

// reliabilitySVG draws a reliability diagram: per confidence bin a bar of
// the accuracy and a tick at the mean confidence, over the diagonal of
// perfect calibration; the bins' case counts below.
func (h *htmlDoc) reliabilitySVG(b *strings.Builder, ch *Chart) {
	const plot, left, top = 240, 60, 24
	w, hh := left+plot+16, top+plot+46
	fmt.Fprintf(b, "<svg class=\"reliability\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	legend(b, ch.Series, left, 12)
	unitAxes(b, left, top, plot, "confidence", "accuracy")
	n := max(1, len(ch.Points))
	bw := plot / n
	for i, p := range ch.Points {
		x := left + i*bw
		acc, conf := math.NaN(), math.NaN()
		if len(p.Values) > 1 {
			acc, conf = p.Values[0], p.Values[1]
		}
		if !math.IsNaN(acc) {
			bh := int(math.Round(plot * acc))
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.8\"><title>%s: accuracy %s, mean confidence %s, %d cases</title></rect>\n",
				x+1, top+plot-bh, bw-2, max(bh, 1), seriesColors[0], esc(p.Label), fmtFixed(acc), fmtFixed(conf), p.N)
		}
		if !math.IsNaN(conf) {
			y := top + plot - int(math.Round(plot*conf))
			fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", x+1, y, x+bw-1, y, seriesColors[1])
		}
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">%d</text>\n", x+bw/2, top+plot+40, p.N)
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"axis\">n</text>\n", left-4, top+plot+40)
	b.WriteString("</svg>\n")
}

// rocSVG draws a curve of [x, y] points in the unit square (a ROC curve:
// FPR, TPR) over the diagonal of chance.
func (h *htmlDoc) rocSVG(b *strings.Builder, ch *Chart) {
	const plot, left, top = 240, 60, 12
	w, hh := left+plot+16, top+plot+34
	fmt.Fprintf(b, "<svg class=\"roc\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", w, hh, w, hh)
	xl, yl := "x", "y"
	if len(ch.Series) == 2 {
		xl, yl = ch.Series[0], ch.Series[1]
	}
	unitAxes(b, left, top, plot, xl, yl)
	b.WriteString("<polyline fill=\"none\" stroke=\"" + seriesColors[0] + "\" stroke-width=\"2\" points=\"")
	for i, p := range ch.Points {
		if len(p.Values) < 2 || math.IsNaN(p.Values[0]) || math.IsNaN(p.Values[1]) {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "%.1f,%.1f", float64(left)+plot*p.Values[0], float64(top)+plot*(1-p.Values[1]))
	}
	b.WriteString("\"/>\n</svg>\n")
}

// unitAxes draws the frame, the dashed diagonal and the axis labels of a
// unit-square plot.
func unitAxes(b *strings.Builder, left, top, plot int, xLabel, yLabel string) {
	const line = "stroke=\"#8c959f\""
	fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" class=\"grid\" %s/>\n", left, top, plot, plot, line)
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\" %s stroke-dasharray=\"4 3\"/>\n", left, top+plot, left+plot, top, line)
	for _, t := range []struct {
		f     float64
		label string
	}{{0, "0"}, {0.5, "0.5"}, {1, "1"}} {
		y := top + plot - int(t.f*float64(plot))
		x := left + int(t.f*float64(plot))
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"end\">%s</text>\n", left-4, y+4, t.label)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>\n", x, top+plot+14, t.label)
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s →</text>\n", left+plot/2, top+plot+27, esc(xLabel))
	fmt.Fprintf(b, "<text x=\"16\" y=\"%d\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">%s →</text>\n", top+plot/2, top+plot/2, esc(yLabel))
}
