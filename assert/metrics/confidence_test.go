package metrics

import (
	"math"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

var nan = math.NaN()

// nearPtr reports whether got (nil: no value) is want (NaN: no value) to 4
// decimals and beyond.
func nearPtr(got *float64, want float64) bool {
	if math.IsNaN(want) {
		return got == nil
	}
	return got != nil && math.Abs(*got-want) < 1e-9
}

func show(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// OOSAcc's curves equal scikit-learn 1.2.1 (Debian python3-sklearn):
// roc_auc_score, average_precision_score, and fpr[argmax(tpr >= 0.95)]
// with thr[…] of roc_curve(drop_intermediate=False), on random vectors
// whose scores are rounded to one or two decimals (many ties) and on the
// edges: one class only (AUROC and FPR undefined, null; AUPR 1 when every
// case is in scope, null when none is — scikit-learn warns and gives 0),
// all-equal scores, a perfect ranking, 95 % reached on a tie, no cases.
// NaN in the table stands for null.
func TestOOSSklearn(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		inScope                 []bool
		score                   []float64
		auroc, aupr, fpr, thr95 float64
	}{
		{"random 1", []bool{true, false, false, true, false, false, false, true, true, false, false, false, false, true, false, false, false, true, true, false, false, true, false, false, false}, []float64{0.9, 0.5, 0.2, 0.5, 0.5, 0.7, 0.4, 0.7, 0.5, 0.3, 0.3, 0.4, 0.8, 0.8, 0.7, 0.5, 0.3, 0.3, 0.9, 0.9, 0.9, 0.0, 0.1, 0.2, 0.1}, 0.6323529411764706, 0.43394841269841267, 1.0, 0.0},
		{"random 2", []bool{false, true, true, false, true, true, true, true, false, false, true, false, false, false, true, false, true}, []float64{0.4, 0.3, 0.3, 0.8, 0.8, 0.0, 0.2, 0.8, 0.4, 0.0, 0.4, 0.0, 0.5, 1.0, 1.0, 0.1, 0.8}, 0.5694444444444444, 0.5901625607507961, 1.0, 0.0},
		{"random 3", []bool{true, false, false, false, false, false, true, false, true, false, false, false, false, true, false, true, true, false, true, true, false, false, true, true, true, false, true, true}, []float64{0.09, 0.99, 0.67, 0.02, 0.4, 0.49, 0.24, 0.14, 0.05, 0.76, 0.61, 0.58, 0.58, 0.93, 0.33, 0.37, 0.57, 0.18, 0.19, 0.87, 0.43, 0.41, 0.85, 0.43, 0.14, 0.09, 0.65, 0.75}, 0.5205128205128204, 0.5343837074606306, 0.9333333333333333, 0.05},
		{"random 4", []bool{true, false, false, true, false, true, true, true, true, true, true, false, false, true, false, true, true, false, false, true, true, false, true, false, false, false, true, false}, []float64{0.83, 0.22, 0.19, 0.72, 0.9, 0.3, 0.62, 0.49, 0.48, 0.22, 0.79, 0.77, 0.18, 0.61, 0.81, 0.82, 0.91, 0.51, 0.69, 0.32, 0.35, 0.86, 0.08, 0.24, 0.56, 0.31, 0.9, 0.36}, 0.5692307692307692, 0.6248904880808905, 1.0, 0.08},
		{"one class: all in scope", []bool{true, true, true}, []float64{0.2, 0.5, 0.9}, nan, 1.0, nan, nan},
		{"one class: all out of scope", []bool{false, false, false}, []float64{0.2, 0.5, 0.9}, nan, nan, nan, nan},
		{"all-equal scores", []bool{true, false, true, false, true}, []float64{0.5, 0.5, 0.5, 0.5, 0.5}, 0.5, 0.6, 1.0, 0.5},
		{"perfect", []bool{true, true, false, false}, []float64{0.9, 0.8, 0.3, 0.1}, 1.0, 1.0, 0.0, 0.8},
		{"95% reached on a tie", []bool{true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false}, []float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.4, 0.4, 0.4, 0.1}, 0.975, 0.9952380952380953, 0.5, 0.4},
		{"empty", []bool{}, []float64{}, nan, nan, nan, nan},
	} {
		a := NewOOSAcc(0)
		for i, s := range tc.score {
			a.Add(s, tc.inScope[i], true)
		}
		r := a.Result()
		if !nearPtr(r.AUROC, tc.auroc) || !nearPtr(r.AUPR, tc.aupr) || !nearPtr(r.FPRAt95TPR, tc.fpr) || !nearPtr(r.ThresholdAt95TPR, tc.thr95) {
			t.Errorf("%s: AUROC %v AUPR %v FPR@95 %v at %v; scikit-learn %v %v %v at %v", tc.name,
				show(r.AUROC), show(r.AUPR), show(r.FPRAt95TPR), show(r.ThresholdAt95TPR), tc.auroc, tc.aupr, tc.fpr, tc.thr95)
		}
	}
}

// CalibrationAcc's ECE, MCE and Brier equal numpy on the documented rule
// (Guo et al. 2017: 10 bins ((m−1)/10, m/10], 0 in the first; ECE =
// Σ |B_m|/n·|acc − conf|, MCE = max over non-empty bins, Brier = mean
// (conf − correct)²) on random confidences with every edge value (0, 0.3,
// 0.7, 1) and on the edges: all-equal confidences, one class only, no
// cases (every figure null).
func TestCalibrationReference(t *testing.T) {
	for _, tc := range []struct {
		name            string
		conf            []float64
		correct         []bool
		ece, mce, brier float64
	}{
		{"random 1", []float64{0.3, 0.0, 1.0, 0.7, 0.13, 0.23, 0.41, 0.79, 0.24, 0.24, 0.61, 0.97, 0.31, 0.96, 0.15, 0.59, 0.02, 0.5, 0.96, 0.24, 0.88, 0.01, 0.01, 0.97}, []bool{false, false, true, false, false, true, false, true, false, false, false, true, false, true, false, true, false, false, true, false, true, false, false, true}, 0.16583333333333336, 0.655, 0.10431666666666665},
		{"random 2", []float64{0.3, 0.0, 1.0, 0.7, 0.44, 0.99, 0.01, 0.48, 0.23, 0.25, 0.28, 0.82, 0.97, 0.35, 0.39, 0.64, 0.14, 0.33, 0.05, 0.68, 0.29, 0.38, 0.89, 0.17, 0.58, 0.21, 0.17, 0.54, 0.94, 0.37, 0.71}, []bool{false, false, true, true, false, true, false, true, false, true, false, true, true, true, false, true, false, false, true, true, false, false, false, false, false, true, true, true, true, true, true}, 0.14064516129032256, 0.355, 0.21303225806451614},
		{"random 3", []float64{0.3, 0.0, 1.0, 0.7, 0.12, 0.37, 0.78, 0.44, 0.37, 0.06, 0.0, 0.85, 0.93, 0.47, 0.01, 0.16, 0.39, 0.13, 0.31, 0.92, 0.64, 0.0, 0.04, 0.76, 0.43, 0.39, 0.41, 0.17, 0.65, 0.61, 0.75, 0.61, 0.22, 0.99}, []bool{true, false, true, true, false, false, false, false, false, false, false, true, true, false, false, true, true, true, true, true, true, false, false, true, true, false, false, true, true, false, true, true, false, true}, 0.15647058823529414, 0.605, 0.19175882352941176},
		{"all-equal confidences", []float64{0.8, 0.8, 0.8, 0.8, 0.8}, []bool{true, true, false, true, true}, 0.0, 0.0, 0.16},
		{"one class: all right", []float64{0.95, 0.6, 0.33}, []bool{true, true, true}, 0.3733333333333333, 0.6699999999999999, 0.20379999999999998},
		{"one class: all wrong", []float64{0.95, 0.6, 0.33}, []bool{false, false, false}, 0.6266666666666667, 0.95, 0.45713333333333334},
		{"empty", []float64{}, []bool{}, nan, nan, nan},
	} {
		var a CalibrationAcc
		for i, c := range tc.conf {
			a.Add(c, tc.correct[i])
		}
		r := a.Result()
		ece, okE := r.ECE.Value()
		brier, okB := r.Brier.Value()
		pe, pb := &ece, &brier
		if !okE {
			pe = nil
		}
		if !okB {
			pb = nil
		}
		if !nearPtr(pe, tc.ece) || !nearPtr(r.MCE, tc.mce) || !nearPtr(pb, tc.brier) {
			t.Errorf("%s: ECE %v MCE %v Brier %v; numpy %v %v %v", tc.name, show(pe), show(r.MCE), show(pb), tc.ece, tc.mce, tc.brier)
		}
	}
}

// The threshold table: in-scope accuracy counts right labels at or above
// the threshold, out-of-scope recall scores below it; the dimension's
// min_confidence joins the thresholds; merged accumulators equal one fed
// everything (curves and table).
func TestOOSThresholdTableAndMerge(t *testing.T) {
	type c struct {
		score          float64
		inScope, right bool
	}
	cases := []c{{0.95, true, true}, {0.6, true, true}, {0.9, true, true}, {0.8, true, false}, {0, false, false}, {0.75, false, false}}
	one, parts := NewOOSAcc(0.65), []*OOSAcc{NewOOSAcc(0.65), NewOOSAcc(0.65)}
	for i, x := range cases {
		one.Add(x.score, x.inScope, x.right)
		parts[i%2].Add(x.score, x.inScope, x.right)
	}
	parts[0].Merge(parts[1])
	for name, a := range map[string]*OOSAcc{"one": one, "merged": parts[0]} {
		r := a.Result()
		// scikit-learn 1.2.1 roc_auc_score([1,1,1,1,0,0], [.95,.6,.9,.8,0,.75]) = 0.875
		if !nearPtr(r.AUROC, 0.875) || r.InScope != 4 || r.OutOfScope != 2 {
			t.Errorf("%s: AUROC %v, %d in scope, %d out", name, show(r.AUROC), r.InScope, r.OutOfScope)
		}
		at := r.Thresholds["0.65"]
		if at == nil {
			t.Fatalf("%s: no row for min_confidence 0.65: %v", name, r.Thresholds)
		}
		if at.InScopeAccuracy != (schema.R(2, 4)) || at.OOSRecall != (schema.R(1, 2)) || at.InScopeKept != (schema.R(3, 4)) || at.OOSAccepted != (schema.R(1, 2)) {
			t.Errorf("%s: at 0.65 %+v", name, *at)
		}
		if x := r.Thresholds["0.8"]; x.InScopeAccuracy != (schema.R(2, 4)) || x.OOSRecall != (schema.R(2, 2)) {
			t.Errorf("%s: at 0.8 %+v", name, *x)
		}
		if len(r.Thresholds) != len(OOSThresholds)+1 || len(r.ROC) < 2 || r.ROC[0] != [2]float64{0, 0} || r.ROC[len(r.ROC)-1] != [2]float64{1, 1} {
			t.Errorf("%s: %d thresholds, ROC %v", name, len(r.Thresholds), r.ROC)
		}
	}
}

// ECE, MCE and Brier of merged accumulators equal one fed everything.
func TestCalibrationMerge(t *testing.T) {
	var one, a, b CalibrationAcc
	for i, x := range []float64{0, 0.1, 0.3, 0.35, 0.7, 0.99, 1} {
		one.Add(x, i%2 == 0)
		if i < 3 {
			a.Add(x, i%2 == 0)
		} else {
			b.Add(x, i%2 == 0)
		}
	}
	a.Merge(&b)
	r1, r2 := one.Result(), a.Result()
	e1, _ := r1.ECE.Value()
	e2, _ := r2.ECE.Value()
	if math.Abs(e1-e2) > 1e-12 || *r1.MCE != *r2.MCE || r1.Brier != r2.Brier || r1.Bins["0.0-0.1"].Cases != 2 || r1.Bins["0.2-0.3"].Cases != 1 {
		t.Errorf("merged %+v, want %+v", r2, r1)
	}
}
