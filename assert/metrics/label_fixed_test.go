package metrics

import (
	"math"
	"testing"
)

// A declared label set behaves as scikit-learn's labels= argument. The
// data is the example of precision_recall_fscore_support's docstring
// (y_true cat dog pig cat dog pig, y_pred cat pig dog cat cat dog); the
// figures for labels=['cat', 'dog', 'fish'] were printed by scikit-learn
// 1.2.1: per label P (0.667, 0, 0), R (1, 0, 0), F1 (0.8, 0, 0), support
// (2, 2, 0); macro P/R/F1 0.2222, 0.3333, 0.2667; micro F1 0.4444;
// weighted F1 0.4. pig, outside the set, has no figures; fish, never seen,
// has zero counts.
func TestLabelSetAsScikitLearnLabels(t *testing.T) {
	a := NewLabelAcc(1)
	a.SetLabels([]string{"fish", "dog", "cat"})
	yTrue := []string{"cat", "dog", "pig", "cat", "dog", "pig"}
	yPred := []string{"cat", "pig", "dog", "cat", "cat", "dog"}
	for i := range yTrue {
		a.Add(yTrue[i], []string{yPred[i]})
	}
	r := a.Result()
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	val := func(num, den float64) float64 { return num / den }
	near("macro precision", val(r.MacroPrecision.Num, r.MacroPrecision.Den), 2.0/9)
	near("macro recall", val(r.MacroRecall.Num, r.MacroRecall.Den), 1.0/3)
	near("macro f1", val(r.MacroF1.Num, r.MacroF1.Den), 0.26666666666666666)
	near("micro f1", val(r.MicroF1.Num, r.MicroF1.Den), 0.4444444444444445)
	near("weighted f1", val(r.WeightedF1.Num, r.WeightedF1.Den), 0.4)
	near("accuracy (every case)", val(r.Accuracy.Num, r.Accuracy.Den), 2.0/6)
	if len(r.Labels) != 3 || r.Labels["pig"] != nil || r.Labels["fish"] == nil || r.Labels["fish"].Support != 0 {
		t.Errorf("labels %v, want cat, dog and fish", r.Labels)
	}
	if _, ok := r.Labels["fish"].Precision.Value(); ok {
		t.Error("fish's precision has a value; it was never predicted")
	}
	near("cat f1", val(r.Labels["cat"].F1.Num, r.Labels["cat"].F1.Den), 0.8)
}
