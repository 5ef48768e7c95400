package infer

import (
	"math"
	"testing"
)

// series is n points around level with standard error se, shifted by
// step from index at on (no step when at ≤ 0), plus extra run-to-run
// noise of standard deviation tau beyond the standard errors.
func series(seed uint64, n int, level, se, step float64, at int, tau float64) []Point {
	s := NewStream(seed, "series")
	out := make([]Point, n)
	for i := range out {
		v := level + se*s.Normal() + tau*s.Normal()
		if at > 0 && i >= at {
			v += step
		}
		out[i] = Point{Value: v, SE: se}
	}
	return out
}

// TestChangePointFound: a step of 4 standard errors at a known index of a
// 30-point series is found at that index, with the right levels, under
// both nulls, for every one of 20 seeds. Beyond it, the two parts are
// tested at alpha/2 each, so an extra (spurious) change is expected in
// about 5 % of the 40 runs; at most 4 may have one.
func TestChangePointFound(t *testing.T) {
	extra := 0
	for _, null := range []Null{PermutationNull, GaussianNull} {
		for seed := range uint64(20) {
			pts := series(seed+1, 30, 0.9, 0.01, -0.04, 18, 0)
			got := ChangePoints(pts, ChangeOptions{Null: null, Resamples: 999})
			c, ok := changeAt(got, 18)
			if !ok || !(c.P < 0.05) || c.Z > -4 {
				t.Errorf("null %d seed %d: changes %+v; want one at 18 from 0.90 to 0.86", null, seed, got)
			}
			if len(got) == 1 && (math.Abs(c.Before-0.9) > 0.01 || math.Abs(c.After-0.86) > 0.01) {
				t.Errorf("null %d seed %d: levels %v → %v; want 0.90 → 0.86", null, seed, c.Before, c.After)
			}
			if len(got) > 1 {
				extra++
			}
		}
	}
	t.Logf("runs with an extra change: %d of 40", extra)
	if extra > 4 {
		t.Errorf("%d of 40 runs found more than the planted change; at most 4", extra)
	}
}

func changeAt(cs []Change, i int) (Change, bool) {
	for _, c := range cs {
		if c.Index == i {
			return c, true
		}
	}
	return Change{}, false
}

// TestChangePointInNewestRun: a drop of 8 standard errors in the last of
// 12 runs is found by the Gaussian null, naming the last run; the
// permutation null cannot reach p < 2/12 there and does not flag it.
func TestChangePointInNewestRun(t *testing.T) {
	for seed := range uint64(20) {
		pts := series(seed+1, 12, 0.9, 0.01, -0.08, 11, 0)
		got := ChangePoints(pts, ChangeOptions{Null: GaussianNull, Resamples: 999})
		if _, ok := changeAt(got, 11); !ok {
			t.Errorf("seed %d: Gaussian null found %+v; want a change at 11", seed, got)
		}
		if got := ChangePoints(pts, ChangeOptions{Resamples: 999}); len(got) != 0 {
			t.Errorf("seed %d: permutation null found %+v in the last of 12 points", seed, got)
		}
	}
}

// TestChangePointTwoSteps: binary segmentation finds two steps.
func TestChangePointTwoSteps(t *testing.T) {
	pts := series(3, 40, 0.9, 0.01, -0.05, 12, 0)
	for i := 28; i < 40; i++ {
		pts[i].Value += 0.08
	}
	got := ChangePoints(pts, ChangeOptions{Resamples: 999})
	if len(got) != 2 || got[0].Index != 12 || got[1].Index != 28 || got[0].Z > 0 || got[1].Z < 0 {
		t.Errorf("changes %+v; want a drop at 12 and a rise at 28", got)
	}
}

// TestChangePointFalseAlarms: on flat noisy series (200 seeds, 30 points)
// each null flags a change in at most 19 (alpha 0.05: 10 expected plus 3
// binomial standard deviations). With extra run-to-run noise as large as
// the standard errors, the permutation null keeps its rate and the
// Gaussian null, which estimates that noise, stays near it.
func TestChangePointFalseAlarms(t *testing.T) {
	for _, c := range []struct {
		name string
		null Null
		tau  float64
	}{
		{"permutation", PermutationNull, 0},
		{"gaussian", GaussianNull, 0},
		{"permutation, extra noise", PermutationNull, 0.01},
		{"gaussian, extra noise", GaussianNull, 0.01},
	} {
		flagged := 0
		for seed := range uint64(200) {
			pts := series(seed+100, 30, 0.9, 0.01, 0, 0, c.tau)
			if len(ChangePoints(pts, ChangeOptions{Null: c.null, Resamples: 499, Address: "flat"})) > 0 {
				flagged++
			}
		}
		t.Logf("%s: %d of 200 flat series flagged", c.name, flagged)
		if flagged > maxFalseAlarms {
			t.Errorf("%s: %d of 200 flat series flagged; at most %d", c.name, flagged, maxFalseAlarms)
		}
	}
}

func TestChangePointEdges(t *testing.T) {
	if got := ChangePoints(nil, ChangeOptions{}); len(got) != 0 {
		t.Errorf("empty series: %+v", got)
	}
	if got := ChangePoints([]Point{{Value: 1}}, ChangeOptions{}); len(got) != 0 {
		t.Errorf("one point: %+v", got)
	}
	flat := []Point{{0.9, 0.01}, {0.9, 0.01}, {0.9, 0.01}, {0.9, 0.01}}
	if got := ChangePoints(flat, ChangeOptions{Null: GaussianNull}); len(got) != 0 {
		t.Errorf("constant series: %+v", got)
	}
	pts := series(5, 20, 0.9, 0.01, -0.05, 10, 0)
	a := ChangePoints(pts, ChangeOptions{Resamples: 499, Address: "x"})
	b := ChangePoints(pts, ChangeOptions{Resamples: 499, Address: "x"})
	if len(a) != 1 || a[0] != b[0] {
		t.Errorf("same options, changes %+v and %+v", a, b)
	}
}

// TestTrendSlopesRecovered: on 20-point series with a known slope and
// noise, the least-squares and Theil–Sen 95 % intervals hold the true
// slope in at least 181 of 200 seeds (95 % coverage less 3 binomial
// standard deviations), and a flat series' slope interval holds 0 as
// often.
func TestTrendSlopesRecovered(t *testing.T) {
	for _, slope := range []float64{-0.002, 0, 0.0005} {
		ols, ts := 0, 0
		for seed := range uint64(200) {
			s := NewStream(seed, "trend")
			y := make([]float64, 20)
			for i := range y {
				y[i] = 0.9 + slope*float64(i) + 0.003*s.Normal()
			}
			if fit, ok := LinearTrend(nil, y, 0.95); ok && fit.Lo <= slope && slope <= fit.Hi {
				ols++
			}
			if fit, ok := TheilSen(nil, y, 0.95); ok && fit.Lo <= slope && slope <= fit.Hi {
				ts++
			}
		}
		t.Logf("slope %v: OLS interval covers %d/200, Theil–Sen %d/200", slope, ols, ts)
		if ols < 181 || ts < 181 {
			t.Errorf("slope %v: OLS interval covers %d/200, Theil–Sen %d/200; want at least 181", slope, ols, ts)
		}
	}
}

// TestSegmentRounds checks the rounds of binary segmentation with stub
// tests: after the first change, the two parts are tested at alpha/2, and
// after a second, the three parts at alpha/3.
func TestSegmentRounds(t *testing.T) {
	type seg struct{ lo, hi int }
	for _, c := range []struct {
		name string
		p    map[seg]float64
		k    map[seg]int // split, relative to lo
		want []int
	}{
		{"whole series not significant", map[seg]float64{{0, 30}: 0.06}, map[seg]int{{0, 30}: 10}, nil},
		{"one change; parts at 0.03 > 0.05/2", map[seg]float64{{0, 30}: 0.001, {0, 10}: 0.03, {10, 30}: 0.03},
			map[seg]int{{0, 30}: 10, {0, 10}: 5, {10, 30}: 10}, []int{10}},
		{"second change at 0.02 < 0.025; the three parts then at 0.02 > 0.05/3",
			map[seg]float64{{0, 30}: 0.001, {0, 10}: 0.4, {10, 30}: 0.02, {10, 20}: 0.02, {20, 30}: 0.02},
			map[seg]int{{0, 30}: 10, {0, 10}: 5, {10, 30}: 10, {10, 20}: 5, {20, 30}: 5}, []int{10, 20}},
		{"third round at 0.0166", map[seg]float64{{0, 30}: 0.001, {0, 10}: 0.4, {10, 30}: 0.02, {10, 20}: 0.016, {20, 30}: 0.02, {10, 15}: 1, {15, 20}: 1},
			map[seg]int{{0, 30}: 10, {0, 10}: 5, {10, 30}: 10, {10, 20}: 5, {20, 30}: 5, {10, 15}: 2, {15, 20}: 2}, []int{10, 15, 20}},
	} {
		calls := map[seg]int{}
		got := segmentRounds(30, 0.05, func(lo, hi int) (Change, bool) {
			s := seg{lo, hi}
			calls[s]++
			p, ok := c.p[s]
			return Change{Index: c.k[s], P: p}, ok
		})
		var idx []int
		for _, ch := range got {
			idx = append(idx, ch.Index)
		}
		if !slicesEqual(idx, c.want) {
			t.Errorf("%s: changes at %v; want %v", c.name, idx, c.want)
		}
		for s, n := range calls {
			if n != 1 {
				t.Errorf("%s: segment %v tested %d times", c.name, s, n)
			}
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
