package metrics

import (
	"math"
	"testing"
)

func rep(pairs ...float64) []float64 {
	var out []float64
	for i := 0; i < len(pairs); i += 2 {
		for range int(pairs[i+1]) {
			out = append(out, pairs[i])
		}
	}
	return out
}

// TestCohenKappa reproduces scikit-learn's test_cohen_kappa
// (sklearn/metrics/tests/test_classification.py) and the
// cohen_kappa_score docstring example.
func TestCohenKappa(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    []float64
		weights string
		want    float64
		places  float64
	}{
		// Artstein and Poesio (2008), table 1: [[20, 20], [10, 50]].
		{"Artstein & Poesio table 1", rep(0, 40, 1, 60), rep(0, 20, 1, 20, 0, 10, 1, 50), WeightNone, 0.348, 1e-3},
		{"identical", rep(0, 40, 1, 60), rep(0, 40, 1, 60), WeightNone, 1, 1e-12},
		// Artstein and Poesio, table 4 (multiclass).
		{"Artstein & Poesio table 4", rep(0, 46, 1, 44, 2, 10), rep(0, 52, 1, 32, 2, 16), WeightNone, 0.8013, 1e-4},
		{"weighting: none", rep(0, 46, 1, 44, 2, 10), rep(0, 50, 1, 40, 2, 10), WeightNone, 0.9315, 1e-4},
		{"weighting: linear", rep(0, 46, 1, 44, 2, 10), rep(0, 50, 1, 40, 2, 10), WeightLinear, 0.9412, 1e-4},
		{"weighting: quadratic", rep(0, 46, 1, 44, 2, 10), rep(0, 50, 1, 40, 2, 10), WeightQuadratic, 0.9541, 1e-4},
		// The docstring: negative, positive, negative, neutral, positive
		// against negative, positive, negative, neutral, negative (labels
		// sorted: negative 0, neutral 1, positive 2).
		{"docstring", []float64{0, 2, 0, 1, 2}, []float64{0, 2, 0, 1, 0}, WeightNone, 0.6875, 1e-12},
	} {
		got := CohenKappa(tc.a, tc.b, tc.weights)
		if math.Abs(got-tc.want) > tc.places/2 {
			t.Errorf("%s: κ = %.6f, scikit-learn %v", tc.name, got, tc.want)
		}
		if back := CohenKappa(tc.b, tc.a, tc.weights); back != got {
			t.Errorf("%s: not symmetric: %v and %v", tc.name, got, back)
		}
	}
}

// TestCohenKappaByIndex: weights are over label indexes, not values (as
// scikit-learn): ratings 1, 3, 5 weigh as 0, 1, 2.
func TestCohenKappaByIndex(t *testing.T) {
	a, b := rep(0, 46, 1, 44, 2, 10), rep(0, 50, 1, 40, 2, 10)
	va, vb := make([]float64, len(a)), make([]float64, len(b))
	for i := range a {
		va[i], vb[i] = 1+2*a[i], 1+2*b[i]
	}
	if x, y := CohenKappa(a, b, WeightQuadratic), CohenKappa(va, vb, WeightQuadratic); math.Abs(x-y) > 1e-12 {
		t.Errorf("quadratic κ by value %v, by index %v", y, x)
	}
	if !math.IsNaN(CohenKappa([]float64{3, 3}, []float64{3, 3}, WeightNone)) {
		t.Error("one label throughout: want NaN")
	}
}

// TestFleissKappa reproduces statsmodels' test of fleiss_kappa
// (statsmodels/stats/tests/test_inter_rater.py) on Wikipedia's worked
// example ("Fleiss' kappa": 10 subjects, 5 categories, 14 raters):
// κ = 0.210 (0.20993 unrounded).
func TestFleissKappa(t *testing.T) {
	table := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	got := FleissKappa(table)
	if math.Abs(got-0.2099) > 5e-5 || math.Abs(got-0.210) > 5e-4 {
		t.Errorf("κ = %.6f, statsmodels/Wikipedia 0.2099 (0.210)", got)
	}
}
