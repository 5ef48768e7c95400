package infer

import (
	"cmp"
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values (Holm 1979, "A simple
// sequentially rejective multiple test procedure"), which keep the
// family-wise error rate: sorted ascending, the i-th smallest (from 1)
// becomes max over j ≤ i of (m − j + 1)·p₍ⱼ₎, capped at 1 — statsmodels'
// multipletests(p, method="holm")[1]. Rejecting the hypotheses whose
// adjusted p-value is below alpha is Holm's procedure at alpha. NaN
// p-values stay NaN and do not count in m.
func Holm(p []float64) []float64 {
	out, idx := sortedP(p)
	m := len(idx)
	run := 0.0
	for i, k := range idx {
		run = math.Max(run, p[k]*float64(m-i))
		out[k] = math.Min(run, 1)
	}
	return out
}

// BenjaminiHochberg returns the Benjamini–Hochberg adjusted p-values
// (Benjamini & Hochberg 1995, "Controlling the false discovery rate"),
// which keep the false discovery rate for independent or positively
// dependent tests: sorted ascending, the i-th smallest becomes min over
// j ≥ i of p₍ⱼ₎/(j/m), capped at 1 — statsmodels' multipletests(p,
// method="fdr_bh")[1]. NaN p-values stay NaN and do not count in m.
func BenjaminiHochberg(p []float64) []float64 {
	out, idx := sortedP(p)
	m := float64(len(idx))
	run := math.Inf(1)
	for i := len(idx) - 1; i >= 0; i-- {
		k := idx[i]
		run = math.Min(run, p[k]/(float64(i+1)/m))
		out[k] = math.Min(run, 1)
	}
	return out
}

// sortedP returns an output slice of NaNs the length of p and the indexes
// of p's non-NaN values in ascending order of value.
func sortedP(p []float64) ([]float64, []int) {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	return out, idx
}
