package reporters

import (
	"fmt"
	"math"
	"sort"
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
}

type metricDelta struct {
	name   string
	a, b   *float64
	na, nb string // num/den text
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

// DiffView compares two runs: thresholds whose outcome changed, metric
// deltas, and the cases that flipped, by direction.
func DiffView(a, b *schema.Report, o DiffOptions) *View {
	d := &reportDiff{}
	d.compareMetrics(a, b, o)
	d.compareThresholds(a, b)
	d.compareCases(a, b)
	head := fmt.Sprintf("%d %s got worse (pass → fail/error) · %d got better · %d %s changed · %d %s changed",
		len(d.worse), plural(len(d.worse), "case", "cases"), len(d.better), len(d.thresholds), plural(len(d.thresholds), "threshold", "thresholds"),
		len(d.metrics)+d.hidden, plural(len(d.metrics)+d.hidden, "metric", "metrics"))
	v := &View{Title: "nlutest diff: " + head, Level: 2, Capitalize: true,
		Context: []Field{{Label: "A =", Value: o.NameA, Code: true}, {Label: "B =", Value: o.NameB, Code: true}}}
	if len(d.thresholds) > 0 {
		s := Section{Title: "Thresholds"}
		for _, t := range d.thresholds {
			s.Notes = append(s.Notes, Note{Text: t})
		}
		v.Sections = append(v.Sections, s)
	}
	for _, s := range []Section{flipSection("Worse: pass → fail or error", d.worse, o.MaxCases),
		flipSection("Better: fail or error → pass", d.better, o.MaxCases),
		flipSection("Changed between fail and error", d.changed, o.MaxCases)} {
		if s.Title != "" {
			v.Sections = append(v.Sections, s)
		}
	}
	if len(d.metrics) > 0 || d.hidden > 0 {
		t := Table{Columns: []Column{col("metric"), rcol("A"), rcol("B"), rcol("Δ")}}
		for _, m := range d.metrics {
			va, vb := fmtVal(m.a), fmtVal(m.b)
			if m.na != "" {
				va += " (" + m.na + ")"
			}
			if m.nb != "" {
				vb += " (" + m.nb + ")"
			}
			t.Rows = append(t.Rows, []Cell{code(m.name), text(va), text(vb), text(fmtChange(m.a, m.b))})
		}
		if d.hidden > 0 {
			t.Note = fmt.Sprintf("%d more %s changed per label or per split, level, scene and template; --all lists them.",
				d.hidden, plural(d.hidden, "metric", "metrics"))
		}
		s := Section{Title: "Metrics", Tables: []Table{t}}
		if len(t.Rows) == 0 {
			s.Tables = nil
			s.Notes = []Note{{Text: t.Note}}
		}
		v.Sections = append(v.Sections, s)
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
	names := map[string]bool{}
	for k := range ma {
		names[k] = true
	}
	for k := range mb {
		names[k] = true
	}
	gated := thresholdText(a) + "\n" + thresholdText(b)
	for k := range names {
		x, y := ma[k], mb[k]
		md := metricDelta{name: k, a: x.Value, b: y.Value, na: x.Ratio, nb: y.Ratio}
		same := (md.a == nil) == (md.b == nil) && (md.a == nil || math.Abs(*md.a-*md.b) < 1e-12)
		if !o.All && (same || noisy(k)) {
			continue
		}
		if !o.All && detailMetric(k) && !strings.Contains(gated, k) {
			d.hidden++
			continue
		}
		d.metrics = append(d.metrics, md)
	}
	sort.Slice(d.metrics, func(i, j int) bool { return d.metrics[i].name < d.metrics[j].name })
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
	if strings.Contains(name, ".labels.") || strings.Contains(name, ".values.") {
		return true
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

// fmtChange prints b − a with four significant digits and a sign.
func fmtChange(a, b *float64) string {
	if a == nil || b == nil {
		return ""
	}
	return fmt.Sprintf("%+.4g", *b-*a)
}
