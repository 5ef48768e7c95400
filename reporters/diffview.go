package reporters

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// MetricValue is one number of a metrics tree: its address as thresholds
// write it, its value (nil without data) and, for a ratio, "num/den".
type MetricValue struct {
	Addr  string
	Value *float64
	Ratio string
}

// DiffOptions tune DiffView.
type DiffOptions struct {
	// NameA and NameB name the two runs (as given on the command line).
	NameA, NameB string
	// All lists unchanged and noisy metrics too.
	All bool
	// MaxCases caps the flipped cases listed per direction (0: all).
	MaxCases int
	// Metrics lists a report's metrics (nil lists none).
	Metrics func(*schema.Metrics) []MetricValue
	// Significance is B's comparison with A metric by metric
	// (assert/compare.Runs): its metrics come first in the table, with
	// the interval of the difference, the p-values and the verdict, and
	// the head says what it found. Nil: the metrics' deltas alone.
	Significance *schema.Significance
}

type metricDelta struct {
	name   string
	a, b   *float64
	na, nb string // num/den text
	sig    *schema.MetricChange
}

type flip struct {
	id, template, text string
	from, to           schema.Outcome
}

type reportDiff struct {
	metrics    []metricDelta
	hidden     int      // changed metrics left out without --all
	thresholds []string // "name: pass → fail"
	worse      []flip   // pass → fail/error
	better     []flip   // fail/error → pass
	changed    []flip   // fail ↔ error
	onlyA      int
	onlyB      int
}

// DiffView compares two runs: thresholds whose outcome changed, the cases
// that flipped, by direction, and the metrics — with a significance, the
// tested ones first (significant regressions first), each with the
// interval of its difference, its p-values and verdict.
func DiffView(a, b *schema.Report, o DiffOptions) *View {
	d := &reportDiff{}
	d.compareMetrics(a, b, o)
	d.compareThresholds(a, b)
	d.compareCases(a, b)
	counts := fmt.Sprintf("%d %s got worse (pass → fail/error) · %d got better · %d %s changed · %d %s changed",
		len(d.worse), plural(len(d.worse), "case", "cases"), len(d.better), len(d.thresholds), plural(len(d.thresholds), "threshold", "thresholds"),
		len(d.metrics)+d.hidden, plural(len(d.metrics)+d.hidden, "metric", "metrics"))
	v := &View{Title: "nlutest diff: " + counts, Level: 2, Capitalize: true,
		Context: []Field{{Label: "A =", Value: o.NameA, Code: true}, {Label: "B =", Value: o.NameB, Code: true}}}
	if sig := o.Significance; sig != nil {
		v.Title = "nlutest diff: " + SignificanceHeadline(sig, "B", "A")
		v.Context = append(v.Context, Field{Label: "cases:", Value: counts}, Field{Label: "tests:", Value: significanceSettings(sig)})
	}
	if len(d.thresholds) > 0 {
		s := Section{Title: "Thresholds"}
		for _, t := range d.thresholds {
			s.Notes = append(s.Notes, Note{Text: t})
		}
		v.Sections = append(v.Sections, s)
	}
	if sig := o.Significance; sig != nil && sig.Worse > 0 {
		// The significant regressions first: what a release manager reads.
		v.Sections = append(v.Sections, d.metricsSection(o, true))
	}
	for _, s := range []Section{flipSection("Worse: pass → fail or error", d.worse, o.MaxCases),
		flipSection("Better: fail or error → pass", d.better, o.MaxCases),
		flipSection("Changed between fail and error", d.changed, o.MaxCases)} {
		if s.Title != "" {
			v.Sections = append(v.Sections, s)
		}
	}
	if len(d.metrics) > 0 || d.hidden > 0 {
		v.Sections = append(v.Sections, d.metricsSection(o, false))
	}
	var notes []Note
	if d.onlyA+d.onlyB > 0 {
		notes = append(notes, Note{Text: fmt.Sprintf("%d cases only in A, %d only in B", d.onlyA, d.onlyB)})
	}
	if a.CasesOmitted+b.CasesOmitted > 0 {
		notes = append(notes, Note{Text: fmt.Sprintf("%d cases of A and %d of B are not listed in their reports (over %d), so they were not compared",
			a.CasesOmitted, b.CasesOmitted, schema.MaxReportCases)})
	}
	if len(notes) > 0 {
		v.Sections = append(v.Sections, Section{Notes: notes})
	}
	return v
}

// metricsSection is the table of metrics: with worse, only the
// significant regressions; otherwise the other metrics. With a
// significance it has the columns of the tests.
func (d *reportDiff) metricsSection(o DiffOptions, worse bool) Section {
	sig := o.Significance
	t := Table{Columns: []Column{col("metric"), rcol("A"), rcol("B"), rcol("Δ")}}
	if sig != nil {
		conf := fmt.Sprintf("%g %% CI of Δ", 100*sig.Confidence)
		t.Columns = append(t.Columns, Column{Header: conf, Brief: "CI of Δ", Align: Right}, rcol("p"),
			Column{Header: "p (Holm)", Align: Right}, col("verdict"))
	}
	for _, m := range d.metrics {
		if worse != (m.sig != nil && m.sig.Verdict == schema.VerdictWorse) {
			continue
		}
		t.Rows = append(t.Rows, metricRow(m, sig != nil))
	}
	title := "Metrics"
	if worse {
		title = fmt.Sprintf("Significantly worse (%d)", len(t.Rows))
		t.Note = fmt.Sprintf("Worse at α = %g after Holm's adjustment; gated metrics (⚑: accuracy, error rate and the metrics thresholds name) decide --fail-on-worse.", sig.Alpha)
		return Section{ID: "worse", Title: title, Tables: []Table{t}}
	}
	if d.hidden > 0 {
		t.Note = fmt.Sprintf("%d more %s changed per label or per split, level, scene and template; --all lists them.",
			d.hidden, plural(d.hidden, "metric", "metrics"))
	}
	s := Section{ID: "metrics", Title: title, Tables: []Table{t}}
	if len(t.Rows) == 0 {
		s.Tables = nil
		if t.Note != "" {
			s.Notes = []Note{{Text: t.Note}}
		}
	}
	return s
}

// metricRow is one metric's row: name (⚑ when gated), A and B with their
// ratio, Δ and, with tests, the interval, p-values and verdict.
func metricRow(m metricDelta, tests bool) []Cell {
	va, vb := fmtVal(m.a), fmtVal(m.b)
	if m.na != "" {
		va += " (" + m.na + ")"
	}
	if m.nb != "" {
		vb += " (" + m.nb + ")"
	}
	name := code(m.name)
	if m.sig != nil && m.sig.Gated {
		name.Aside = "⚑"
	}
	row := []Cell{name, text(va), text(vb), text(fmtChange(m.a, m.b))}
	if !tests {
		return row
	}
	ci, p, padj, verdict := "", "", "", "no test"
	if s := m.sig; s != nil {
		if s.CILow != nil && s.CIHigh != nil {
			ci = "[" + fmtSigned(*s.CILow) + ", " + fmtSigned(*s.CIHigh) + "]"
		}
		p, padj = fmtP(s.P), fmtP(s.PAdjusted)
		if s.Verdict != "" {
			verdict = s.Verdict
		}
	}
	return append(row, text(ci), text(p), text(padj), text(verdict))
}

// fmtSigned prints a bound of an interval of a difference with three
// significant digits and its sign (0 without one).
func fmtSigned(f float64) string {
	if f == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", f)
}

// fmtP prints a p-value with two significant digits; "" when absent.
// pClause is "= 0.003", or "< 0.0001" for a p-value fmtP prints so.
func pClause(p *float64) string {
	if s := fmtP(p); strings.HasPrefix(s, "<") {
		return "< " + s[1:]
	}
	return "= " + fmtP(p)
}

func fmtP(p *float64) string {
	switch {
	case p == nil:
		return ""
	case *p < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.2g", *p)
}

// SignificanceHeadline is the sentence a release manager reads first, the
// candidate and the baseline named b and a: "B is worse than A on 2
// metrics (accuracy −4.1 points, p = 0.003; …), better on 1 (…), no
// detectable difference on 14", the p-values being the adjusted ones the
// verdicts read; for reports alone, that there were no tests.
func SignificanceHeadline(sig *schema.Significance, b, a string) string {
	if !sig.Paired {
		return "no paired tests (" + sig.Note + ")"
	}
	list := func(verdict string) string {
		var parts []string
		for _, m := range sig.Metrics {
			if m.Verdict != verdict {
				continue
			}
			if len(parts) == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, fmt.Sprintf("%s %s, p %s", shortMetric(m.Metric), fmtDiff(m), pClause(m.PAdjusted)))
		}
		return strings.Join(parts, "; ")
	}
	var out strings.Builder
	if sig.Worse > 0 {
		fmt.Fprintf(&out, "%s is worse than %s on %d %s (%s)", b, a, sig.Worse, plural(sig.Worse, "metric", "metrics"), list(schema.VerdictWorse))
	} else {
		fmt.Fprintf(&out, "%s is not worse than %s on any metric", b, a)
	}
	if sig.Better > 0 {
		fmt.Fprintf(&out, ", better on %d (%s)", sig.Better, list(schema.VerdictBetter))
	}
	fmt.Fprintf(&out, ", no detectable difference on %d", sig.NoDifference)
	return out.String()
}

// shortMetric is a metric's address without "metrics." for the headline.
func shortMetric(addr string) string {
	return strings.TrimPrefix(WrittenAddress(addr), "metrics.")
}

// fmtDiff is a tested metric's difference: in points for a proportion
// (−4.1 points), else with four significant digits.
func fmtDiff(m schema.MetricChange) string {
	if m.Diff == nil {
		return "no data"
	}
	d := *m.Diff
	if m.Baseline != nil && m.Candidate != nil && *m.Baseline >= 0 && *m.Baseline <= 1 && *m.Candidate >= 0 && *m.Candidate <= 1 {
		return strings.Replace(fmt.Sprintf("%+.1f points", 100*d), "-", "−", 1)
	}
	return strings.Replace(fmt.Sprintf("%+.4g", d), "-", "−", 1)
}

// significanceSettings says what the tests were run on and how.
func significanceSettings(sig *schema.Significance) string {
	if !sig.Paired {
		return sig.Note
	}
	var units []string
	for _, u := range sig.Units {
		units = append(units, fmt.Sprintf("%d %s (%d only in A, %d only in B)", u.Paired, u.Unit, u.OnlyBaseline, u.OnlyCandidate))
	}
	return fmt.Sprintf("paired on %s · α = %g, p-values Holm-adjusted among the gated metrics (⚑) and among the others · %g %% intervals, %d resamples",
		strings.Join(units, ", "), sig.Alpha, 100*sig.Confidence, sig.Resamples)
}

// WrittenAddress writes a canonical metric address as conditions and
// diff write it: a key that is an identifier as a name
// (metrics.split["smoke"].accuracy → metrics.split.smoke.accuracy),
// other keys in brackets.
func WrittenAddress(addr string) string {
	var b strings.Builder
	for {
		i := strings.Index(addr, "[\"")
		if i < 0 {
			b.WriteString(addr)
			return b.String()
		}
		b.WriteString(addr[:i])
		rest := addr[i+1:]
		q, err := strconv.QuotedPrefix(rest)
		if err != nil || !strings.HasPrefix(rest[len(q):], "]") {
			b.WriteString(addr[i:])
			return b.String()
		}
		key, _ := strconv.Unquote(q)
		if isIdentKey(key) {
			b.WriteString("." + key)
		} else {
			b.WriteString("[" + q + "]")
		}
		addr = rest[len(q)+1:]
	}
}

// isIdentKey reports whether a key is written as a name in addresses
// (as cmd/nlutest's listing writes them).
func isIdentKey(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' || r > 127) {
			return false
		}
	}
	return s != ""
}

// flipSection lists flipped cases, at most max (0: all); empty when none.
func flipSection(title string, l []flip, max int) Section {
	if len(l) == 0 {
		return Section{}
	}
	t := Table{Columns: []Column{col("template"), col("case"), col("id"), col("A"), col("B")}}
	shown := l
	if max > 0 && len(shown) > max {
		shown = shown[:max]
		t.Note = fmt.Sprintf("… and %d more", len(l)-max)
	}
	for _, f := range shown {
		t.Rows = append(t.Rows, []Cell{clip(f.template), clip(f.text), {Text: f.id, Style: Code | Clip},
			text(f.from.String()), text(f.to.String())})
	}
	return Section{Title: fmt.Sprintf("%s (%d)", title, len(l)), Tables: []Table{t}}
}

func (d *reportDiff) compareMetrics(a, b *schema.Report, o DiffOptions) {
	covered := d.testedMetrics(o)
	if o.Metrics == nil {
		return
	}
	values := func(m *schema.Metrics) map[string]MetricValue {
		out := map[string]MetricValue{}
		if m == nil {
			return out
		}
		for _, mv := range o.Metrics(m) {
			out[mv.Addr] = mv
		}
		return out
	}
	ma, mb := values(a.Metrics), values(b.Metrics)
	for i := range d.metrics {
		// The ratio behind a tested value, when the paired value is the
		// report's (the runs have the same units).
		m := &d.metrics[i]
		if x, y := ma[m.name], mb[m.name]; sameValue(x.Value, m.a) && sameValue(y.Value, m.b) {
			m.na, m.nb = x.Ratio, y.Ratio
		}
	}
	d.untestedMetrics(ma, mb, covered, thresholdText(a)+"\n"+thresholdText(b), o.All)
}

// testedMetrics adds the metrics the comparison tested (all with --all,
// else those that changed or got a verdict) and returns the written
// addresses of every metric it compared.
func (d *reportDiff) testedMetrics(o DiffOptions) map[string]bool {
	covered := map[string]bool{}
	sig := o.Significance
	if sig == nil {
		return covered
	}
	for i := range sig.Metrics {
		m := &sig.Metrics[i]
		name := WrittenAddress(m.Metric)
		covered[name] = true
		same := m.Diff != nil && *m.Diff == 0 || m.Baseline == nil && m.Candidate == nil
		if !o.All && same && m.Verdict != schema.VerdictWorse && m.Verdict != schema.VerdictBetter {
			continue
		}
		d.metrics = append(d.metrics, metricDelta{name: name, a: m.Baseline, b: m.Candidate, sig: m})
	}
	return covered
}

// untestedMetrics adds, sorted by name, the metrics of either report the
// comparison did not test: those that changed (all with --all), per-value
// details counted as hidden unless a threshold (in gated, the thresholds'
// text) names them.
func (d *reportDiff) untestedMetrics(ma, mb map[string]MetricValue, covered map[string]bool, gated string, all bool) {
	names := map[string]bool{}
	for k := range ma {
		names[k] = true
	}
	for k := range mb {
		names[k] = true
	}
	var rest []metricDelta
	for k := range names {
		if covered[k] {
			continue
		}
		x, y := ma[k], mb[k]
		md := metricDelta{name: k, a: x.Value, b: y.Value, na: x.Ratio, nb: y.Ratio}
		if !all && (sameValue(md.a, md.b) || noisy(k)) {
			continue
		}
		if !all && detailMetric(k) && !strings.Contains(gated, k) {
			d.hidden++
			continue
		}
		rest = append(rest, md)
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].name < rest[j].name })
	d.metrics = append(d.metrics, rest...)
}

// sameValue reports whether two values are equal (both absent, or within
// 1e-12).
func sameValue(x, y *float64) bool {
	return (x == nil) == (y == nil) && (x == nil || math.Abs(*x-*y) < 1e-12)
}

func (d *reportDiff) compareThresholds(a, b *schema.Report) {
	tb := map[string]schema.Outcome{}
	for _, t := range b.Thresholds {
		tb[t.Name] = t.Outcome
	}
	for _, t := range a.Thresholds {
		if o, ok := tb[t.Name]; ok && o != t.Outcome {
			d.thresholds = append(d.thresholds, t.Name+": "+t.Outcome.String()+" → "+o.String())
		}
	}
}

func (d *reportDiff) compareCases(a, b *schema.Report) {
	ca := make(map[string]schema.Outcome, a.NumCases())
	for c := range a.ListedCases() {
		ca[c.ID] = c.Outcome
	}
	seen := make(map[string]bool, b.NumCases())
	for c := range b.ListedCases() {
		seen[c.ID] = true
		old, ok := ca[c.ID]
		if !ok {
			d.onlyB++
			continue
		}
		f := flip{id: c.ID, template: c.Template, text: c.Text, from: old, to: c.Outcome}
		switch {
		case old == c.Outcome:
		case old == schema.Pass:
			d.worse = append(d.worse, f)
		case c.Outcome == schema.Pass:
			d.better = append(d.better, f)
		default:
			d.changed = append(d.changed, f)
		}
	}
	for id := range ca {
		if !seen[id] {
			d.onlyA++
		}
	}
	for _, l := range [][]flip{d.worse, d.better, d.changed} {
		sort.Slice(l, func(i, j int) bool {
			if l[i].template != l[j].template {
				return l[i].template < l[j].template
			}
			return l[i].id < l[j].id
		})
	}
}

// thresholdText is the conditions of a report's thresholds, one a line.
func thresholdText(r *schema.Report) string {
	var b strings.Builder
	for _, t := range r.Thresholds {
		b.WriteString(t.Condition + "\n")
	}
	return b.String()
}

// detailMetric reports metrics a diff shows only with --all unless a
// threshold names them: per-label figures and every metric of a split,
// level, scene, template or core scope (the run's own figures stay).
func detailMetric(name string) bool {
	for _, sub := range []string{".labels", ".values", ".types", ".bins", ".bucket", ".distance", ".thresholds"} {
		if strings.Contains(name, sub+".") || strings.Contains(name, sub+"[") {
			return true
		}
	}
	for _, p := range []string{"metrics.core", "metrics.noncore", "metrics.level", "metrics.scene",
		"metrics.split", "metrics.template"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[")) {
			return true
		}
	}
	return false
}

// Regressions counts what --fail-on-worse gates on between run a and a
// later run b: cases that went from pass to fail or error, and thresholds
// that went from pass to anything else.
func Regressions(a, b *schema.Report) (worseCases int, failingThresholds []string) {
	d := &reportDiff{}
	d.compareCases(a, b)
	tb := map[string]schema.Outcome{}
	for _, t := range b.Thresholds {
		tb[t.Name] = t.Outcome
	}
	for _, t := range a.Thresholds {
		if o, ok := tb[t.Name]; ok && t.Outcome == schema.Pass && o != schema.Pass {
			failingThresholds = append(failingThresholds, t.Name)
		}
	}
	return len(d.worse), failingThresholds
}

// noisy reports metrics left out of a diff unless --all: latency below the
// root (timings always move a little) and raw counts that ratios already show.
func noisy(name string) bool {
	if strings.Contains(name, ".latency.") && !strings.HasPrefix(name, "metrics.latency.") {
		return true
	}
	for _, suffix := range []string{".count", ".total", ".support", ".expected", ".recognized", ".correct", ".wrong", ".passed", ".failed", ".errored"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

func fmtVal(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", *v)
}

// fmtChange prints b − a with four significant digits and a sign (0
// without one).
func fmtChange(a, b *float64) string {
	if a == nil || b == nil {
		return ""
	}
	if *b == *a {
		return "0"
	}
	return fmt.Sprintf("%+.4g", *b-*a)
}
