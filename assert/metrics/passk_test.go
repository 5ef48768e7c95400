package metrics

import (
	"math"
	"testing"
)

// One task's estimates against the papers' formulas worked by hand:
// pass@k = 1 − C(n−c, k)/C(n, k) (Chen et al. 2021, eq. 1), pass^k =
// C(c, k)/C(n, k) (τ-bench). The large-n rows were worked with exact
// fractions (Python's math.comb and fractions.Fraction); the estimator's
// product form must agree to 1e-12 without overflowing C(100, 50) ≈ 1e29.
func TestPassAtAndPassAllOneTask(t *testing.T) {
	for _, tc := range []struct {
		n, c, k int
		at, all float64
		approx  bool
		desc    string
	}{
		{5, 3, 2, 0.9, 0.3, false, "1 − C(2,2)/C(5,2) = 1 − 1/10; C(3,2)/C(5,2) = 3/10"},
		{5, 2, 3, 0.9, 0, false, "1 − C(3,3)/C(5,3) = 1 − 1/10; C(2,3) = 0"},
		{5, 2, 1, 0.4, 0.4, false, "k = 1: both c/n"},
		{5, 5, 5, 1, 1, false, "all passed"},
		{5, 0, 5, 0, 0, false, "none passed"},
		{4, 2, 2, 5.0 / 6, 1.0 / 6, true, "1 − C(2,2)/C(4,2) = 5/6; C(2,2)/C(4,2) = 1/6"},
		{10, 1, 1, 0.1, 0.1, true, "pass@1 = c/n"},
		{100, 30, 50, 0.9999999999983955, 0, true, "1 − C(70,50)/C(100,50)"},
		{100, 90, 50, 1, 0.0005934196725858287, true, "C(90,50)/C(100,50)"},
	} {
		at, all := PassAt(tc.n, tc.c, tc.k), PassAll(tc.n, tc.c, tc.k)
		eq := func(a, b float64) bool {
			if tc.approx {
				return math.Abs(a-b) <= 1e-12
			}
			return math.Abs(a-b) <= 1e-15
		}
		if !eq(at, tc.at) || !eq(all, tc.all) {
			t.Errorf("n=%d c=%d k=%d: pass@k %v pass^k %v, want %v and %v (%s)", tc.n, tc.c, tc.k, at, all, tc.at, tc.all, tc.desc)
		}
	}
	for _, bad := range [][3]int{{5, 2, 0}, {5, 2, 6}, {5, 6, 1}, {5, -1, 1}} {
		if !math.IsNaN(PassAt(bad[0], bad[1], bad[2])) || !math.IsNaN(PassAll(bad[0], bad[1], bad[2])) {
			t.Errorf("n=%d c=%d k=%d: want NaN (k must be 1…n)", bad[0], bad[1], bad[2])
		}
	}
}

// Over tasks: with one n for all, the figures are counts of k-subsets of
// runs; five tasks of 4 runs passing 3, 3, 0, 4 and 2 times, by hand:
// k=2: den 5 × C(4,2) = 30; at-least-one subsets 6+6+0+6+5 = 23 (a task
// passing 2 of 4 has C(2,2) = 1 all-failing pair), all-pass subsets
// C(3,2)+C(3,2)+0+C(4,2)+C(2,2) = 13. With different n, or counts too
// large for a float64, the means of the estimates.
func TestPassKs(t *testing.T) {
	tasks := []Task{{4, 3}, {4, 3}, {4, 0}, {4, 4}, {4, 2}}
	want := []PassK{
		{K: 1, Tasks: 5, AtNum: 12, AllNum: 12, Den: 20},
		{K: 2, Tasks: 5, AtNum: 23, AllNum: 13, Den: 30},
		{K: 3, Tasks: 5, AtNum: 16, AllNum: 6, Den: 20},
		{K: 4, Tasks: 5, AtNum: 4, AllNum: 1, Den: 5},
	}
	got := PassKs(tasks, []int{1, 2, 3, 4})
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("k=%d: %+v, want %+v", want[i].K, got[i], want[i])
		}
	}
	// n = 5 and 3: k = 1 and 2 average both estimates; k = 4 has only the
	// task of 5 runs (k ≤ n), so counts again: C(5,4) = 5 subsets, all
	// with a pass (c = 2 leaves 3 failures < 4), none all passing.
	mixed := PassKs([]Task{{5, 2}, {3, 1}}, []int{1, 2, 4})
	for i, w := range []PassK{
		{K: 1, Tasks: 2, AtNum: 2.0/5 + 1.0/3, AllNum: 2.0/5 + 1.0/3, Den: 2},
		{K: 2, Tasks: 2, AtNum: (1 - 3.0/10) + (1 - 1.0/3), AllNum: 1.0 / 10, Den: 2},
		{K: 4, Tasks: 1, AtNum: 5, AllNum: 0, Den: 5},
	} {
		g := mixed[i]
		if g.K != w.K || g.Tasks != w.Tasks || g.Den != w.Den || math.Abs(g.AtNum-w.AtNum) > 1e-12 || math.Abs(g.AllNum-w.AllNum) > 1e-12 {
			t.Errorf("mixed k=%d: %+v, want %+v", w.K, g, w)
		}
	}
	// C(100,50) × 2 is far above 2^53: the sum of the two estimates over 2.
	big := PassKs([]Task{{100, 30}, {100, 90}}, []int{50})[0]
	if big.Den != 2 || math.Abs(big.AtNum-(0.9999999999983955+1)) > 1e-12 || math.Abs(big.AllNum-0.0005934196725858287) > 1e-12 {
		t.Errorf("n=100 k=50: %+v", big)
	}
	if none := PassKs([]Task{{2, 1}}, []int{3})[0]; none.Tasks != 0 || none.Den != 0 {
		t.Errorf("k above every n: %+v, want no data", none)
	}
}
