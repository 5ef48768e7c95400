package infer

import (
	"fmt"
	"math"
	"slices"
)

// Point is one value of a series (one run's metric) with its standard
// error (0 when unknown).
type Point struct {
	Value, SE float64
}

// Null is the null distribution a change-point test draws from.
type Null int

const (
	// PermutationNull shuffles the points (value and standard error
	// together): valid whenever, without a change, the runs are
	// exchangeable — whatever their noise — so its false alarm rate is
	// at most alpha exactly. Its smallest p-value for a change at the
	// first or last point is about 2/n: a change in the newest run alone
	// is never found in a series shorter than 2/alpha (40 at 0.05).
	PermutationNull Null = iota
	// GaussianNull draws each point as normal around a common level with
	// variance SE² + τ², τ² being the run-to-run variance beyond the
	// standard errors, estimated from successive differences (so a single
	// step barely inflates it): Σ[(yᵢ₊₁−yᵢ)² − SEᵢ² − SEᵢ₊₁²] / 2(n−1),
	// at least 0. It can find a change in the last run of a short series,
	// and its false alarm rate is alpha when the points are normal with
	// those variances; τ² being estimated, it is near alpha otherwise
	// (TestChangePointFalseAlarms: 15 of 200 flat series at alpha 0.05
	// with run-to-run noise as large as the standard errors, 7 without).
	GaussianNull
)

// ChangeOptions set ChangePoints.
type ChangeOptions struct {
	Alpha     float64 // level of each test; 0 selects 0.05
	Resamples int     // Monte Carlo draws of the null; 0 selects 9,999
	Seed      uint64  // 0 selects DefaultSeed
	Address   string  // the series' name, mixed into the seed
	Null      Null
	// MinSegment is the fewest points on either side of a change; 0
	// selects 1, so a change in the newest run can be found.
	MinSegment int
}

// Change is a change in level found in a series.
type Change struct {
	Index         int     // the first point at the new level: the run where it changed
	Before, After float64 // weighted means of the tested segment's parts either side
	Z             float64 // the standardised difference After − Before
	P             float64 // Monte Carlo p-value of the segment's test
}

// ChangePoints finds the changes of level in a short series (a few to a
// few hundred points) by binary segmentation with a Monte Carlo test at
// each step. The statistic of a segment is the largest standardised
// difference between the weighted means either side of a split,
//
//	Z_k = (ȳ_right − ȳ_left) / √(1/W_left + 1/W_right),  M = max_k |Z_k|,
//
// with weights wᵢ = 1/SEᵢ² (1/(SEᵢ² + τ²) under GaussianNull; equal
// weights when a standard error is 0 under PermutationNull), which is the
// likelihood ratio statistic of one mean shift in normal data of known
// variances. Its p-value is (#{M* ≥ M} + 1)/(B + 1) over B draws M* of
// the segment under the null (see Null).
//
// The whole series is tested at alpha; when p < alpha the split of
// largest |Z| is a change. Then, round after round, each of the s
// segments the changes so far delimit is tested at alpha/s (Bonferroni
// over the round) and split where it rejects, until a round finds
// nothing. A series without any change is therefore flagged with
// probability at most alpha, and each further round adds a spurious change
// with probability at most alpha. Each segment's test has its own stream,
// NewStream(Seed, Address + "/change/" + first + "-" + end), so the
// answer does not depend on the order of the tests. The changes come in
// index order.
func ChangePoints(series []Point, o ChangeOptions) []Change {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	if o.Resamples <= 0 {
		o.Resamples = 9999
	}
	if o.MinSegment <= 0 {
		o.MinSegment = 1
	}
	return segmentRounds(len(series), o.Alpha, func(lo, hi int) (Change, bool) {
		return testSegment(series[lo:hi], o, fmt.Sprintf("%s/change/%d-%d", o.Address, lo, hi))
	})
}

// segmentRounds runs ChangePoints' rounds over n points: test tests the
// segment [lo, hi) and returns its best split (Index relative to lo) and
// p-value, ok false when the segment cannot be tested.
func segmentRounds(n int, alpha float64, test func(lo, hi int) (Change, bool)) []Change {
	var out []Change
	segs := [][2]int{{0, n}}
	tested := map[[2]int]Change{}
	for {
		level := alpha / float64(len(segs))
		var next [][2]int
		for _, seg := range segs {
			c, ok := tested[seg]
			if !ok {
				c, ok = test(seg[0], seg[1])
				if !ok {
					c.P = 1
				}
				c.Index += seg[0]
				tested[seg] = c
			}
			if c.P < level {
				out = append(out, c)
				next = append(next, [2]int{seg[0], c.Index}, [2]int{c.Index, seg[1]})
				continue
			}
			next = append(next, seg)
		}
		if len(next) == len(segs) {
			break
		}
		segs = next
	}
	slices.SortFunc(out, func(a, b Change) int { return a.Index - b.Index })
	return out
}

// testSegment tests one segment for a change; ok is false when it is too
// short to split or has no variation.
func testSegment(seg []Point, o ChangeOptions, address string) (Change, bool) {
	n := len(seg)
	if n < 2*o.MinSegment {
		return Change{}, false
	}
	y := make([]float64, n)
	for i, p := range seg {
		y[i] = p.Value
	}
	w, sd := segmentWeights(seg, o.Null)
	var sc scan
	m, k := sc.max(y, w, o.MinSegment)
	if !(m > 0) {
		return Change{}, false
	}
	s := NewStream(o.Seed, address)
	yy, ww := make([]float64, n), make([]float64, n)
	perm := make([]int, n)
	exceed := 0
	for range o.Resamples {
		if o.Null == GaussianNull {
			for i := range yy {
				yy[i] = sd[i] * s.Normal()
			}
			copy(ww, w)
		} else {
			shuffle(s, perm)
			for i, j := range perm {
				yy[i], ww[i] = y[j], w[j]
			}
		}
		if mm, _ := sc.max(yy, ww, o.MinSegment); mm >= m*(1-1e-12) {
			exceed++
		}
	}
	c := Change{Index: k, P: float64(exceed+1) / float64(o.Resamples+1)}
	c.Before, c.After, c.Z = sc.split(y, w, k)
	return c, true
}

// segmentWeights returns the weights of a segment's points and, for the
// Gaussian null, their standard deviations √(SE² + τ²).
func segmentWeights(seg []Point, null Null) (w, sd []float64) {
	n := len(seg)
	w, sd = make([]float64, n), make([]float64, n)
	if null == GaussianNull {
		var tau2 float64
		for i := 1; i < n; i++ {
			d := seg[i].Value - seg[i-1].Value
			tau2 += d*d - seg[i].SE*seg[i].SE - seg[i-1].SE*seg[i-1].SE
		}
		tau2 = math.Max(0, tau2/float64(2*(n-1)))
		for i, p := range seg {
			v := p.SE*p.SE + tau2
			sd[i] = math.Sqrt(v)
			w[i] = 1 / v
		}
		return w, sd
	}
	equal := false
	for _, p := range seg {
		if !(p.SE > 0) {
			equal = true
		}
	}
	for i, p := range seg {
		w[i] = 1
		if !equal {
			w[i] = 1 / (p.SE * p.SE)
		}
	}
	return w, sd
}

// shuffle sets perm to a uniform random permutation of 0…len−1
// (Fisher–Yates).
func shuffle(s *Stream, perm []int) {
	for i := range perm {
		perm[i] = i
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := int(s.Below(uint64(i + 1)))
		perm[i], perm[j] = perm[j], perm[i]
	}
}

// scan holds the prefix sums of a segment's statistic.
type scan struct{ cw, cwy []float64 }

// max returns M = max |Z_k| over the splits that leave at least min
// points either side, and the first k where it is reached (W = 0 on a
// side, or infinite weights, leave M NaN).
func (sc *scan) max(y, w []float64, minSeg int) (float64, int) {
	n := len(y)
	sc.cw = append(sc.cw[:0], 0)
	sc.cwy = append(sc.cwy[:0], 0)
	for i := range y {
		sc.cw = append(sc.cw, sc.cw[i]+w[i])
		sc.cwy = append(sc.cwy, sc.cwy[i]+w[i]*y[i])
	}
	best, at := -1.0, 0
	for k := minSeg; k <= n-minSeg; k++ {
		z := math.Abs(sc.z(k, n))
		if z > best {
			best, at = z, k
		}
	}
	return best, at
}

// z is the standardised difference at split k of a segment of n points
// whose prefix sums are in sc.
func (sc *scan) z(k, n int) float64 {
	w1, w2 := sc.cw[k], sc.cw[n]-sc.cw[k]
	m1, m2 := sc.cwy[k]/w1, (sc.cwy[n]-sc.cwy[k])/w2
	return (m2 - m1) / math.Sqrt(1/w1+1/w2)
}

// split returns the weighted means either side of split k and its Z.
func (sc *scan) split(y, w []float64, k int) (before, after, z float64) {
	sc.max(y, w, 1)
	n := len(y)
	before = sc.cwy[k] / sc.cw[k]
	after = (sc.cwy[n] - sc.cwy[k]) / (sc.cw[n] - sc.cw[k])
	return before, after, sc.z(k, n)
}
