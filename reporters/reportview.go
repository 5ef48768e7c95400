package reporters

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// Console caps on rows of one table; the Markdown and JSON reports hold
// the rest.
const (
	narrowMaxValues = 15 // per-value rows of one dimension
	narrowMaxLabels = 30 // per-label rows of one label dimension
)

// ReportView builds the view of a run report: the verdict, then
// thresholds, cases, scenes, templates, dimensions, labels, text metrics,
// robustness, latency, the other registered metric families, the flaky cases (--repeat), the failing cases and warnings. base, when set, adds Δ columns against that
// earlier report. It walks the report once; every renderer shares it.
func ReportView(r *schema.Report, base *schema.Report) *View {
	v := &View{Level: 2, Capitalize: true, Verdict: verdictOf(r), Context: reportContext(r, base)}
	builders := []func(*schema.Report, *schema.Report) []Section{
		thresholdSections, caseSections, sceneSections, templateSections,
		dimensionSections, labelSections, textSections, robustnessSections, latencySections, familySections, coverageSections, flakySections, failureSections, transcriptSections, warningSections,
	}
	for _, b := range builders {
		v.Sections = append(v.Sections, b(r, base)...)
	}
	return v
}

func verdictOf(r *schema.Report) *Verdict {
	return &Verdict{
		Pass:        verdictPass(r),
		Headline:    headline(r),
		Reasons:     reasons(r),
		Description: oneLine(r.Suite.Description),
	}
}

func reportContext(r, base *schema.Report) []Field {
	var ctx []Field
	add := func(f Field) {
		if f.Value = strings.TrimSpace(oneLine(f.Value)); f.Value != "" {
			ctx = append(ctx, f)
		}
	}
	add(Field{Label: "target", Value: r.Run.Target, Code: true})
	add(Field{Label: "split", Value: r.Run.Split, Code: true})
	add(Field{Label: "filter", Value: r.Run.Filter, Code: true})
	add(Field{Label: "run", Value: r.Run.ID, Code: true})
	if !r.Run.Started.IsZero() {
		add(Field{Label: "started", Value: startedText(r.Run.Started), Wide: true})
	}
	if u := usageOf(r); u != nil {
		add(Field{Label: "tokens", Value: fmt.Sprintf("%d (prompt %d, completion %d) over %d calls", u.TotalTokens, u.PromptTokens, u.CompletionTokens, u.Calls)})
	}
	add(Field{Label: toolName(r), Value: r.Version})
	if base != nil {
		add(Field{Label: "baseline", Value: baselineName(base), Code: true})
	}
	return ctx
}

func text(s string) Cell   { return Cell{Text: s} }
func clip(s string) Cell   { return Cell{Text: s, Style: Clip} }
func num(n int) Cell       { return Cell{Text: strconv.Itoa(n)} }
func code(s string) Cell   { return Cell{Text: s, Style: Code} }
func term(s string) Cell   { return Cell{Text: s, Style: Term} }
func mark(m Mark) Cell     { return Cell{Mark: m} }
func col(h string) Column  { return Column{Header: h} }
func rcol(h string) Column { return Column{Header: h, Align: Right} }

// wide is a right-aligned column only wide renderers show.
func wide(h string) Column { return Column{Header: h, Align: Right, Wide: true} }

func thresholdMark(t schema.ThresholdResult) Mark {
	switch thresholdStatus(t) {
	case statusPass:
		return MarkPass
	case statusFail:
		return MarkFail
	case statusError:
		return MarkError
	case statusWarn:
		if t.Outcome == schema.Error {
			return MarkAlert
		}
		return MarkWarn
	}
	return MarkSkip
}

func outcomeMark(o schema.Outcome) Mark {
	switch o {
	case schema.Pass:
		return MarkPass
	case schema.Fail:
		return MarkFail
	case schema.Error:
		return MarkError
	}
	return MarkSkip
}

func thresholdSections(r, base *schema.Report) []Section {
	if len(r.Thresholds) == 0 {
		return nil
	}
	t := Table{Columns: []Column{{Align: Center}, col("threshold"), col("condition"), {Header: "observed", Align: Right, BriefAlign: Left},
		{Header: "n", Align: Right, Wide: true}, {Header: "severity", Wide: true}}}
	if base != nil {
		t.Columns = append(t.Columns, Column{Header: "Δ baseline", Brief: "Δ", Align: Right})
	}
	s := Section{ID: "thresholds", Title: "Thresholds"}
	for _, th := range r.Thresholds {
		name := Cell{Text: th.Name, Style: Clip}
		if isWarn(th) {
			name.Tag = "warn"
		}
		if msg := oneLine(th.Message); msg != "" && th.Outcome != schema.Pass {
			name.Sub = msg
		}
		obs := Cell{Text: observedText(th.Observed), Style: Strong}
		switch {
		case th.Outcome == schema.Error:
			obs = clip("error: " + th.Error)
			if th.Error != "" {
				s.Notes = append(s.Notes, Note{Mark: thresholdMark(th), Text: th.Name + ": " + th.Error, Brief: true})
			}
		case th.Outcome < schema.Pass:
			obs = text("not evaluated")
		}
		sev := th.Severity
		if strings.TrimSpace(sev) == "" {
			sev = "error"
		}
		row := []Cell{mark(thresholdMark(th)), name, code(th.Condition), obs, text(observedN(th.Observed)), text(sev)}
		if base != nil {
			d := ""
			if bt := baselineThreshold(base, th.Name); bt != nil {
				d = fmtDelta(firstObserved(th), firstObserved(*bt))
			}
			row = append(row, text(d))
		}
		t.Rows = append(t.Rows, row)
		s.Notes = append(s.Notes, driftNotes(th)...)
		s.Charts = append(s.Charts, trendCharts(th)...)
	}
	s.Tables = []Table{t}
	return []Section{s}
}

// driftNotes are the drift gates' sentences of a threshold, one per
// metric it watches: "准确率: drift: accuracy fell from 0.91 …".
func driftNotes(th schema.ThresholdResult) []Note {
	var out []Note
	for _, h := range th.History {
		if d := h.Drift; d != nil {
			mark := driftMark(d)
			if mark == MarkFail && isWarn(th) {
				mark = MarkWarn
			}
			out = append(out, Note{Mark: mark, Text: th.Name + ": drift: " + d.Text})
		}
	}
	return out
}

// trendCharts are a threshold's metrics' histories, for graphical
// renderers: each with at least two runs.
func trendCharts(th schema.ThresholdResult) []Chart {
	var out []Chart
	for i := range th.History {
		h := &th.History[i]
		if len(h.Points) < 2 {
			continue
		}
		out = append(out, Chart{Kind: ChartTrend, Title: "Trend of " + h.Metric, Name: "threshold " + th.Name, Trend: h})
	}
	return out
}

func caseSections(r, base *schema.Report) []Section {
	scopes := caseScopes(r.Metrics)
	if len(scopes) == 0 {
		return nil
	}
	t := Table{Columns: []Column{col("scope"), rcol("total"), rcol("passed"), rcol("failed"), rcol("errored"),
		rcol("accuracy"), rcol("error rate")}}
	if base != nil {
		t.Columns = append(t.Columns, rcol("Δ accuracy"))
	}
	for _, s := range scopes {
		n := s.Node
		row := []Cell{clip(s.Label), num(n.Total), num(n.Passed), num(n.Failed), num(n.Errored),
			text(fmtRatioCI(n.Accuracy)), text(fmtRatio(n.ErrorRate))}
		if base != nil {
			row = append(row, text(fmtDelta(ratioValue(&n.Accuracy), baselineAccuracy(base, s.Key))))
		}
		t.Rows = append(t.Rows, row)
	}
	sec := Section{ID: "cases", Title: "Cases", Tables: []Table{t}}
	if note := intervalNote(r); note != "" {
		sec.Notes = []Note{{Text: note}}
	}
	return []Section{sec}
}

func sceneSections(r, _ *schema.Report) []Section {
	if r.Metrics == nil || len(r.Metrics.Scene) == 0 {
		return nil
	}
	t := Table{Columns: []Column{col("scene"), rcol("total"), rcol("passed"), rcol("failed"), rcol("errored"), rcol("accuracy")}}
	chart := Chart{Kind: ChartBars, Title: "Accuracy by scene", Unit: "ratio", Series: []string{"accuracy"}, Tree: true}
	for _, k := range sortedKeys(r.Metrics.Scene) {
		n := r.Metrics.Scene[k]
		if n == nil {
			continue
		}
		t.Rows = append(t.Rows, []Cell{clip(k), num(n.Total), num(n.Passed), num(n.Failed), num(n.Errored), text(fmtRatio(n.Accuracy))})
		chart.Points = append(chart.Points, Point{Label: k, Values: []float64{ratioOrNaN(&n.Accuracy)}, N: int(n.Accuracy.Den)}.withCI(&n.Accuracy))
	}
	return []Section{{ID: "scenes", Title: "Scenes", Tables: []Table{t}, Charts: []Chart{chart}}}
}

func templateSections(r, _ *schema.Report) []Section {
	if len(r.Groups) == 0 {
		return nil
	}
	t := Table{Columns: []Column{{Align: Center}, col("template"), rcol("total"), rcol("passed"), rcol("failed"),
		rcol("errored"), rcol("accuracy"), rcol("call time"), col("at")}}
	for _, g := range r.Groups {
		name := clip(g.Name)
		if k := groupKind(g); k != "template" {
			name.Text = k + " " + g.Name
		}
		if g.Unreviewed {
			name.Aside = "draft"
		}
		acc := ""
		if r.Metrics != nil {
			nodes := r.Metrics.Template
			if k := groupKind(g); k != "template" {
				nodes = r.Metrics.Sources[r.Descriptor().SourceGroup(k)]
			}
			if n := nodes[g.Name]; n != nil {
				acc = fmtRatio(n.Accuracy)
			}
		}
		t.Rows = append(t.Rows, []Cell{mark(groupMark(r, g.Outcome)), name, num(g.Total), num(g.Passed), num(g.Failed),
			num(g.Errored), text(acc), text(fmtSeconds(g.Seconds)), {Text: location(g.File, g.Line), Style: Clip | Code}})
	}
	return []Section{{ID: "templates", Title: "Templates", Tables: []Table{t},
		Intro: "Call time sums the durations of a template's calls; with concurrent calls it exceeds the time the run took."}}
}

func dimensionSections(r, _ *schema.Report) []Section {
	if r.Metrics == nil || len(r.Metrics.Dimension) == 0 {
		return nil
	}
	dims := r.Metrics.Dimension
	counted := Table{Columns: []Column{col("dimension"), col("kind"), wide("expected"), wide("recognized"), wide("correct"),
		wide("wrong"), rcol("precision"), rcol("recall"), rcol("F1"), rcol("error rate")}}
	whole := Table{Columns: []Column{col("dimension"), rcol("total"), rcol("correct"), rcol("accuracy")}}
	var values []Table
	for _, k := range sortedKeys(dims) {
		d := dims[k]
		if d == nil {
			continue
		}
		switch d.Kind {
		case schema.KindCase:
			whole.Rows = append(whole.Rows, []Cell{clip(k), num(d.Total), num(d.Correct), text(fmtRatioPtrCI(d.Accuracy))})
		case schema.KindLabel:
			// Shown with the label metrics.
		default:
			counted.Rows = append(counted.Rows, []Cell{clip(k), text(d.Kind), num(d.Expected), num(d.Recognized),
				num(d.Correct), num(d.Wrong), text(fmtRatioPtr(d.Precision)), text(fmtRatioPtr(d.Recall)),
				text(fmtRatioPtrCI(d.F1)), text(fmtRatioPtr(d.ErrorRate))})
		}
		if len(d.Types) > 0 {
			values = append(values, dimensionTypeTable(k, d))
		}
		if len(d.Values) > 0 {
			values = append(values, dimensionValueTable(k, d))
		}
	}
	var out []Section
	if len(counted.Rows) > 0 {
		out = append(out, Section{ID: "dimensions", Title: "Dimensions", Tables: []Table{counted}})
	}
	if len(whole.Rows) > 0 {
		out = append(out, Section{ID: "dimensions", Title: "Whole-case dimensions", Tables: []Table{whole}})
	}
	if len(values) > 0 {
		out = append(out, Section{ID: "dimensions", Tables: values})
	}
	return out
}

// dimensionValueTable lists a dimension's values worst first.
func dimensionValueTable(name string, d *schema.Dimension) Table {
	t := Table{Title: oneLine(name) + " by value", Collapsed: true, Ranked: true, Cap: narrowMaxValues,
		Columns: []Column{col("value"), wide("expected"), wide("recognized"), wide("correct"), rcol("precision"),
			rcol("recall"), rcol("F1"), rcol("error rate")}}
	for _, v := range dimensionValues(d) {
		x := d.Values[v]
		if x == nil {
			continue
		}
		t.Rows = append(t.Rows, []Cell{clip(v), num(x.Expected), num(x.Recognized), num(x.Correct),
			text(fmtRatioPtr(x.Precision)), text(fmtRatioPtr(x.Recall)), text(fmtRatioPtr(x.F1)), text(fmtRatioPtr(x.ErrorRate))})
	}
	return t
}

func labelSections(r, _ *schema.Report) []Section {
	if r.Metrics == nil {
		return nil
	}
	var out []Section
	for _, name := range sortedKeys(r.Metrics.Label) {
		l := r.Metrics.Label[name]
		if l == nil {
			continue
		}
		s := Section{ID: "labels", Title: "Label", Code: name}
		summary := Table{Columns: []Column{col("metric"), rcol("value")}}
		for _, row := range labelSummaryRows(l) {
			summary.Rows = append(summary.Rows, []Cell{term(row[0]), text(row[1])})
		}
		s.Tables = append(s.Tables, summary)
		if len(l.Labels) > 0 {
			per := Table{Title: oneLine(name) + " per label", Cap: narrowMaxLabels,
				Columns: []Column{col("label"), rcol("precision"), rcol("recall"), rcol("F1"), rcol("support")}}
			bars := Chart{Kind: ChartBars, Title: "Precision, recall and F1 by label", Name: name, Unit: "ratio",
				Series: []string{"precision", "recall", "F1"}}
			for _, k := range sortedKeys(l.Labels) {
				x := l.Labels[k]
				if x == nil {
					continue
				}
				per.Rows = append(per.Rows, []Cell{clip(k), naCell(x.Precision, "never predicted"), naCell(x.Recall, "never expected"),
					text(fmtRatio(x.F1)), num(x.Support)})
				bars.Points = append(bars.Points, Point{Label: k, N: x.Support,
					Values: []float64{ratioOrNaN(&x.Precision), ratioOrNaN(&x.Recall), ratioOrNaN(&x.F1)}}.withCI(&x.Precision, &x.Recall, &x.F1))
			}
			s.Tables = append(s.Tables, per)
			s.Charts = append(s.Charts, bars)
		}
		if c := l.Confusion; c != nil && len(c.Labels) > 0 {
			s.Charts = append(s.Charts, Chart{Kind: ChartConfusion, Title: "Confusion matrix", Name: name,
				Matrix: &Matrix{Labels: c.Labels, Counts: c.Counts}})
		}
		out = append(out, s)
	}
	return out
}

// naCell shows a per-label or per-type ratio, and when its denominator is
// zero why it has no value (the averages count it as 0, as docs/metrics.md
// says).
func naCell(r schema.Ratio, why string) Cell {
	c := text(fmtRatio(r))
	if _, ok := r.Value(); !ok {
		c.Aside = why
	}
	return c
}

// dimensionTypeTable lists a typed items dimension's types (entities) with
// their precision, recall, F1 and support, then the averages.
func dimensionTypeTable(name string, d *schema.Dimension) Table {
	t := Table{Title: oneLine(name) + " by type",
		Columns: []Column{col("type"), rcol("precision"), rcol("recall"), rcol("F1"), rcol("support")}}
	ratio := func(r *schema.Ratio, why string) Cell {
		if r == nil {
			return text("")
		}
		return naCell(*r, why)
	}
	for _, k := range sortedKeys(d.Types) {
		x := d.Types[k]
		t.Rows = append(t.Rows, []Cell{clip(k), ratio(x.Precision, "never recognised"), ratio(x.Recall, "never expected"),
			ratio(x.F1, "none expected or recognised"), num(x.Support)})
	}
	t.Rows = append(t.Rows,
		[]Cell{term("micro avg"), text(fmtRatioPtr(d.Precision)), text(fmtRatioPtr(d.Recall)), text(fmtRatioPtr(d.F1)), num(d.Expected)},
		[]Cell{term("macro avg"), text(fmtRatioPtr(d.MacroPrecision)), text(fmtRatioPtr(d.MacroRecall)), text(fmtRatioPtr(d.MacroF1)), num(d.Expected)},
		[]Cell{term("weighted avg"), text(fmtRatioPtr(d.WeightedPrecision)), text(fmtRatioPtr(d.WeightedRecall)), text(fmtRatioPtr(d.WeightedF1)), num(d.Expected)})
	if d.OutOfScope != nil && *d.OutOfScope > 0 {
		t.Rows = append(t.Rows, []Cell{term("out of scope"), text(""), text(""), text(""), num(*d.OutOfScope)})
	}
	return t
}

// ratioOrNaN is a ratio's value, NaN without data.
func ratioOrNaN(r *schema.Ratio) float64 {
	if v := ratioValue(r); v != nil {
		return *v
	}
	return math.NaN()
}

func latencySections(r, _ *schema.Report) []Section {
	if r.Metrics == nil || r.Metrics.Latency == nil {
		return nil
	}
	l := r.Metrics.Latency
	t := Table{Columns: []Column{col("bucket"), rcol("count"), rcol("mean"), rcol("p50"), rcol("p90"), rcol("p95"),
		rcol("p99"), rcol("max")}}
	series := []string{"mean", "p50", "p90", "p95", "p99", "max"}
	hist := Chart{Kind: ChartHistogram, Title: "Latency by input length", Unit: "ms", Series: series}
	row := func(name string, s schema.LatencyStats) {
		t.Rows = append(t.Rows, []Cell{text(name), num(s.Count), text(fmtMS(s.MeanMS)), text(fmtMS(s.P50MS)),
			text(fmtMS(s.P90MS)), text(fmtMS(s.P95MS)), text(fmtMS(s.P99MS)), text(fmtMS(s.MaxMS))})
	}
	row("all", l.LatencyStats)
	for _, b := range latencyBuckets(l) {
		s := *l.Bucket[b]
		row(b, s)
		hist.Points = append(hist.Points, Point{Label: b, N: s.Count,
			Values: []float64{s.MeanMS, s.P50MS, s.P90MS, s.P95MS, s.P99MS, s.MaxMS}})
	}
	charts := []Chart{hist}
	if d := latencyDistribution(r); len(d.Points) > 0 {
		charts = append(charts, d)
	}
	var notes []Note
	if l.Approximate != "" {
		notes = append(notes, Note{Text: "Percentiles are approximate: " + l.Approximate + "."})
	}
	return []Section{{ID: "latency", Title: "Latency (ms)", Brief: "Latency (ms; buckets by input length)",
		Intro:  "Buckets by input length (characters for CJK text, words otherwise).",
		Tables: []Table{t}, Charts: charts, Notes: notes}}
}

// latencyBins is the number of bins of the latency distribution.
const latencyBins = 20

// latencyDistribution is a histogram of the latencies of the cases the
// report lists (calls that answered), in latencyBins equal bins.
func latencyDistribution(r *schema.Report) Chart {
	ch := Chart{Kind: ChartDistribution, Title: "Latency distribution (ms)", Unit: "cases", Series: []string{"cases"}}
	hi := 0.0
	for c := range r.ListedCases() {
		if c.Error == nil {
			hi = max(hi, c.LatencyMS)
		}
	}
	if hi <= 0 {
		return ch
	}
	width := niceCeil(hi / latencyBins)
	counts := make([]int, int(math.Ceil(hi/width))+1)
	for c := range r.ListedCases() {
		if c.Error == nil {
			counts[min(len(counts)-1, int(c.LatencyMS/width))]++
		}
	}
	for len(counts) > 1 && counts[len(counts)-1] == 0 {
		counts = counts[:len(counts)-1]
	}
	for i, n := range counts {
		ch.Points = append(ch.Points, Point{Label: "<" + fmtNum(float64(i+1)*width), Values: []float64{float64(n)}, N: n})
	}
	if r.CasesOmitted > 0 {
		ch.Title += fmt.Sprintf(" (the %d cases listed)", r.NumCases())
	}
	return ch
}

func failureSections(r, _ *schema.Report) []Section {
	var fail []*schema.CaseReport
	for _, c := range failingCases(r) {
		if c.Turn == 0 { // conversations' turns are in their transcripts
			fail = append(fail, c)
		}
	}
	if len(fail) == 0 {
		return nil
	}
	over := false
	if m := r.Metrics; m != nil {
		over = m.Errored > 0 && float64(m.Errored) > r.Run.ErrorBudget*float64(m.Total)
	}
	return []Section{{ID: "failures", Title: fmt.Sprintf("Failing cases (%d)", len(fail)),
		Failures: &Failures{Cases: fail, ByThresholds: byThresholds(r), Thresholds: len(r.Thresholds) > 0, OverBudget: over}}}
}

// byThresholds says the thresholds, not every case, decide the verdict.
func byThresholds(r *schema.Report) bool { return r.Verdict.ByThresholds || len(r.Thresholds) > 0 }

// groupMark is a template row's mark: a failing template of a suite whose
// thresholds decide is a warning, not a red mark (SPEC §9).
func groupMark(r *schema.Report, o schema.Outcome) Mark {
	if o == schema.Fail && byThresholds(r) {
		return MarkWarn
	}
	return outcomeMark(o)
}

func warningSections(r, _ *schema.Report) []Section {
	if len(r.Warnings) == 0 {
		return nil
	}
	s := Section{ID: "warnings", Title: "Warnings"}
	for _, w := range r.Warnings {
		s.Notes = append(s.Notes, Note{Mark: MarkAlert, Text: w})
	}
	return []Section{s}
}

// baselineName names the run a baseline report is about: its run id, or
// its start time when it has none.
func baselineName(base *schema.Report) string {
	if id := oneLine(base.Run.ID); strings.TrimSpace(id) != "" {
		return id
	}
	if !base.Run.Started.IsZero() {
		return "started " + startedText(base.Run.Started)
	}
	return "(unnamed run)"
}

// usageOf is the run's metrics.usage, nil when no call reported tokens.
func usageOf(r *schema.Report) *schema.TokenUsage {
	if r.Metrics == nil {
		return nil
	}
	return schema.UsageOf(&r.Metrics.Node)
}

// intervalNote says how to read the intervals shown in brackets, once
// under the cases table: "" for a report without intervals.
func intervalNote(r *schema.Report) string {
	iv := r.Intervals
	if iv == nil {
		return ""
	}
	return fmt.Sprintf("[low, high]: %g %% confidence interval — Wilson for proportions, percentile bootstrap (%d resamples) otherwise; docs/statistics.md",
		100*iv.Confidence, iv.Resamples)
}
