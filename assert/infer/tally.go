package infer

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Tally counts the distinct contribution vectors of a sample. Every case
// adds one vector of Dim numbers (accuracy: passed, counted; a dimension's
// F1: correct, recognised, expected; a mean: value, 1; a paired
// comparison: the baseline's vector followed by the candidate's); equal
// vectors are kept once with their count, so memory and the cost of a
// bootstrap grow with the number of distinct vectors, not of cases.
//
// Items are read in lexicographic order of their vectors whatever the
// order they were added in, so two tallies of the same cases, however
// added or merged, give the same sums and the same bootstrap bit for bit.
// A Tally is not safe for concurrent use; give each goroutine its own and
// Merge them.
type Tally struct {
	dim    int
	index  map[string]int // vector's bytes → item
	vals   []float64      // item k's vector at vals[k·dim:(k+1)·dim]
	counts []int64
	n      int64
	key    []byte
	order  []int // items in lexicographic order; nil when stale
	// last is the item added last, tried before the map: a family's
	// cases repeat the same few vectors (pass, pass, fail…). -1: none.
	last int
}

// NewTally returns an empty tally of vectors of dim numbers (dim ≥ 1).
func NewTally(dim int) *Tally {
	if dim < 1 {
		panic(fmt.Sprintf("infer.NewTally: dimension %d, want at least 1", dim))
	}
	return &Tally{dim: dim, index: map[string]int{}, key: make([]byte, 8*dim), last: -1}
}

// Add counts one case contributing v (len(v) = Dim; −0 counts as 0).
func (t *Tally) Add(v ...float64) { t.AddN(1, v...) }

// AddN counts n cases contributing v.
func (t *Tally) AddN(n int64, v ...float64) {
	if len(v) != t.dim {
		panic(fmt.Sprintf("infer.Tally.AddN: vector of %d numbers in a tally of %d", len(v), t.dim))
	}
	if n <= 0 {
		return
	}
	if t.last >= 0 && equalVec(t.vals[t.last*t.dim:(t.last+1)*t.dim], v) {
		t.counts[t.last] += n
		t.n += n
		return
	}
	for d, x := range v {
		if x == 0 {
			x = 0 // −0
		}
		binary.LittleEndian.PutUint64(t.key[8*d:], math.Float64bits(x))
	}
	k, ok := t.index[string(t.key)]
	if !ok {
		k = len(t.counts)
		t.index[string(t.key)] = k
		for _, x := range v {
			if x == 0 {
				x = 0
			}
			t.vals = append(t.vals, x)
		}
		t.counts = append(t.counts, 0)
		t.order = nil
	}
	t.counts[k] += n
	t.n += n
	t.last = k
}

// equalVec reports whether a and b are equal coordinate by coordinate (−0
// equals 0, as the tally's keys have it; NaN equals nothing, so a vector
// holding one goes to the map, which keys it by its bits).
func equalVec(a, b []float64) bool {
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}

// Merge adds every case of o (same Dim) to t.
func (t *Tally) Merge(o *Tally) {
	for k, c := range o.counts {
		t.AddN(c, o.vals[k*o.dim:(k+1)*o.dim]...)
	}
}

// Dim is the length of the vectors.
func (t *Tally) Dim() int { return t.dim }

// Len is the number of distinct vectors.
func (t *Tally) Len() int { return len(t.counts) }

// N is the number of cases.
func (t *Tally) N() int64 { return t.n }

func (t *Tally) sorted() []int {
	if t.order == nil {
		t.order = make([]int, len(t.counts))
		for i := range t.order {
			t.order[i] = i
		}
		slices.SortFunc(t.order, func(i, j int) int {
			return slices.Compare(t.vals[i*t.dim:(i+1)*t.dim], t.vals[j*t.dim:(j+1)*t.dim])
		})
	}
	return t.order
}

// Item returns the vector and the count of the k-th distinct vector in
// lexicographic order (0 ≤ k < Len). The vector must not be changed.
func (t *Tally) Item(k int) (v []float64, count int64) {
	i := t.sorted()[k]
	return t.vals[i*t.dim : (i+1)*t.dim : (i+1)*t.dim], t.counts[i]
}

// Counts returns the items' counts in lexicographic order: the sample as
// Replicates and Bootstrap take it.
func (t *Tally) Counts() []int64 {
	out := make([]int64, len(t.counts))
	for k, i := range t.sorted() {
		out[k] = t.counts[i]
	}
	return out
}

// Sums returns Σ count·vector over the items.
func (t *Tally) Sums() []float64 {
	sums := make([]float64, t.dim)
	t.SumsOf(t.Counts(), sums)
	return sums
}

// SumsOf sets sums (len Dim) to Σ w[k]·vector of item k, items in
// lexicographic order: the sums of a resample whose multiplicities are w.
// The additions run in item order, so equal w give equal sums bit for bit.
func (t *Tally) SumsOf(w []int64, sums []float64) {
	clear(sums)
	order := t.sorted()
	for k, wk := range w {
		if wk == 0 {
			continue
		}
		fw := float64(wk)
		v := t.vals[order[k]*t.dim : (order[k]+1)*t.dim]
		for d, x := range v {
			sums[d] += fw * x
		}
	}
}

// Bootstrap is the percentile bootstrap interval (Bootstrap) of a
// statistic of the sums: stat receives Σ w·vector for each resample (and
// the sums of the sample itself for the estimate) and must not keep the
// slice.
func (t *Tally) Bootstrap(stat func(sums []float64) float64, o Options) Interval {
	return Bootstrap(t.Counts(), t.sumsStat(stat), o)
}

// BootstrapAll is BootstrapAll of several statistics of the sums, over
// the same resamples (one draw for all, the stream of o.Address).
func (t *Tally) BootstrapAll(stats []func(sums []float64) float64, o Options) []Interval {
	ws := make([]func(w []int64) float64, len(stats))
	for i, stat := range stats {
		ws[i] = t.sumsStat(stat)
	}
	return BootstrapAll(t.Counts(), ws, o)
}

// sumsStat turns a statistic of the sums into one of the multiplicities.
func (t *Tally) sumsStat(stat func(sums []float64) float64) func(w []int64) float64 {
	sums := make([]float64, t.dim)
	t.sorted()
	return func(w []int64) float64 {
		t.SumsOf(w, sums)
		return stat(sums)
	}
}
