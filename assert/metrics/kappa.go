package metrics

import (
	"math"
	"slices"
)

// This file is agreement between raters: Cohen's kappa for two raters as
// scikit-learn's cohen_kappa_score and Fleiss' kappa for more as
// statsmodels' fleiss_kappa.

// Kappa weightings: none (agreement is all or nothing), linear (|i − j|)
// and quadratic ((i − j)²), i and j being label indexes.
const (
	WeightNone      = ""
	WeightLinear    = "linear"
	WeightQuadratic = "quadratic"
)

// CohenKappa is Cohen's kappa between two raters' labels a and b (the same
// items in the same order), as scikit-learn's cohen_kappa_score(a, b,
// weights=weights): the labels are the sorted union of both lists, the
// weights are taken over their indexes (not their values), and
// κ = 1 − Σ w·O / Σ w·E with O the confusion matrix and E the outer
// product of its margins over the number of items. It returns NaN when
// the expected disagreement is 0 (both raters gave one and the same label
// throughout), as scikit-learn does.
func CohenKappa(a, b []float64, weights string) float64 {
	labels := slices.Concat(a, b)
	slices.Sort(labels)
	labels = slices.Compact(labels)
	k := len(labels)
	if k == 0 || len(a) != len(b) {
		return math.NaN()
	}
	idx := func(v float64) int { i, _ := slices.BinarySearch(labels, v); return i }
	obs := make([]float64, k*k)
	rowSum := make([]float64, k)
	colSum := make([]float64, k)
	for n := range a {
		i, j := idx(a[n]), idx(b[n])
		obs[i*k+j]++
		rowSum[i]++
		colSum[j]++
	}
	total := float64(len(a))
	var wo, we float64
	for i := range k {
		for j := range k {
			w := kappaWeight(i, j, weights)
			wo += w * obs[i*k+j]
			we += w * rowSum[i] * colSum[j] / total
		}
	}
	if we == 0 {
		return math.NaN()
	}
	return 1 - wo/we
}

func kappaWeight(i, j int, weights string) float64 {
	d := float64(i - j)
	switch weights {
	case WeightLinear:
		return math.Abs(d)
	case WeightQuadratic:
		return d * d
	}
	if i == j {
		return 0
	}
	return 1
}

// FleissKappa is Fleiss' kappa of a subjects × categories table of counts
// (table[i][j] raters put subject i in category j; every row sums to the
// same number of raters n ≥ 2), as statsmodels' fleiss_kappa:
// κ = (P̄ − P̄e) / (1 − P̄e), P̄ the mean over subjects of
// (Σj n_ij² − n) / (n(n − 1)) and P̄e = Σj p_j², p_j the share of all
// ratings in category j. NaN when P̄e is 1 or the table is empty.
func FleissKappa(table [][]int) float64 {
	if len(table) == 0 {
		return math.NaN()
	}
	n := 0
	for _, c := range table[0] {
		n += c
	}
	if n < 2 {
		return math.NaN()
	}
	cols := len(table[0])
	share := make([]float64, cols)
	pbar := 0.0
	for _, row := range table {
		sq := 0
		for j, c := range row {
			sq += c * c
			share[j] += float64(c)
		}
		pbar += float64(sq-n) / float64(n*(n-1))
	}
	subjects := float64(len(table))
	pbar /= subjects
	pe := 0.0
	for _, s := range share {
		p := s / (subjects * float64(n))
		pe += p * p
	}
	if pe == 1 {
		return math.NaN()
	}
	return (pbar - pe) / (1 - pe)
}
