package compare

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
)

// DefaultAlpha is the level of the tests when Options leaves it 0.
const DefaultAlpha = 0.05

// Run is one side of a comparison: its report's metrics, read through the
// descriptor (schema.Tree.ReadMetrics), and, for a paired comparison, the
// units its collector recorded (assert.Collector.RecordUnits) with the
// same pairing as the other side's; nil Units when only the report is at
// hand.
type Run struct {
	Metrics *schema.Obj
	Units   *assert.Units
}

// Options set a comparison.
type Options struct {
	// Alpha is the level of the tests (DefaultAlpha when 0).
	Alpha float64
	// Stats are the resampling settings of the intervals and bootstrap
	// p-values (the suite's statistics: confidence, resamples, seed).
	Stats infer.Options
	// Gated are the canonical addresses of the metrics the suite's
	// thresholds name; with metrics.accuracy and metrics.error_rate they
	// are the gated family, whose p-values are adjusted together (Holm)
	// and which `diff --fail-on-worse` fails on.
	Gated []string
	// Unpaired says why there are no units (Significance.Note).
	Unpaired string
}

// Always gated: a run's accuracy and error rate.
var alwaysGated = []string{"metrics.accuracy", "metrics.error_rate"}

// Runs compares candidate b with baseline a metric by metric. With both
// runs' units, every figure the units make and both runs have is tested
// on the units both runs have (Test): McNemar's exact test for pass/fail
// figures, the paired bootstrap for ratios of sums and label averages,
// the sign-flip permutation test for means; the p-values are adjusted by
// Holm's method within two families, the gated metrics and the others,
// and each tested metric gets a verdict at Alpha. Without units (reports
// alone), proportions get Newcombe's unpaired interval of the
// difference and no metric a test. Metrics without a test (latency
// percentiles, kappas…) are listed with their difference alone when they
// are the run's own figures (no keyed entry: no per-label or per-split
// figure) or gated.
func Runs(a, b Run, o Options) *schema.Significance {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultAlpha
	}
	stats := withDefaults(o.Stats)
	sig := &schema.Significance{Paired: a.Units != nil && b.Units != nil, Alpha: o.Alpha, Confidence: stats.Conf}
	gated := map[string]bool{}
	for _, g := range append(slices.Clone(alwaysGated), o.Gated...) {
		gated[g] = true
	}
	ma, mb := flatten(a.Metrics), flatten(b.Metrics)
	tested := map[string]bool{}
	if sig.Paired {
		sig.Resamples = stats.Resamples
		sig.Units = unitPairs(a.Units, b.Units)
		figs, same := testFigures(a.Units, b.Units, stats)
		for _, mc := range figs {
			m := metricOf(ma, mb, mc.Metric)
			mc.Gated, mc.LowerBetter = gated[mc.Metric], m != nil && m.Lower()
			tested[mc.Metric] = true
			sig.Metrics = append(sig.Metrics, mc)
		}
		adjust(sig.Metrics, o.Alpha, same)
	} else {
		sig.Note = cmp.Or(o.Unpaired, "paired tests need the run directories (their results.jsonl); with reports alone a proportion gets Newcombe's unpaired interval of its difference and no metric a test or a verdict")
	}
	for _, addr := range untested(ma, mb, tested, gated) {
		sig.Metrics = append(sig.Metrics, untestedChange(ma[addr], mb[addr], addr, gated[addr], stats.Conf, sig.Paired))
	}
	for _, mc := range sig.Metrics {
		switch mc.Verdict {
		case schema.VerdictWorse:
			sig.Worse++
		case schema.VerdictBetter:
			sig.Better++
		case schema.VerdictNoDifference:
			sig.NoDifference++
		}
	}
	sortChanges(sig.Metrics)
	return sig
}

func withDefaults(o infer.Options) infer.Options {
	if o.Resamples <= 0 {
		o.Resamples = infer.DefaultResamples
	}
	if !(o.Conf > 0 && o.Conf < 1) {
		o.Conf = infer.DefaultConf
	}
	if o.Budget <= 0 {
		o.Budget = infer.DefaultBudget
	}
	return o
}

// flatten indexes the metrics of a tree by canonical address.
func flatten(o *schema.Obj) map[string]*schema.Metric {
	out := map[string]*schema.Metric{}
	var walk func(o *schema.Obj)
	walk = func(o *schema.Obj) {
		for i := range o.Metrics {
			out[o.Metrics[i].Addr] = &o.Metrics[i]
		}
		for _, c := range o.Children {
			if c.Obj != nil {
				walk(c.Obj)
			}
			for _, e := range c.Entries {
				walk(e)
			}
		}
	}
	if o != nil {
		walk(o)
	}
	return out
}

// metricOf is the metric addr of either run (the baseline's first).
func metricOf(ma, mb map[string]*schema.Metric, addr string) *schema.Metric {
	if m := ma[addr]; m != nil {
		return m
	}
	return mb[addr]
}

// untested lists, sorted, the addresses of the metrics of either run that
// are not tested but listed: gated ones, and the run's own figures (not
// counts, no keyed entry on the way: not per split, label or value).
func untested(ma, mb map[string]*schema.Metric, tested, gated map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]*schema.Metric{ma, mb} {
		for addr, x := range m {
			if seen[addr] || tested[addr] {
				continue
			}
			seen[addr] = true
			if gated[addr] || x.Kind != schema.MetricCount && ownFigure(addr) {
				out = append(out, addr)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ownFigure reports whether addr is one of the run's own figures: no
// keyed step, and not in the core or noncore node.
func ownFigure(addr string) bool {
	return !strings.Contains(addr, "[") && !strings.HasPrefix(addr, "metrics.core.") && !strings.HasPrefix(addr, "metrics.noncore.")
}

// untestedChange is the row of a metric without a test: the reports'
// values and their difference, with Newcombe's interval for a
// proportion (Wilson-interval ratio) when the runs were not paired.
func untestedChange(x, y *schema.Metric, addr string, gated bool, conf float64, paired bool) schema.MetricChange {
	mc := schema.MetricChange{Metric: addr, Test: schema.TestNone, Gated: gated}
	if x != nil {
		mc.Baseline, mc.LowerBetter = x.Value, x.Lower()
	}
	if y != nil {
		mc.Candidate, mc.LowerBetter = y.Value, y.Lower()
	}
	if mc.Baseline != nil && mc.Candidate != nil {
		mc.Diff = ptr(*mc.Candidate - *mc.Baseline)
	}
	m := cmp.Or(x, y)
	switch {
	case m != nil && m.CI == schema.CIWilson && !paired && x != nil && y != nil && x.Ratio != nil && y.Ratio != nil:
		if lo, hi, ok := infer.NewcombeDiff(y.Ratio.Num, y.Ratio.Den, x.Ratio.Num, x.Ratio.Den, conf); ok {
			mc.CILow, mc.CIHigh = ptr(lo), ptr(hi)
			mc.Note = "Newcombe's interval for independent proportions; no test"
		}
	case paired && gated:
		mc.Note = "no paired test for this metric: its difference alone"
	}
	return mc
}

func ptr(f float64) *float64 { return &f }

// num is a value as a pointer, nil when NaN or infinite.
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// identicalNote marks a metric whose numbers are the same in both runs on
// every unit compared: its p-value is 1 whatever the resampling, so it
// cannot be significant and does not count among the tests Holm's
// adjustment divides alpha between (Tarone 1990, "A modified Bonferroni
// method for discrete data": a test that cannot reach the level is left
// out).
const identicalNote = "the same on every unit both runs have: p = 1, left out of the Holm adjustment"

// adjust sets each tested metric's Holm-adjusted p-value within its
// family (gated or not) and its verdict at alpha; the metrics in same
// (identical in both runs) keep p = 1 and are left out of the families.
func adjust(ms []schema.MetricChange, alpha float64, same map[string]bool) {
	for _, gated := range []bool{true, false} {
		var idx []int
		var ps []float64
		for i, m := range ms {
			if m.Test == schema.TestNone || m.Gated != gated {
				continue
			}
			if same[m.Metric] {
				ms[i].PAdjusted, ms[i].Verdict, ms[i].Note = m.P, schema.VerdictNoDifference, identicalNote
				continue
			}
			p := math.NaN()
			if m.P != nil {
				p = *m.P
			}
			idx = append(idx, i)
			ps = append(ps, p)
		}
		for k, pa := range infer.Holm(ps) {
			m := &ms[idx[k]]
			m.PAdjusted = num(pa)
			d := math.NaN()
			if m.Diff != nil {
				d = *m.Diff
			}
			dir := infer.HigherIsBetter
			if m.LowerBetter {
				dir = infer.LowerIsBetter
			}
			m.Verdict = string(infer.Decide(d, pa, alpha, dir))
		}
	}
}

// sortChanges puts the significant regressions first (gated ones first,
// smallest adjusted p first), then the improvements, then the rest by
// address.
func sortChanges(ms []schema.MetricChange) {
	rank := func(m schema.MetricChange) int {
		switch m.Verdict {
		case schema.VerdictWorse:
			return 0
		case schema.VerdictBetter:
			return 1
		}
		return 2
	}
	p := func(m schema.MetricChange) float64 {
		if m.PAdjusted == nil {
			return 2
		}
		return *m.PAdjusted
	}
	slices.SortStableFunc(ms, func(x, y schema.MetricChange) int {
		if c := cmp.Compare(rank(x), rank(y)); c != 0 || rank(x) == 2 {
			return cmp.Or(c, strings.Compare(x.Metric, y.Metric))
		}
		gx, gy := 1, 1
		if x.Gated {
			gx = 0
		}
		if y.Gated {
			gy = 0
		}
		return cmp.Or(cmp.Compare(gx, gy), cmp.Compare(p(x), p(y)), strings.Compare(x.Metric, y.Metric))
	})
}

// unitPairs counts each kind of unit of both runs.
func unitPairs(a, b *assert.Units) []schema.UnitPairs {
	var kinds []string
	for _, f := range append(slices.Clone(a.Figures()), b.Figures()...) {
		if !slices.Contains(kinds, f.Unit) {
			kinds = append(kinds, f.Unit)
		}
	}
	var out []schema.UnitPairs
	for _, k := range kinds {
		up := schema.UnitPairs{Unit: k}
		a.Each(k, func(key uint64, _ uint32) {
			if _, ok := b.Find(k, key); ok {
				up.Paired++
			} else {
				up.OnlyBaseline++
			}
		})
		up.OnlyCandidate = b.Len(k) - up.Paired
		if up.Paired+up.OnlyBaseline+up.OnlyCandidate > 0 {
			out = append(out, up)
		}
	}
	return out
}

// pair is a distinct pair of vectors of the units both runs have, with
// how many units have it.
type pair struct {
	a, b []float64
	n    int64
}

// joined returns the distinct pairs of vectors of the units of kind unit
// both runs have.
func joined(a, b *assert.Units, unit string) []pair {
	index := map[[2]uint32]int{}
	var out []pair
	a.Each(unit, func(h uint64, ia uint32) {
		ib, ok := b.Find(unit, h)
		if !ok {
			return
		}
		k := [2]uint32{ia, ib}
		i, seen := index[k]
		if !seen {
			i = len(out)
			index[k] = i
			out = append(out, pair{a: a.Vector(unit, ia), b: b.Vector(unit, ib)})
		}
		out[i].n++
	})
	// A fixed order (the runs' maps have none), so resamples are
	// reproducible.
	slices.SortFunc(out, func(x, y pair) int {
		return cmp.Or(slices.Compare(x.a, y.a), slices.Compare(x.b, y.b))
	})
	return out
}

// testFigures tests every figure both runs' units make; same holds those
// whose numbers are equal in both runs on every paired unit.
func testFigures(a, b *assert.Units, o infer.Options) (out []schema.MetricChange, same map[string]bool) {
	same = map[string]bool{}
	fb := map[string]assert.Figure{}
	for _, f := range b.Figures() {
		fb[f.Addr] = f
	}
	pairs := map[string][]pair{}
	labels := map[string]schema.MetricChange{} // label averages, tested together
	for _, fa := range a.Figures() {
		g, ok := fb[fa.Addr]
		if !ok || g.Kind != fa.Kind || g.Unit != fa.Unit {
			continue
		}
		ps, ok := pairs[fa.Unit]
		if !ok {
			ps = joined(a, b, fa.Unit)
			pairs[fa.Unit] = ps
		}
		oo := infer.CompareOptions{Options: o}
		oo.Address = "compare " + fa.Addr
		var mc schema.MetricChange
		if fa.Kind == assert.LabelAverage {
			if _, done := labels[fa.Addr]; !done {
				labelAverages(a, fa, fb, ps, o, labels)
			}
			mc = labels[fa.Addr]
		} else {
			mc = testFigure(fa, g, ps, oo)
		}
		if mc.Paired > 0 {
			out = append(out, mc)
			same[fa.Addr] = identical(ps, fa, g)
		}
	}
	return out, same
}

// identical reports whether the figure reads the same from both runs on
// every paired unit: a pass/fail figure the same pass and count, a mean
// the same value, any other figure the same numbers. A pass/fail figure
// reads only some of its contribution's numbers (the error rate of cases
// whose pass or fail changed but which errored in neither run is
// identical).
func identical(ps []pair, fa, fb assert.Figure) bool {
	for _, x := range ps {
		va, vb := x.a[fa.Off:fa.Off+fa.Width], x.b[fb.Off:fb.Off+fb.Width]
		switch {
		case fa.Kind == assert.PassFail && fa.Pass != nil && fb.Pass != nil:
			pa, ca := fa.Pass(va)
			pb, cb := fb.Pass(vb)
			if pa != pb || ca != cb {
				return false
			}
		case fa.Kind == assert.Mean && fa.Value != nil && fb.Value != nil:
			a, oka := fa.Value(va)
			b, okb := fb.Value(vb)
			if oka != okb || oka && a != b {
				return false
			}
		default:
			if !slices.Equal(va, vb) {
				return false
			}
		}
	}
	return true
}

// testFigure compares figure fa of the baseline with fb of the candidate
// over the joined pairs.
func testFigure(fa, fb assert.Figure, ps []pair, o infer.CompareOptions) schema.MetricChange {
	va := func(x pair) []float64 { return x.a[fa.Off : fa.Off+fa.Width] }
	vb := func(x pair) []float64 { return x.b[fb.Off : fb.Off+fb.Width] }
	var c infer.Comparison
	var n int64
	switch fa.Kind {
	case assert.PassFail:
		c, n = passFail(fa, fb, ps, va, vb, o)
	case assert.Sums:
		c, n = sums(fa, fb, ps, va, vb, o)
	case assert.Mean:
		c, n = means(fa, fb, ps, va, vb, o)
	}
	return change(fa, c, n)
}

// change is the row of a tested figure.
func change(f assert.Figure, c infer.Comparison, n int64) schema.MetricChange {
	mc := schema.MetricChange{Metric: f.Addr, Unit: f.Unit, Paired: n}
	mc.Baseline, mc.Candidate, mc.Diff = num(c.Baseline), num(c.Candidate), num(c.Diff)
	mc.Test = string(c.Test)
	if c.Test == infer.TestNone {
		mc.Test = schema.TestNone
		mc.Note = cmp.Or(c.Interval.Note, "no units to compare")
	} else {
		mc.P = num(c.P)
	}
	if c.Interval.OK {
		mc.CILow, mc.CIHigh = num(c.Interval.Lo), num(c.Interval.Hi)
	}
	return mc
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// passFail: the paired bootstrap of the difference of the pass rates
// over the units counted in either run (each run's rate over its counted
// units, as its report has it), McNemar's exact test on the units
// counted in both.
func passFail(fa, fb assert.Figure, ps []pair, va, vb func(pair) []float64, o infer.CompareOptions) (infer.Comparison, int64) {
	t := infer.NewTally(4)
	var pc infer.PairCounts
	for _, x := range ps {
		pa, ca := fa.Pass(va(x))
		pb, cb := fb.Pass(vb(x))
		if !ca && !cb {
			continue
		}
		t.AddN(x.n, b01(pa && ca), b01(ca), b01(pb && cb), b01(cb))
		if !ca || !cb {
			continue
		}
		switch {
		case pa && pb:
			pc.Both += x.n
		case pa:
			pc.BaselineOnly += x.n
		case pb:
			pc.CandidateOnly += x.n
		default:
			pc.Neither += x.n
		}
	}
	if t.N() == 0 {
		return infer.Comparison{Baseline: math.NaN(), Candidate: math.NaN(), Diff: math.NaN(), P: math.NaN(), Test: infer.TestNone}, 0
	}
	c := t.Compare(func(s []float64) float64 { return s[0] / s[1] }, func(s []float64) float64 { return s[2] / s[3] }, o)
	c.P, c.Test = infer.McNemarExact(pc.BaselineOnly, pc.CandidateOnly), infer.TestMcNemar
	return c, pc.Both + pc.BaselineOnly + pc.CandidateOnly + pc.Neither
}

// sums: the paired bootstrap of the figure of the summed numbers, over
// the units that count in either run.
func sums(fa, fb assert.Figure, ps []pair, va, vb func(pair) []float64, o infer.CompareOptions) (infer.Comparison, int64) {
	w := fa.Width
	t := infer.NewTally(w + fb.Width)
	row := make([]float64, w+fb.Width)
	for _, x := range ps {
		a, b := va(x), vb(x)
		if a[0] == 0 && b[0] == 0 {
			continue
		}
		copy(row, a)
		copy(row[w:], b)
		t.AddN(x.n, row...)
	}
	if t.N() == 0 {
		return infer.Comparison{Baseline: math.NaN(), Candidate: math.NaN(), Diff: math.NaN(), P: math.NaN(), Test: infer.TestNone}, 0
	}
	c := t.Compare(func(s []float64) float64 { return fa.Stat(s[:w]) }, func(s []float64) float64 { return fb.Stat(s[w:]) }, o)
	return c, t.N()
}

// means: the mean of the values of the units with a value in both runs,
// compared by the sign-flip permutation test.
func means(fa, fb assert.Figure, ps []pair, va, vb func(pair) []float64, o infer.CompareOptions) (infer.Comparison, int64) {
	t := infer.NewTally(2)
	for _, x := range ps {
		a, oka := fa.Value(va(x))
		b, okb := fb.Value(vb(x))
		if oka && okb {
			t.AddN(x.n, a, b)
		}
	}
	if t.N() == 0 {
		return infer.Comparison{Baseline: math.NaN(), Candidate: math.NaN(), Diff: math.NaN(), P: math.NaN(), Test: infer.TestNone}, 0
	}
	return t.CompareMeans(o), t.N()
}

// labelAverages tests the averages of the label dimension whose average
// f is, each run's from its half of the joined confusion cells, over one
// set of resamples (the stream of the dimension's address), and puts
// their rows in done.
func labelAverages(a *assert.Units, f assert.Figure, fb map[string]assert.Figure, ps []pair, o infer.Options, done map[string]schema.MetricChange) {
	var group, other []assert.Figure
	for _, x := range a.Figures() {
		if y, ok := fb[x.Addr]; ok && x.Kind == assert.LabelAverage && y.Kind == assert.LabelAverage && x.Off == f.Off {
			group, other = append(group, x), append(other, y)
		}
	}
	var cellsA, cellsB []metrics.LabelCell
	var atA, atB []int // the items' places among each run's cells, −1: none
	var counts []int64
	var units int64
	for _, x := range ps {
		va, vb := x.a[f.Off:f.Off+f.Width], x.b[other[0].Off:other[0].Off+other[0].Width]
		if va[0] == 0 && vb[0] == 0 {
			continue
		}
		counts, units = append(counts, x.n), units+x.n
		atA, cellsA = appendCell(atA, cellsA, va)
		atB, cellsB = appendCell(atB, cellsB, vb)
	}
	if len(counts) == 0 {
		return
	}
	p := a.Pairing()
	n := len(p.Labels())
	stat := func(figs []assert.Figure, cells []metrics.LabelCell, at []int) func(w []int64, out []float64) {
		avg := metrics.LabelAverages(cells, n, fixedIndexes(figs[0].Fixed, p))
		w2 := make([]int64, len(cells))
		all := make([]float64, 5)
		return func(w []int64, out []float64) {
			clear(w2)
			for k, i := range at {
				if i >= 0 {
					w2[i] += w[k]
				}
			}
			avg(w2, all)
			for i, g := range figs {
				out[i] = all[g.Average]
			}
		}
	}
	oo := infer.CompareOptions{Options: o}
	oo.Address = "compare " + f.Addr[:strings.LastIndexByte(f.Addr, '.')] // the dimension's
	for i, c := range infer.ComparePairedVec(counts, len(group), stat(group, cellsA, atA), stat(other, cellsB, atB), oo) {
		done[group[i].Addr] = change(group[i], c, units)
	}
}

// appendCell adds the cell of a unit's numbers (count, expected,
// predicted) when it counts, and its place (−1 when it does not).
func appendCell(at []int, cells []metrics.LabelCell, v []float64) ([]int, []metrics.LabelCell) {
	if v[0] == 0 {
		return append(at, -1), cells
	}
	return append(at, len(cells)), append(cells, metrics.LabelCell{Expected: int(v[1]), Predicted: int(v[2])})
}

// fixedIndexes are the declared labels' indexes (nil: none declared).
func fixedIndexes(labels []string, p *assert.Pairing) []int {
	if labels == nil {
		return nil
	}
	out := make([]int, len(labels))
	for i, l := range labels {
		out[i] = p.LabelIndex(l)
	}
	return out
}
