package infer

import (
	"math"
	"testing"
)

// split cuts a series into its earlier runs and the last one.
func split(pts []Point) ([]Point, Point) { return pts[:len(pts)-1], pts[len(pts)-1] }

// TestDriftFlatNotFlagged: on 12-run series without a change (11 earlier
// runs and the current one; noise equal to the standard errors; max_drop
// 0, the strictest gate), the drift gate at alpha 0.05 fails at most 19
// of 200 seeds (10 expected plus 3 binomial standard deviations) — with
// and without extra run-to-run noise as large as the standard errors, and
// for either direction; and so does a current run worse by exactly
// max_drop, the edge of what the gate tolerates.
func TestDriftFlatNotFlagged(t *testing.T) {
	for _, c := range []struct {
		name string
		tau  float64
		dir  Direction
		drop float64 // the current run's planted drop, and max_drop
	}{
		{"higher is better", 0, HigherIsBetter, 0},
		{"higher is better, extra noise", 0.01, HigherIsBetter, 0},
		{"lower is better", 0, LowerIsBetter, 0},
		{"lower is better, extra noise", 0.01, LowerIsBetter, 0},
		{"a drop of max_drop", 0, HigherIsBetter, 0.02},
		{"a rise of max_drop, lower is better", 0.01, LowerIsBetter, 0.02},
	} {
		flagged, level, change := 0, 0, 0
		for seed := range uint64(200) {
			step := -c.drop
			if c.dir == LowerIsBetter {
				step = c.drop
			}
			w, cur := split(series(seed+500, 12, 0.5, 0.01, step, 11, c.tau))
			r, ok := Drift(w, cur, DriftOptions{MaxDrop: c.drop, Direction: c.dir, Resamples: 499, Address: "flat"})
			if !ok {
				t.Fatalf("%s seed %d: no result", c.name, seed)
			}
			if r.Fail {
				flagged++
			}
			if r.LevelFail {
				level++
			}
			if r.ChangeFail {
				change++
			}
		}
		t.Logf("%s: %d of 200 flat series fail the gate (level test %d, change test %d)", c.name, flagged, level, change)
		if flagged > maxFalseAlarms {
			t.Errorf("%s: %d of 200 flat series fail the drift gate; at most %d", c.name, flagged, maxFalseAlarms)
		}
	}
}

// TestDriftPlantedDropInLastRun: a drop of 8 standard errors (0.08) in the
// last of 12 runs, with max_drop 0.02 (6 standard errors beyond it), fails
// the gate for every one of 20 seeds, the level test saying so.
func TestDriftPlantedDropInLastRun(t *testing.T) {
	for seed := range uint64(20) {
		w, cur := split(series(seed+1, 12, 0.9, 0.01, -0.08, 11, 0))
		r, ok := Drift(w, cur, DriftOptions{MaxDrop: 0.02, Resamples: 999})
		if !ok || !r.Fail || !r.LevelFail {
			t.Errorf("seed %d: %v; want the level test to fail", seed, r)
		}
		if math.Abs(r.Level-0.9) > 0.01 || math.Abs(r.Drop-0.08) > 0.03 {
			t.Errorf("seed %d: level %v drop %v; want about 0.90 and 0.08", seed, r.Level, r.Drop)
		}
	}
}

// TestDriftChangeNamesTheRun: a drop of 6 standard errors at run 8 of 12
// (index 7) that lasts to the current run fails the gate through the
// change test, which names index 7 with the levels either side, for every
// one of 20 seeds; the level test alone, comparing with a window that
// already holds four low runs, misses some of them.
func TestDriftChangeNamesTheRun(t *testing.T) {
	levelOnly := 0
	for seed := range uint64(20) {
		w, cur := split(series(seed+40, 12, 0.9, 0.01, -0.06, 7, 0))
		r, _ := Drift(w, cur, DriftOptions{MaxDrop: 0.02, Resamples: 999})
		if !r.ChangeFail || r.Change == nil || r.Change.Index != 7 {
			t.Errorf("seed %d: %v; want the change test to fail at index 7", seed, r)
			continue
		}
		if math.Abs(r.Change.Before-0.9) > 0.015 || math.Abs(r.Change.After-0.84) > 0.015 {
			t.Errorf("seed %d: change %v → %v; want 0.90 → 0.84", seed, r.Change.Before, r.Change.After)
		}
		if r.LevelFail {
			levelOnly++
		}
	}
	t.Logf("the level test also fails in %d of 20", levelOnly)
}

// TestDriftWithinMaxDrop: a real but small drop (0.01, ten standard errors
// of 0.001) within max_drop 0.02 passes; the same drop with max_drop 0
// fails. A rise never fails a higher-is-better metric; a rise of a
// lower-is-better one does.
func TestDriftWithinMaxDrop(t *testing.T) {
	w, cur := split(series(7, 12, 0.9, 0.001, -0.01, 11, 0))
	if r, _ := Drift(w, cur, DriftOptions{MaxDrop: 0.02, Resamples: 999}); r.Fail {
		t.Errorf("a drop of 0.01 within max_drop 0.02 fails: %v", r)
	}
	if r, _ := Drift(w, cur, DriftOptions{Resamples: 999}); !r.Fail {
		t.Errorf("a drop of 10 standard errors with max_drop 0 passes: %v", r)
	}
	w, cur = split(series(8, 12, 0.1, 0.01, 0.06, 11, 0))
	if r, _ := Drift(w, cur, DriftOptions{MaxDrop: 0.02, Resamples: 999}); r.Fail {
		t.Errorf("a rise of a higher-is-better metric fails: %v", r)
	}
	if r, _ := Drift(w, cur, DriftOptions{MaxDrop: 0.02, Direction: LowerIsBetter, Resamples: 999}); !r.Fail || r.Drop < 0.03 {
		t.Errorf("a rise of 0.06 of a lower-is-better metric passes: %v", r)
	}
}

// TestDriftDeterministicBot: a bot that answers a fixed test set the same
// way every run repeats its value exactly (sample s.d. 0); the runs'
// standard errors keep the gate from failing on a drop within them, and a
// drop beyond them still fails.
func TestDriftDeterministicBot(t *testing.T) {
	w := make([]Point, 10)
	for i := range w {
		w[i] = Point{Value: 0.9, SE: 0.015}
	}
	if r, _ := Drift(w, Point{Value: 0.88, SE: 0.015}, DriftOptions{Resamples: 999}); r.Fail || r.Sigma != 0.015 {
		t.Errorf("a drop of 0.02 (1.3 standard errors) fails: %v", r)
	}
	if r, _ := Drift(w, Point{Value: 0.83, SE: 0.015}, DriftOptions{Resamples: 999}); !r.Fail {
		t.Errorf("a drop of 0.07 (4.7 standard errors) passes: %v", r)
	}
}

func TestDriftEdges(t *testing.T) {
	if _, ok := Drift([]Point{{Value: 1}}, Point{Value: 1}, DriftOptions{}); ok {
		t.Error("one earlier run gave a result")
	}
	if _, ok := Drift([]Point{{Value: 1}, {Value: math.NaN()}}, Point{Value: 1}, DriftOptions{}); ok {
		t.Error("a NaN value gave a result")
	}
	// Two identical earlier runs without standard errors: σ = 0; any drop
	// beyond max_drop fails, none within it.
	w := []Point{{Value: 0.5}, {Value: 0.5}}
	if r, ok := Drift(w, Point{Value: 0.45}, DriftOptions{MaxDrop: 0.02}); !ok || !r.LevelFail || r.P != 0 {
		t.Errorf("drop 0.05 over σ 0: %v", r)
	}
	if r, _ := Drift(w, Point{Value: 0.49}, DriftOptions{MaxDrop: 0.02}); r.Fail || r.P != 1 {
		t.Errorf("drop 0.01 over σ 0: %v", r)
	}
	if se := SEFromInterval(0.88, 0.92, 0.95); math.Abs(se-0.04/(2*1.959963984540054)) > 1e-12 {
		t.Errorf("SEFromInterval = %v", se)
	}
	if SEFromInterval(0.9, 0.9, 0.95) != 0 || SEFromInterval(0.8, 0.9, 1) != 0 {
		t.Error("SEFromInterval of an empty interval or a bad level is not 0")
	}
}
