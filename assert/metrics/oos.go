package metrics

import (
	"slices"
	"strconv"

	"github.com/nlutest/nlutest/schema"
)

// OOSThresholds are the thresholds of the out-of-scope threshold table
// besides a dimension's own min_confidence.
var OOSThresholds = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}

// OOSAcc accumulates one label dimension's out-of-scope detection: per
// case whether it is in scope (the positive class), its score (how sure
// the service is that it is in scope) and whether its label was right.
// Scores are kept, 8 bytes per case, for the curves; the threshold table
// is counted as cases come.
type OOSAcc struct {
	thresholds []float64
	pos, neg   []float64
	// per threshold: in-scope cases right at or above it, in-scope cases
	// at or above it, out-of-scope cases below it
	right, kept, below []int
}

// NewOOSAcc returns an empty accumulator whose threshold table has
// OOSThresholds and extra (a dimension's min_confidence; 0 for none).
func NewOOSAcc(extra float64) *OOSAcc {
	ts := slices.Clone(OOSThresholds)
	if extra > 0 && !slices.Contains(ts, extra) {
		ts = append(ts, extra)
		slices.Sort(ts)
	}
	return &OOSAcc{thresholds: ts, right: make([]int, len(ts)), kept: make([]int, len(ts)), below: make([]int, len(ts))}
}

// Add counts one case: inScope is the truth, score the service's
// in-scope score, right whether the predicted label was the expected one
// (in-scope cases only).
func (a *OOSAcc) Add(score float64, inScope, right bool) {
	if !inScope {
		a.neg = append(a.neg, score)
		for i, t := range a.thresholds {
			if score < t {
				a.below[i]++
			}
		}
		return
	}
	a.pos = append(a.pos, score)
	for i, t := range a.thresholds {
		if score >= t {
			a.kept[i]++
			if right {
				a.right[i]++
			}
		}
	}
}

// Merge adds b's cases to a (an accumulator of the same dimension).
func (a *OOSAcc) Merge(b *OOSAcc) {
	a.pos = append(a.pos, b.pos...)
	a.neg = append(a.neg, b.neg...)
	for i := range a.thresholds {
		a.right[i] += b.right[i]
		a.kept[i] += b.kept[i]
		a.below[i] += b.below[i]
	}
}

// Cases returns the number of cases counted.
func (a *OOSAcc) Cases() int { return len(a.pos) + len(a.neg) }

// rocPoint is the ROC curve at one threshold: the cases scored at or
// above it.
type rocPoint struct {
	threshold float64
	tp, fp    int
}

// roc is scikit-learn's roc_curve(drop_intermediate=False) without its
// first point (threshold +inf): one point per distinct score, highest
// first.
func roc(pos, neg []float64) []rocPoint {
	var out []rocPoint
	i, j := len(pos)-1, len(neg)-1 // both sorted ascending
	tp, fp := 0, 0
	for i >= 0 || j >= 0 {
		s := 0.0
		switch {
		case i < 0:
			s = neg[j]
		case j < 0:
			s = pos[i]
		default:
			s = max(pos[i], neg[j])
		}
		for i >= 0 && pos[i] == s {
			tp++
			i--
		}
		for j >= 0 && neg[j] == s {
			fp++
			j--
		}
		out = append(out, rocPoint{s, tp, fp})
	}
	return out
}

// Result returns the figures:
//
//   - AUROC: the probability that an in-scope case scores above an
//     out-of-scope one, ties counting one half — the area under the ROC
//     curve, scikit-learn's roc_auc_score; nil with one class only;
//   - AUPR: average precision, Σ_k (R_k − R_{k−1})·P_k over the distinct
//     scores from the highest, scikit-learn's average_precision_score;
//     nil without in-scope cases (scikit-learn warns and gives 0), 1 when
//     every case is in scope;
//   - FPR at 95 % TPR: going down the distinct scores, at the first (the
//     highest) threshold whose TPR (in-scope cases scored at or above it)
//     reaches 0.95, the FPR (out-of-scope cases scored at or above it) —
//     no interpolation between thresholds; fpr[argmax(tpr >= 0.95)] of
//     roc_curve(drop_intermediate=False); nil with one class only;
//   - the threshold table, and the ROC curve for charts.
func (a *OOSAcc) Result() *schema.OOS {
	pos, neg := slices.Sorted(slices.Values(a.pos)), slices.Sorted(slices.Values(a.neg))
	np, nn := len(pos), len(neg)
	out := &schema.OOS{InScope: np, OutOfScope: nn, Thresholds: make(map[string]*schema.OOSThreshold, len(a.thresholds))}
	for i, t := range a.thresholds {
		out.Thresholds[strconv.FormatFloat(t, 'f', -1, 64)] = &schema.OOSThreshold{
			InScopeAccuracy: schema.R(a.right[i], np),
			OOSRecall:       schema.R(a.below[i], nn),
			InScopeKept:     schema.R(a.kept[i], np),
			OOSAccepted:     schema.R(nn-a.below[i], nn),
		}
	}
	if np > 0 && nn > 0 {
		auc := aurocOf(pos, neg)
		out.AUROC = &auc
	}
	curve := roc(pos, neg)
	if np > 0 {
		ap, prevRecall := 0.0, 0.0
		for _, p := range curve {
			recall := float64(p.tp) / float64(np)
			ap += (recall - prevRecall) * float64(p.tp) / float64(p.tp+p.fp)
			prevRecall = recall
		}
		out.AUPR = &ap
	}
	if np > 0 && nn > 0 {
		for _, p := range curve {
			if float64(p.tp)/float64(np) >= 0.95 {
				fpr, t := float64(p.fp)/float64(nn), p.threshold
				out.FPRAt95TPR, out.ThresholdAt95TPR = &fpr, &t
				break
			}
		}
		out.ROC = rocChart(curve, np, nn)
	}
	return out
}

// aurocOf is the Mann–Whitney statistic over P·N: for each in-scope score
// the out-of-scope scores below it, plus half those equal to it. pos and
// neg are sorted ascending.
func aurocOf(pos, neg []float64) float64 {
	var twice int64 // 2·U, exact
	lo, hi := 0, 0  // neg[:lo] < s, neg[:hi] <= s
	for _, s := range pos {
		for lo < len(neg) && neg[lo] < s {
			lo++
		}
		if hi < lo {
			hi = lo
		}
		for hi < len(neg) && neg[hi] <= s {
			hi++
		}
		twice += int64(lo + hi)
	}
	return float64(twice) / (2 * float64(len(pos)) * float64(len(neg)))
}

// rocChart is the ROC curve from (0, 0) as [FPR, TPR] points: every
// step-th point, step chosen so about 100 are drawn, and the last.
func rocChart(curve []rocPoint, np, nn int) [][2]float64 {
	const most = 100
	pts := [][2]float64{{0, 0}}
	step := max(1, (len(curve)+most-1)/most)
	for i := step - 1; i < len(curve); i += step {
		pts = append(pts, [2]float64{float64(curve[i].fp) / float64(nn), float64(curve[i].tp) / float64(np)})
	}
	if last := curve[len(curve)-1]; (len(curve)-1)%step != step-1 {
		pts = append(pts, [2]float64{float64(last.fp) / float64(nn), float64(last.tp) / float64(np)})
	}
	return pts
}
