package metrics

import (
	"math"

	"github.com/nlutest/nlutest/schema"
)

// CalibrationBins is the number of equal-width confidence bins of the
// expected calibration error (Guo et al. 2017: M = 10).
const CalibrationBins = 10

// CalibrationAcc accumulates how well one label dimension's confidences
// match its accuracy (Guo, Pleiss, Sun, Weinberger, "On Calibration of
// Modern Neural Networks", ICML 2017): each case gives the confidence of
// the top prediction and whether that prediction was the expected label.
// The zero value is ready to use.
//
// Bin m (m = 1…10) holds the confidences in ((m−1)/10, m/10]: a confidence
// on an edge belongs to the lower bin (0.3 is in (0.2, 0.3]), and 0 to the
// first bin. The edges are the numbers m/10 as written in decimal.
type CalibrationAcc struct {
	n, correct int
	outOfRange int
	conf       float64 // Σ confidence
	brier      float64 // Σ (confidence − correct)²
	bins       [CalibrationBins]calBin
}

type calBin struct {
	n, correct int
	conf       float64
}

// calibrationBin is the bin of confidence c in [0, 1].
func calibrationBin(c float64) int {
	for m := 1; m < CalibrationBins; m++ {
		if c <= float64(m)/CalibrationBins {
			return m - 1
		}
	}
	return CalibrationBins - 1
}

// Add counts one case: the top prediction's confidence c (in [0, 1]) and
// whether the prediction was right.
func (a *CalibrationAcc) Add(c float64, correct bool) {
	y := 0.0
	b := &a.bins[calibrationBin(c)]
	a.n++
	b.n++
	if correct {
		y = 1
		a.correct++
		b.correct++
	}
	a.conf += c
	b.conf += c
	a.brier += (c - y) * (c - y)
}

// OutOfRange counts a case whose confidence is not in [0, 1] (not a
// probability): it is left out of every figure.
func (a *CalibrationAcc) OutOfRange() { a.outOfRange++ }

// Merge adds b's cases to a.
func (a *CalibrationAcc) Merge(b *CalibrationAcc) {
	a.n += b.n
	a.outOfRange += b.outOfRange
	a.correct += b.correct
	a.conf += b.conf
	a.brier += b.brier
	for i := range a.bins {
		a.bins[i].n += b.bins[i].n
		a.bins[i].correct += b.bins[i].correct
		a.bins[i].conf += b.bins[i].conf
	}
}

// Cases returns the number of cases counted.
func (a *CalibrationAcc) Cases() int { return a.n }

// BinKey names bin i (0-based): "0.0-0.1" … "0.9-1.0".
func BinKey(i int) string { return schema.CalibrationBinKeys[i] }

// Result returns the dimension's calibration figures:
//
//   - ECE = Σ_m (|B_m| / n)·|acc(B_m) − conf(B_m)| = Σ_m |correct_m − Σconf_m| / n;
//   - MCE = max over the bins with cases of |acc(B_m) − conf(B_m)| (null
//     without cases), rounded to 9 decimals as the report's ratios are;
//   - Brier = Σ (confidence − correct)² / n, the top label's binary Brier
//     score (correct is 1 or 0);
//
// with the accuracy and mean confidence over all cases and per bin (every
// bin listed; an empty one has no data).
func (a *CalibrationAcc) Result() *schema.Calibration {
	out := &schema.Calibration{
		Cases:          a.n,
		OutOfRange:     a.outOfRange,
		Accuracy:       schema.R(a.correct, a.n),
		MeanConfidence: schema.Ratio{Num: a.conf, Den: float64(a.n)},
		Brier:          schema.Ratio{Num: a.brier, Den: float64(a.n)},
		Bins:           make(map[string]*schema.CalibrationBin, CalibrationBins),
	}
	gaps := 0.0
	for i, b := range a.bins {
		nb := &schema.CalibrationBin{
			Cases:          b.n,
			Accuracy:       schema.R(b.correct, b.n),
			MeanConfidence: schema.Ratio{Num: b.conf, Den: float64(b.n)},
		}
		out.Bins[BinKey(i)] = nb
		if b.n == 0 {
			continue
		}
		// |acc − conf| · n_b = |correct − Σconf|
		g := math.Abs(float64(b.correct) - b.conf)
		gaps += g
		// to 9 decimals, as the report writes ratios: Σconf depends on
		// the order the cases were added in (a sharded run's merge) by
		// an ulp or two
		gap := math.Round(g/float64(b.n)*1e9) / 1e9
		nb.Gap = &gap
		if out.MCE == nil || gap > *out.MCE {
			out.MCE = &gap
		}
	}
	out.ECE = schema.Ratio{Num: gaps, Den: float64(a.n)}
	return out
}
