package infer

import (
	"math"
	"slices"
	"testing"
)

func accuracy(s []float64) float64 { return s[0] / s[1] }

// passFail is a tally of (passed, counted) for n cases of which passed
// passed.
func passFail(passed, n int64) *Tally {
	t := NewTally(2)
	t.AddN(passed, 1, 1)
	t.AddN(n-passed, 0, 1)
	return t
}

// TestBootstrapReproducible: the same seed and address give the same
// interval bit for bit; another address or seed gives another; and the
// figures themselves are pinned, so a change of generator, sampler or
// quantile rule shows here.
func TestBootstrapReproducible(t *testing.T) {
	tl := passFail(891, 1000)
	o := Options{Address: "metrics.accuracy"}
	a, b := tl.Bootstrap(accuracy, o), tl.Bootstrap(accuracy, o)
	if a != b {
		t.Fatalf("same options, different intervals: %+v, %+v", a, b)
	}
	if c := tl.Bootstrap(accuracy, Options{Address: "metrics.split.smoke.accuracy"}); c.Lo == a.Lo && c.Hi == a.Hi {
		t.Errorf("another address gave the same interval %v, %v", c.Lo, c.Hi)
	}
	if c := tl.Bootstrap(accuracy, Options{Address: "metrics.accuracy", Seed: 7}); c.Lo == a.Lo && c.Hi == a.Hi {
		t.Errorf("another seed gave the same interval %v, %v", c.Lo, c.Hi)
	}
	// Pinned: DefaultSeed, address "metrics.accuracy", B = 1,000.
	if a.Estimate != 0.891 || a.Lo != 0.872 || a.Hi != 0.91 || a.Resamples != 1000 || !a.OK || a.Method != MethodPercentile {
		t.Errorf("interval = %+v; pinned 0.891 [0.872, 0.91] from 1000 resamples", a)
	}
	if a.Lo > 0.8906582073569279 || a.Hi < 0.926203850684917-0.02 {
		t.Errorf("bootstrap interval %v, %v far from Wilson's [0.8907, 0.9262]", a.Lo, a.Hi)
	}
}

// TestBootstrapOfAccuracyIsBinomial: resampling n cases of which k
// passed gives a number of passes that is exactly Binomial(n, k/n), so
// the replicates of the accuracy times n must fit that distribution.
func TestBootstrapOfAccuracyIsBinomial(t *testing.T) {
	const n, k = 60, 41
	tl := passFail(k, n)
	reps := Replicates(tl.Counts(), tl.sumsStat(accuracy), Options{Resamples: 100000, Address: "binomial-check"})
	obs := make([]int64, n+1)
	for _, r := range reps {
		obs[int(math.Round(r*n))]++
	}
	prob := make([]float64, n+1)
	for i := range prob {
		prob[i] = BinomialPMF(int64(i), n, float64(k)/n)
	}
	if x2, df, p := goodnessOfFit(obs, prob, len(reps)); p < 0.001 {
		t.Errorf("bootstrap accuracy of %d/%d: chi-square %.1f on %d df, p = %.2g against Binomial(%d, %d/%d)", k, n, x2, df, p, n, k, n)
	}
}

// TestBootstrapMatchesCaseResampling compares the multinomial bootstrap
// of an F1 with the textbook one that draws n case indexes with
// replacement: the two replicate distributions must have the same mean
// and standard deviation (within Monte Carlo error).
func TestBootstrapMatchesCaseResampling(t *testing.T) {
	cases := [][3]float64{}
	for i := range 500 {
		// (correct, recognised, expected) per case: a few slot patterns.
		cases = append(cases, [3]float64{float64(i % 3 % 2), float64(i % 4 % 3), float64(1 + i%5%2)})
	}
	tl := NewTally(3)
	for _, c := range cases {
		tl.Add(c[0], c[1], c[2])
	}
	const b = 20000
	fast := Replicates(tl.Counts(), tl.sumsStat(f1), Options{Resamples: b, Address: "fast"})
	s := NewStream(3, "slow")
	slow := make([]float64, b)
	for r := range slow {
		var sums [3]float64
		for range cases {
			c := cases[s.Below(uint64(len(cases)))]
			for d := range sums {
				sums[d] += c[d]
			}
		}
		slow[r] = f1(sums[:])
	}
	mf, sf := meanSD(fast)
	ms, ss := meanSD(slow)
	if math.Abs(mf-ms) > 4*sf*math.Sqrt(2.0/b) || math.Abs(sf/ss-1) > 4/math.Sqrt(b) {
		t.Errorf("multinomial bootstrap mean %.5f sd %.5f; case resampling mean %.5f sd %.5f", mf, sf, ms, ss)
	}
}

func meanSD(v []float64) (float64, float64) {
	m := mean(v)
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

// TestBootstrapIsPercentileOfReplicates: the interval is numpy's linear
// quantiles of the replicates at (1∓conf)/2.
func TestBootstrapIsPercentileOfReplicates(t *testing.T) {
	tl := NewTally(3)
	for i := range 300 {
		tl.Add(float64(i%4%3), float64(i%5%3), float64(1+i%3%2))
	}
	o := Options{Conf: 0.9, Resamples: 777, Address: "pct"}
	iv := tl.Bootstrap(f1, o)
	reps := Replicates(tl.Counts(), tl.sumsStat(f1), o)
	slices.Sort(reps)
	conf := 0.9
	if iv.Lo != Quantile(reps, (1-conf)/2) || iv.Hi != Quantile(reps, (1+conf)/2) || iv.Resamples != 777 || iv.Conf != 0.9 {
		t.Errorf("interval %+v is not the 5 %% and 95 %% quantiles %v, %v of its replicates", iv, Quantile(reps, 0.05), Quantile(reps, 0.95))
	}
}

// TestTallyOrderAndMerge: the same cases added in another order, or
// split over tallies that are merged, give the same items, sums and
// interval bit for bit.
func TestTallyOrderAndMerge(t *testing.T) {
	vecs := [][]float64{}
	for i := range 1000 {
		vecs = append(vecs, []float64{float64(i % 7 % 3), 0.1 * float64(i%11), 1})
	}
	a := NewTally(3)
	for _, v := range vecs {
		a.Add(v...)
	}
	b := NewTally(3)
	for i := len(vecs) - 1; i >= 0; i-- {
		b.Add(vecs[i]...)
	}
	c1, c2 := NewTally(3), NewTally(3)
	for i, v := range vecs {
		if i%3 == 0 {
			c1.Add(v...)
		} else {
			c2.Add(v...)
		}
	}
	c2.Merge(c1)
	stat := func(s []float64) float64 { return s[1] / s[2] * s[0] }
	want := a.Bootstrap(stat, Options{Address: "m"})
	for name, o := range map[string]*Tally{"reversed": b, "merged": c2} {
		if o.N() != a.N() || o.Len() != a.Len() || !slices.Equal(o.Counts(), a.Counts()) || !slices.Equal(o.Sums(), a.Sums()) {
			t.Errorf("%s tally: N %d Len %d sums %v; want %d %d %v", name, o.N(), o.Len(), o.Sums(), a.N(), a.Len(), a.Sums())
		}
		if got := o.Bootstrap(stat, Options{Address: "m"}); got != want {
			t.Errorf("%s tally: interval %+v; want %+v", name, got, want)
		}
	}
	for k := 1; k < a.Len(); k++ {
		prev, _ := a.Item(k - 1)
		cur, _ := a.Item(k)
		if slices.Compare(prev, cur) >= 0 {
			t.Fatalf("items %d and %d out of order: %v, %v", k-1, k, prev, cur)
		}
	}
	// −0 and 0 are the same contribution.
	z := NewTally(1)
	z.Add(0)
	z.Add(math.Copysign(0, -1))
	if z.Len() != 1 || z.N() != 2 {
		t.Errorf("0 and −0 make %d items", z.Len())
	}
}

func TestTallyRejectsWrongDimension(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("adding 2 numbers to a tally of 3 did not panic")
		}
	}()
	NewTally(3).Add(1, 2)
}

// TestBootstrapBudget: past the budget there is no bootstrap; Ratio then
// gives the t interval with a note, which is the textbook t interval for
// a mean.
func TestBootstrapBudget(t *testing.T) {
	tl := NewTally(2)
	vals := []float64{}
	for i := range 50 {
		v := float64(i*i%37) + 0.5
		vals = append(vals, v)
		tl.Add(v, 1)
	}
	o := Options{Budget: int64(tl.Len()-1) * 1000, Address: "budget"}
	if iv := tl.Bootstrap(accuracy, o); iv.OK || iv.Resamples != 0 || iv.Note == "" || !math.IsNaN(iv.Lo) {
		t.Errorf("over budget: %+v; want no interval and a note", iv)
	}
	iv := tl.Ratio(0, 1, o)
	m, sd := meanSD(vals)
	half := StudentQuantile(0.975, 49) * sd / math.Sqrt(50)
	if !iv.OK || iv.Method != MethodT || iv.Note == "" || !near(iv.Lo, m-half, 1e-13) || !near(iv.Hi, m+half, 1e-13) {
		t.Errorf("Ratio over budget = %+v; want the t interval %v ± %v", iv, m, half)
	}
	if iv := tl.Ratio(0, 1, Options{Address: "budget"}); iv.Method != MethodPercentile || !iv.OK {
		t.Errorf("Ratio within budget = %+v; want the bootstrap", iv)
	}
}

// TestRatioFallbackAgreesWithBootstrap measures the claim of Ratio's doc:
// at the smallest sample the default budget sends to the t interval, on
// log-normal (σ = 1) values, the t interval's end points are within 15 %
// of its half-width of the bootstrap's.
func TestRatioFallbackAgreesWithBootstrap(t *testing.T) {
	n := DefaultBudget/DefaultResamples + 1
	worst := 0.0
	for seed := uint64(1); seed <= 20; seed++ {
		s := NewStream(seed, "lognormal")
		tl := NewTally(2)
		for range n {
			tl.Add(math.Exp(s.Normal()), 1)
		}
		tiv := tl.Ratio(0, 1, Options{})
		if tiv.Method != MethodT {
			t.Fatalf("%d distinct values: %s, want the t interval", n, tiv.Method)
		}
		biv := tl.Bootstrap(accuracy, Options{Budget: math.MaxInt64})
		half := (tiv.Hi - tiv.Lo) / 2
		worst = math.Max(worst, math.Max(math.Abs(tiv.Lo-biv.Lo), math.Abs(tiv.Hi-biv.Hi))/half)
	}
	t.Logf("n = %d: worst end point difference %.1f %% of the half-width", n, 100*worst)
	if worst > 0.15 {
		t.Errorf("n = %d: t and bootstrap end points differ by %.1f %% of the half-width; Ratio's doc says within 15 %%", n, 100*worst)
	}
}

// TestBootstrapUndefined: resamples on which the statistic is NaN are
// counted and left out.
func TestBootstrapUndefined(t *testing.T) {
	tl := NewTally(2)
	tl.Add(1, 1)
	tl.AddN(9, 0, 0)
	iv := tl.Bootstrap(accuracy, Options{Address: "nan"})
	// P(no (1,1) case among 10 draws) = 0.9¹⁰ ≈ 0.349.
	if iv.Undefined < 300 || iv.Undefined > 400 || !iv.OK || iv.Lo != 1 || iv.Hi != 1 {
		t.Errorf("interval %+v; want about 349 undefined resamples and [1, 1]", iv)
	}
	none := NewTally(2)
	none.AddN(5, 0, 0)
	if iv := none.Bootstrap(accuracy, Options{}); iv.OK || iv.Undefined != DefaultResamples || iv.Note == "" {
		t.Errorf("always undefined: %+v", iv)
	}
}

// TestBootstrapMacroF1OverCells: a statistic of the multiplicities
// themselves — macro-F1 over the confusion matrix, each case one cell
// (expected, predicted) — bootstrapped by Bootstrap has the replicate
// mean and spread of resampling the cases one by one.
func TestBootstrapMacroF1OverCells(t *testing.T) {
	const labels = 4
	type cell struct{ exp, pred int }
	var cases []cell
	for i := range 600 {
		e := i % labels
		p := e
		if i%7 == 0 || i%11 == 0 {
			p = (e + 1 + i%3) % labels
		}
		cases = append(cases, cell{e, p})
	}
	index := map[cell]int{}
	var cells []cell
	var counts []int64
	for _, c := range cases {
		k, ok := index[c]
		if !ok {
			k = len(cells)
			index[c] = k
			cells = append(cells, c)
			counts = append(counts, 0)
		}
		counts[k]++
	}
	macro := func(w []int64) float64 {
		var tp, fp, fn [labels]float64
		for k, c := range cells {
			x := float64(w[k])
			if c.exp == c.pred {
				tp[c.exp] += x
			} else {
				fn[c.exp] += x
				fp[c.pred] += x
			}
		}
		var s float64
		for l := range labels {
			if d := 2*tp[l] + fp[l] + fn[l]; d > 0 {
				s += 2 * tp[l] / d
			}
		}
		return s / labels
	}
	const b = 20000
	fast := Replicates(counts, macro, Options{Resamples: b, Address: "macro"})
	s := NewStream(8, "macro-slow")
	slow := make([]float64, b)
	w := make([]int64, len(cells))
	for r := range slow {
		clear(w)
		for range cases {
			w[index[cases[s.Below(uint64(len(cases)))]]]++
		}
		slow[r] = macro(w)
	}
	mf, sf := meanSD(fast)
	ms, ss := meanSD(slow)
	if math.Abs(mf-ms) > 4*sf*math.Sqrt(2.0/b) || math.Abs(sf/ss-1) > 4/math.Sqrt(b) {
		t.Errorf("macro-F1: multinomial bootstrap mean %.5f sd %.5f; case resampling mean %.5f sd %.5f", mf, sf, ms, ss)
	}
	if iv := Bootstrap(counts, macro, Options{}); !iv.OK || !(iv.Lo < iv.Estimate && iv.Estimate < iv.Hi) {
		t.Errorf("macro-F1 interval %+v does not hold its estimate", iv)
	}
}

// TestEmptySamples: nothing to resample gives no interval, not a panic.
func TestEmptySamples(t *testing.T) {
	if iv := NewTally(2).Ratio(0, 1, Options{}); iv.OK {
		t.Errorf("empty tally: %+v", iv)
	}
	if iv := Bootstrap(nil, func([]int64) float64 { return math.NaN() }, Options{}); iv.OK {
		t.Errorf("empty sample: %+v", iv)
	}
	c := ComparePassFail(PairCounts{}, CompareOptions{})
	if c.Interval.OK || c.P != 1 || c.Verdict != NoDifference {
		t.Errorf("no paired cases: %+v", c)
	}
	if p, test := SignFlip(nil, Options{}); !math.IsNaN(p) || test != TestNone {
		t.Errorf("SignFlip(nil) = %v, %q", p, test)
	}
	if p, test := SignFlip([]float64{0, 0, 0}, Options{}); p != 1 || test != TestSignFlipExact {
		t.Errorf("SignFlip(0, 0, 0) = %v, %q; want 1 (exact)", p, test)
	}
}

// TestBootstrapAllSharesResamples: several statistics bootstrapped
// together get exactly the intervals each gets alone with the same
// options, from one set of draws.
func TestBootstrapAllSharesResamples(t *testing.T) {
	tl := NewTally(3)
	for i := range 700 {
		tl.Add(float64(i%3%2), float64(i%4%3), float64(1+i%5%2))
	}
	precision := func(s []float64) float64 { return s[0] / s[1] }
	recall := func(s []float64) float64 { return s[0] / s[2] }
	o := Options{Address: "metrics.dimension.slots"}
	all := tl.BootstrapAll([]func([]float64) float64{precision, recall, f1}, o)
	for i, stat := range []func([]float64) float64{precision, recall, f1} {
		if alone := tl.Bootstrap(stat, o); all[i] != alone {
			t.Errorf("statistic %d: together %+v, alone %+v", i, all[i], alone)
		}
	}
	over := tl.BootstrapAll([]func([]float64) float64{precision, recall}, Options{Budget: 1})
	if over[0].OK || over[1].OK || over[1].Note == "" {
		t.Errorf("over budget: %+v", over)
	}
}

// BootstrapVec computes several statistics of a resample together (one
// call a resample) and gives each the interval Bootstrap gives it alone.
func TestBootstrapVecEqualsAlone(t *testing.T) {
	counts := []int64{120, 7, 33, 1, 59}
	share := func(k int) func(w []int64) float64 {
		return func(w []int64) float64 {
			var n int64
			for _, x := range w {
				n += x
			}
			return float64(w[k]) / float64(n)
		}
	}
	o := Options{Address: "metrics.label.intent.macro_f1", Seed: 7}
	vec := BootstrapVec(counts, 3, func(w []int64, out []float64) {
		for k := range out {
			out[k] = share(k)(w)
		}
	}, o)
	for k := range 3 {
		if alone := Bootstrap(counts, share(k), o); vec[k] != alone || !alone.OK {
			t.Errorf("statistic %d: together %+v, alone %+v", k, vec[k], alone)
		}
	}
}
