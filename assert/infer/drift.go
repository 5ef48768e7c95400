package infer

import (
	"fmt"
	"math"
)

// DriftOptions set Drift.
type DriftOptions struct {
	// MaxDrop is the largest worsening of the metric tolerated (in the
	// metric's units, ≥ 0): a drop for HigherIsBetter, a rise for
	// LowerIsBetter.
	MaxDrop float64
	// Alpha is the gate's false alarm rate when the metric has not
	// worsened by more than MaxDrop; 0 selects 0.05. Each of the two
	// tests runs at Alpha/2.
	Alpha     float64
	Direction Direction
	// Resamples, Seed and Address set the change-point test
	// (ChangeOptions); 0 and "" select its defaults.
	Resamples int
	Seed      uint64
	Address   string
}

// DriftResult is the answer of Drift.
type DriftResult struct {
	// Level is the mean of the window's values; Sigma the standard
	// deviation of one run's value the level test assumes,
	// max(sample s.d. of the window, root mean square of the standard
	// errors); Drop how much worse the current value is than Level
	// (positive: worse); Limit the drop beyond which the level test
	// fails, MaxDrop + t(W−1, 1−Alpha/2)·Sigma·√(1 + 1/W).
	Level, Sigma, Drop, Limit float64
	// P is the one-sided p-value of "the current run is no more than
	// MaxDrop worse than the window's level".
	P float64
	// LevelFail is P < Alpha/2.
	LevelFail bool
	// Change is the last change of level ChangePoints finds in the
	// window followed by the current run (Gaussian null, Alpha/2), when
	// it worsens the metric; its Index counts from the window's first
	// run (the current run is len(window)). ChangeFail is set when it
	// worsens it significantly more than MaxDrop.
	Change     *Change
	ChangeFail bool
	// ChangeFrom is the first index of the level Change.Before is the
	// mean of: the change before it, or 0.
	ChangeFrom int
	// Fail is LevelFail or ChangeFail.
	Fail bool
}

// Drift tests whether the current run's value of a metric has fallen
// below its recent level by more than opts.MaxDrop: the gate behind a
// threshold's history block (docs/statistics.md, "The drift gate").
// window holds the W earlier runs, oldest first, each with its standard
// error (0 when unknown); current is this run. Two tests, each at
// Alpha/2, so a metric that has not worsened by more than MaxDrop fails
// the gate with probability at most Alpha (Bonferroni):
//
//   - the level test: the current value against the window's mean, as a
//     new observation against a prediction interval. With σ the spread
//     of one run's value (the window's sample standard deviation, or the
//     runs' standard errors when they are larger: a fixed test set run by
//     a deterministic bot repeats its value exactly, yet its value still
//     carries the cases' sampling error), t = (Level − value − MaxDrop) /
//     (σ·√(1 + 1/W)) on W − 1 degrees of freedom; it fails when t's
//     one-sided p-value is below Alpha/2. For large W and σ the standard
//     error, that is "the current value's upper 1 − Alpha/2 bound is below
//     the level less MaxDrop";
//   - the change test: ChangePoints (GaussianNull) over the window and
//     the current run at Alpha/2; it fails when the last change it finds
//     worsens the level by more than MaxDrop beyond its own noise (the
//     drop less z(1−Alpha/2) standard errors of the difference of the two
//     levels exceeds MaxDrop), naming the run where the metric changed —
//     which may be an earlier run than the current one when the drop has
//     lasted a few runs.
//
// ok is false with fewer than 2 earlier runs, or a value that is NaN.
func Drift(window []Point, current Point, o DriftOptions) (r DriftResult, ok bool) {
	w := len(window)
	if w < 2 || math.IsNaN(current.Value) {
		return r, false
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = 0.05
	}
	sign := 1.0 // worse = lower
	if o.Direction == LowerIsBetter {
		sign = -1
	}
	var sum, se2 float64
	for _, p := range window {
		if math.IsNaN(p.Value) {
			return r, false
		}
		sum += p.Value
		se2 += p.SE * p.SE
	}
	r.Level = sum / float64(w)
	var ss float64
	for _, p := range window {
		ss += (p.Value - r.Level) * (p.Value - r.Level)
	}
	se2 = (se2 + current.SE*current.SE) / float64(w+1)
	r.Sigma = math.Sqrt(math.Max(ss/float64(w-1), se2))
	r.Drop = sign * (r.Level - current.Value)
	df := float64(w - 1)
	scale := r.Sigma * math.Sqrt(1+1/float64(w))
	r.Limit = o.MaxDrop + StudentQuantile(1-o.Alpha/2, df)*scale
	switch {
	case scale > 0:
		r.P = 1 - StudentCDF((r.Drop-o.MaxDrop)/scale, df)
	case r.Drop > o.MaxDrop:
		r.P = 0
	default:
		r.P = 1
	}
	r.LevelFail = r.P < o.Alpha/2
	r.Change, r.ChangeFrom, r.ChangeFail = lastWorsening(window, current, o, sign)
	r.Fail = r.LevelFail || r.ChangeFail
	return r, true
}

// lastWorsening runs the change test of Drift: the last change of the
// window and current run, when it worsens the metric, and whether by
// more than MaxDrop.
func lastWorsening(window []Point, current Point, o DriftOptions, sign float64) (c *Change, from int, fail bool) {
	series := append(append(make([]Point, 0, len(window)+1), window...), current)
	cs := ChangePoints(series, ChangeOptions{
		Alpha: o.Alpha / 2, Resamples: o.Resamples, Seed: o.Seed, Address: o.Address + "/drift", Null: GaussianNull,
	})
	if len(cs) == 0 {
		return nil, 0, false
	}
	last := cs[len(cs)-1]
	drop := sign * (last.Before - last.After)
	if !(drop > 0) || last.Z == 0 {
		return nil, 0, false
	}
	if len(cs) > 1 {
		from = cs[len(cs)-2].Index
	}
	// A change of level is not yet a drop beyond MaxDrop: its lower
	// one-sided bound must clear it (the standard error of After − Before
	// is |After − Before| / |Z|).
	se := math.Abs(last.After-last.Before) / math.Abs(last.Z)
	return &last, from, drop-NormalQuantile(1-o.Alpha/2)*se > o.MaxDrop
}

// SEFromInterval is the standard error a symmetric normal interval
// [lo, hi] at confidence conf implies: (hi − lo) / 2z, z the normal
// (1 + conf)/2 quantile; 0 when the interval is empty or conf is not in
// (0, 1).
func SEFromInterval(lo, hi, conf float64) float64 {
	if !(conf > 0 && conf < 1) || !(hi > lo) {
		return 0
	}
	return (hi - lo) / (2 * NormalQuantile((1+conf)/2))
}

// String shows the result's figures, for tests and debugging.
func (r DriftResult) String() string {
	s := fmt.Sprintf("level %.4g σ %.3g drop %.4g limit %.4g p %.3g", r.Level, r.Sigma, r.Drop, r.Limit, r.P)
	if r.Change != nil {
		s += fmt.Sprintf(" change at %d %.4g→%.4g p %.3g", r.Change.Index, r.Change.Before, r.Change.After, r.Change.P)
	}
	return s
}
