package infer

import (
	"fmt"
	"math"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples (B) and of Monte
// Carlo permutations when Options leaves it 0: 1,000, the least Efron &
// Tibshirani ("An Introduction to the Bootstrap", §19.3) advise for
// percentile intervals. The end points of a 95 % interval then move by
// about 0.085 standard errors of the statistic from one seed to another
// (the standard error of the 2.5 % quantile of B normal draws,
// √(0.025·0.975/B)/φ(1.96)); 2,000 would make it 0.06 at twice the cost.
// A bootstrap p-value's resolution is 1/(B+1).
const DefaultResamples = 1000

// DefaultConf is the confidence level of intervals when Options leaves it 0.
const DefaultConf = 0.95

// DefaultBudget is the most work a bootstrap does when Options leaves its
// Budget 0, counted as distinct contributions × resamples: 2²⁰
// (1,048,576), that is 1,048 distinct contributions at 1,000 resamples,
// a few tens of milliseconds (BenchmarkBootstrap; docs/statistics.md). A
// statistic with more distinct contributions gets no bootstrap interval:
// Tally.Ratio (means, ratios) gives the t interval instead, and
// Tally.CompareMeans the paired t test.
const DefaultBudget = 1 << 20

// Options set a resampling procedure. The zero value selects every
// default.
type Options struct {
	Resamples int     // B; 0 selects DefaultResamples
	Conf      float64 // confidence level; 0 selects DefaultConf
	Seed      uint64  // 0 selects DefaultSeed
	// Address names the statistic (its metric's address, for example
	// "metrics.split.smoke.accuracy"); it is mixed into the seed so that
	// every statistic has its own stream (NewStream).
	Address string
	Budget  int64 // most distinct items × resamples; 0 selects DefaultBudget
}

func (o Options) withDefaults() Options {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if !(o.Conf > 0 && o.Conf < 1) {
		o.Conf = DefaultConf
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	return o
}

// Method names how an interval was obtained.
type Method string

// The methods of Interval.
const (
	MethodWilson     Method = "wilson"
	MethodPercentile Method = "percentile bootstrap"
	MethodT          Method = "t"
)

// Interval is a confidence interval for a statistic.
type Interval struct {
	Estimate  float64 // the statistic on the sample itself
	Lo, Hi    float64
	Conf      float64
	Method    Method
	Resamples int // bootstrap resamples drawn (0 for other methods)
	// Undefined counts the resamples on which the statistic was NaN (for
	// example a ratio whose resampled denominator is 0); the percentiles
	// are those of the other resamples.
	Undefined int
	// Note says why the interval is not a percentile bootstrap, or why
	// there is none (OK false).
	Note string
	OK   bool
}

// Replicates draws o.Resamples case-bootstrap resamples of a sample given
// as the multiplicities of its distinct contributions (counts[k] cases
// contributed item k) and returns the statistic of each: stat receives
// the resampled multiplicities w (same order as counts, Σw = Σcounts) and
// must not keep or change w. Each resample is one exact multinomial draw
// (see multinomial), so the cost is O(len(counts)) a resample whatever the
// number of cases, and the stream is NewStream(o.Seed, o.Address): the
// same arguments give the same replicates bit for bit. No budget applies.
func Replicates(counts []int64, stat func(w []int64) float64, o Options) []float64 {
	return ReplicatesAll(counts, []func(w []int64) float64{stat}, o)[0]
}

// ReplicatesAll is Replicates for several statistics of the same sample
// over the same resamples: one multinomial draw a resample, shared by
// every statistic (out[i] holds stats[i]'s replicates). Each statistic's
// replicates are those Replicates would give it alone with the same
// options.
func ReplicatesAll(counts []int64, stats []func(w []int64) float64, o Options) [][]float64 {
	return ReplicatesVec(counts, len(stats), func(w []int64, out []float64) {
		for i, stat := range stats {
			out[i] = stat(w)
		}
	}, o)
}

// ReplicatesVec is ReplicatesAll for n statistics computed together, as
// when they share their work (a label dimension's per-label counts feed
// its macro and micro averages and every label's F1): stat sets out[0:n]
// to the statistics of the resample w and must keep neither slice.
// out[i] of the result holds statistic i's replicates, the same as
// ReplicatesAll gives with the same options.
func ReplicatesVec(counts []int64, n int, stat func(w []int64, out []float64), o Options) [][]float64 {
	o = o.withDefaults()
	s := NewStream(o.Seed, o.Address)
	m := newMultinomial(counts)
	w := make([]int64, len(counts))
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, o.Resamples)
	}
	vals := make([]float64, n)
	for b := range o.Resamples {
		m.draw(s, w)
		stat(w, vals)
		for i, v := range vals {
			out[i][b] = v
		}
	}
	return out
}

// Bootstrap returns the percentile bootstrap interval (Efron & Tibshirani,
// "An Introduction to the Bootstrap", §13.3) of stat over the sample
// counts (see Replicates): the (1−conf)/2 and (1+conf)/2 quantiles of the
// replicates by Quantile. When len(counts)·B exceeds the budget it draws
// nothing and returns OK false with a Note.
func Bootstrap(counts []int64, stat func(w []int64) float64, o Options) Interval {
	return BootstrapAll(counts, []func(w []int64) float64{stat}, o)[0]
}

// BootstrapAll is Bootstrap for several statistics of the same sample —
// a dimension's precision, recall, F1 and error rate from one tally of
// (correct, recognised, expected) — drawing the resamples once
// (ReplicatesAll). The budget counts the draws once, not per statistic.
func BootstrapAll(counts []int64, stats []func(w []int64) float64, o Options) []Interval {
	return BootstrapVec(counts, len(stats), func(w []int64, out []float64) {
		for i, stat := range stats {
			out[i] = stat(w)
		}
	}, o)
}

// BootstrapVec is BootstrapAll for n statistics computed together
// (ReplicatesVec): the estimate of each is stat on counts itself.
func BootstrapVec(counts []int64, n int, stat func(w []int64, out []float64), o Options) []Interval {
	o = o.withDefaults()
	out := make([]Interval, n)
	est := make([]float64, n)
	stat(counts, est)
	for i := range out {
		out[i] = Interval{Estimate: est[i], Conf: o.Conf, Method: MethodPercentile}
	}
	if work := int64(len(counts)) * int64(o.Resamples); work > o.Budget {
		for i := range out {
			out[i].Lo, out[i].Hi = math.NaN(), math.NaN()
			out[i].Note = fmt.Sprintf("%d distinct contributions × %d resamples exceed the bootstrap budget of %d", len(counts), o.Resamples, o.Budget)
		}
		return out
	}
	for i, reps := range ReplicatesVec(counts, n, stat, o) {
		iv := &out[i]
		iv.Resamples = len(reps)
		iv.Lo, iv.Hi, iv.Undefined = Percentile(reps, o.Conf)
		iv.OK = !math.IsNaN(iv.Lo)
		if !iv.OK {
			iv.Note = "the statistic is undefined on every resample"
		}
	}
	return out
}

// Percentile returns the percentile interval of replicates at conf: the
// (1−conf)/2 and (1+conf)/2 quantiles (Quantile) of the replicates that
// are not NaN, and how many were NaN. It sorts reps in place.
func Percentile(reps []float64, conf float64) (lo, hi float64, undefined int) {
	defined := reps[:0]
	for _, r := range reps {
		if math.IsNaN(r) {
			undefined++
			continue
		}
		defined = append(defined, r)
	}
	if len(defined) == 0 {
		return math.NaN(), math.NaN(), undefined
	}
	slices.Sort(defined)
	return Quantile(defined, (1-conf)/2), Quantile(defined, (1+conf)/2), undefined
}

// Quantile returns the q quantile of sorted values by linear interpolation
// between closest ranks (Hyndman & Fan's type 7), numpy.quantile's default
// method "linear", bit for bit: with h = q·(n−1), i = ⌊h⌋ and t = h − i,
// x[i] + t·(x[i+1] − x[i]), computed as x[i+1] − (1−t)·(x[i+1] − x[i])
// when t ≥ ½, as numpy's _lerp does.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	h := q * float64(n-1)
	if h <= 0 {
		return sorted[0]
	}
	if h >= float64(n-1) {
		return sorted[n-1]
	}
	i := int(math.Floor(h))
	t := h - float64(i)
	a, b := sorted[i], sorted[i+1]
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}
