package metrics

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// feed builds an accumulator from sklearn-style y_true / y_pred lists.
func feed(k int, yTrue, yPred []string) *LabelAcc {
	a := NewLabelAcc(k)
	for i := range yTrue {
		a.Add(yTrue[i], []string{yPred[i]})
	}
	return a
}

// ints maps integer class ids to label names.
func ints(names []string, ids ...int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = names[id]
	}
	return out
}

func val(t *testing.T, r schema.Ratio) float64 {
	t.Helper()
	v, ok := r.Value()
	if !ok {
		t.Fatalf("ratio %v has no value", r)
	}
	return v
}

// printed formats like sklearn's classification_report ("{:.2f}").
func printed(v float64) string { return fmt.Sprintf("%.2f", v) }

func wantRatio(t *testing.T, name string, got schema.Ratio, num, den float64) {
	t.Helper()
	if got.Num != num || got.Den != den {
		t.Errorf("%s = %v/%v, want %v/%v", name, got.Num, got.Den, num, den)
	}
}

func wantPrinted(t *testing.T, name string, got schema.Ratio, want string) {
	t.Helper()
	v, _ := got.Value() // undefined prints as 0, as sklearn's zero_division does
	if p := printed(v); p != want {
		t.Errorf("%s = %s (%v/%v), want %s", name, p, got.Num, got.Den, want)
	}
}

// wantPrefix checks a doctest value written with an ellipsis ("0.26...").
func wantPrefix(t *testing.T, name string, got float64, prefix string) {
	t.Helper()
	if s := fmt.Sprintf("%.12f", got); !strings.HasPrefix(s, prefix) {
		t.Errorf("%s = %s, want %s...", name, s, prefix)
	}
}

// weighted computes a support-weighted average of a per-label figure, as
// sklearn's average="weighted" does, from the per-label results.
func weighted(t *testing.T, l *schema.Label, pick func(*schema.LabelStats) schema.Ratio) float64 {
	t.Helper()
	sum, n := 0.0, 0
	for _, st := range l.Labels {
		v, _ := pick(st).Value()
		sum += v * float64(st.Support)
		n += st.Support
	}
	return sum / float64(n)
}

// Source: scikit-learn sklearn/metrics/_classification.py, docstring of
// classification_report:
//
//	y_true = [0, 1, 2, 2, 2]; y_pred = [0, 0, 2, 2, 1]
//	              precision    recall  f1-score   support
//	     class 0       0.50      1.00      0.67         1
//	     class 1       0.00      0.00      0.00         1
//	     class 2       1.00      0.67      0.80         3
//	    accuracy                           0.60         5
//	   macro avg       0.50      0.56      0.49         5
//	weighted avg       0.70      0.60      0.61         5
func TestClassificationReportDocstring(t *testing.T) {
	for _, names := range [][]string{
		{"class 0", "class 1", "class 2"},
		{"订机票", "查天气", "播放音乐"}, // the same report with Chinese intent names
	} {
		t.Run(names[0], func(t *testing.T) {
			a := feed(1, ints(names, 0, 1, 2, 2, 2), ints(names, 0, 0, 2, 2, 1))
			r := a.Result()
			rows := []struct {
				p, r, f string
				sup     int
				// exact fractions: tp/(tp+fp), tp/(tp+fn), 2tp/(2tp+fp+fn)
				pn, pd, rn, rd, fn, fd float64
			}{
				{"0.50", "1.00", "0.67", 1, 1, 2, 1, 1, 2, 3},
				{"0.00", "0.00", "0.00", 1, 0, 1, 0, 1, 0, 2},
				{"1.00", "0.67", "0.80", 3, 2, 2, 2, 3, 4, 5},
			}
			for i, want := range rows {
				st := r.Labels[names[i]]
				if st == nil {
					t.Fatalf("no stats for %q in %v", names[i], r.Labels)
				}
				wantPrinted(t, names[i]+" precision", st.Precision, want.p)
				wantPrinted(t, names[i]+" recall", st.Recall, want.r)
				wantPrinted(t, names[i]+" f1", st.F1, want.f)
				wantRatio(t, names[i]+" precision", st.Precision, want.pn, want.pd)
				wantRatio(t, names[i]+" recall", st.Recall, want.rn, want.rd)
				wantRatio(t, names[i]+" f1", st.F1, want.fn, want.fd)
				if st.Support != want.sup {
					t.Errorf("%s support = %d, want %d", names[i], st.Support, want.sup)
				}
			}
			if len(r.Labels) != 3 {
				t.Errorf("labels = %v, want 3", r.Labels)
			}
			wantRatio(t, "accuracy", r.Accuracy, 3, 5)
			wantPrinted(t, "accuracy", r.Accuracy, "0.60")
			wantPrinted(t, "macro precision", r.MacroPrecision, "0.50")
			wantPrinted(t, "macro recall", r.MacroRecall, "0.56")
			wantPrinted(t, "macro f1", r.MacroF1, "0.49")
			if r.MacroF1.Den != 3 {
				t.Errorf("macro f1 den = %v, want 3 labels", r.MacroF1.Den)
			}
			if got := printed(weighted(t, r, func(s *schema.LabelStats) schema.Ratio { return s.Precision })); got != "0.70" {
				t.Errorf("weighted precision = %s, want 0.70", got)
			}
			if got := printed(weighted(t, r, func(s *schema.LabelStats) schema.Ratio { return s.Recall })); got != "0.60" {
				t.Errorf("weighted recall = %s, want 0.60", got)
			}
			wantPrinted(t, "weighted f1", r.WeightedF1, "0.61")
			if r.WeightedF1.Den != 5 {
				t.Errorf("weighted f1 den = %v, want support 5", r.WeightedF1.Den)
			}
			// Without a ranking, K is 0 and top-k equals accuracy.
			if r.K != 0 {
				t.Errorf("K = %d, want 0", r.K)
			}
			wantRatio(t, "top-k", r.TopKAccuracy, 3, 5)
			wantRatio(t, "recognition rate", r.RecognitionRate, 3, 5)
		})
	}
}

// Source: scikit-learn docstrings of f1_score, precision_score and
// recall_score (y_true = [0, 1, 2, 0, 1, 2], y_pred = [0, 2, 1, 0, 0, 1]):
//
//	f1_score        macro 0.26...  micro 0.33...  weighted 0.26...  None [0.8, 0., 0.]
//	precision_score macro 0.22...  weighted 0.22...                 None [0.66..., 0., 0.]
//	recall_score    macro 0.33...  weighted 0.33...                 None [1., 0., 0.]
//
// precision_recall_fscore_support's docstring gives the same figures for
// the cat/dog/pig version of these lists (macro (0.22..., 0.33..., 0.26...)).
func TestF1ScoreDocstring(t *testing.T) {
	names := []string{"订机票", "查天气", "播放音乐"}
	r := feed(1, ints(names, 0, 1, 2, 0, 1, 2), ints(names, 0, 2, 1, 0, 0, 1)).Result()

	wantPrefix(t, "macro f1", val(t, r.MacroF1), "0.26")
	wantPrefix(t, "micro f1", val(t, r.MicroF1), "0.33")
	wantPrefix(t, "weighted f1", val(t, r.WeightedF1), "0.26")
	wantPrefix(t, "macro precision", val(t, r.MacroPrecision), "0.22")
	wantPrefix(t, "macro recall", val(t, r.MacroRecall), "0.33")
	wantPrefix(t, "weighted precision", weighted(t, r, func(s *schema.LabelStats) schema.Ratio { return s.Precision }), "0.22")
	wantPrefix(t, "weighted recall", weighted(t, r, func(s *schema.LabelStats) schema.Ratio { return s.Recall }), "0.33")

	perF1 := []float64{0.8, 0, 0}
	perP := []string{"0.66", "0.00", "0.00"}
	perR := []float64{1, 0, 0}
	for i, n := range names {
		st := r.Labels[n]
		if f := val(t, st.F1); f != perF1[i] {
			t.Errorf("%s f1 = %v, want %v", n, f, perF1[i])
		}
		wantPrefix(t, n+" precision", val(t, st.Precision), perP[i])
		if v := val(t, st.Recall); v != perR[i] {
			t.Errorf("%s recall = %v, want %v", n, v, perR[i])
		}
	}
	// Exact: micro F1 = 2Σtp / (2Σtp + Σfp + Σfn) = 4 / 12.
	wantRatio(t, "micro f1", r.MicroF1, 4, 12)
}

// Source: scikit-learn docstring of confusion_matrix:
//
//	y_true = [2, 0, 2, 2, 0, 1]; y_pred = [0, 0, 2, 2, 0, 2]
//	→ [[2, 0, 0], [0, 0, 1], [1, 0, 2]]
//	y_true = ["cat", "ant", "cat", "cat", "ant", "bird"]
//	y_pred = ["ant", "ant", "cat", "cat", "ant", "cat"]
//	labels=["ant", "bird", "cat"] → [[2, 0, 0], [0, 0, 1], [1, 0, 2]]
func TestConfusionMatrixDocstring(t *testing.T) {
	want := [][]int{{2, 0, 0}, {0, 0, 1}, {1, 0, 2}}
	// 播放音乐 < 查天气 < 订机票 in code point order, like ant < bird < cat.
	zh := map[string]string{"ant": "播放音乐", "bird": "查天气", "cat": "订机票"}
	zhOf := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = zh[s]
		}
		return out
	}
	animalsTrue := []string{"cat", "ant", "cat", "cat", "ant", "bird"}
	animalsPred := []string{"ant", "ant", "cat", "cat", "ant", "cat"}
	tests := []struct {
		name         string
		yTrue, yPred []string
		labels       []string
	}{
		{"ints", []string{"2", "0", "2", "2", "0", "1"}, []string{"0", "0", "2", "2", "0", "2"}, []string{"0", "1", "2"}},
		{"strings", animalsTrue, animalsPred, []string{"ant", "bird", "cat"}},
		{"中文", zhOf(animalsTrue), zhOf(animalsPred), []string{"播放音乐", "查天气", "订机票"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := feed(1, tc.yTrue, tc.yPred).Result().Confusion
			if c == nil {
				t.Fatal("no confusion matrix")
			}
			if !reflect.DeepEqual(c.Labels, tc.labels) {
				t.Errorf("labels = %q, want %q", c.Labels, tc.labels)
			}
			if !reflect.DeepEqual(c.Counts, want) {
				t.Errorf("counts = %v, want %v", c.Counts, want)
			}
		})
	}
}

// rankScores turns one row of a score matrix into class ids best first,
// breaking ties the way top_k_accuracy_score documents: "the labels with
// the highest indices will be chosen first".
func rankScores(names []string, scores []float64) []string {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if scores[idx[a]] != scores[idx[b]] {
			return scores[idx[a]] > scores[idx[b]]
		}
		return idx[a] > idx[b]
	})
	return ints(names, idx...)
}

// Source: scikit-learn docstring of top_k_accuracy_score:
//
//	y_true = [0, 1, 2, 2]
//	y_score = [[0.5, 0.2, 0.2],  # 0 is in top 2
//	           [0.3, 0.4, 0.2],  # 1 is in top 2
//	           [0.2, 0.4, 0.3],  # 2 is in top 2
//	           [0.7, 0.2, 0.1]]  # 2 isn't in top 2
//	top_k_accuracy_score(y_true, y_score, k=2) → 0.75; normalize=False → 3
//
// YD/T 4394.2-2023 §意图识别率: W = S1 / S with S1 = exact + fuzzy recognitions; here
// rows 0 and 1 are exact, row 2 is fuzzy (second), row 3 is not recognised.
func TestTopKAccuracyDocstring(t *testing.T) {
	names := []string{"订机票", "查天气", "播放音乐"}
	yTrue := []int{0, 1, 2, 2}
	scores := [][]float64{{0.5, 0.2, 0.2}, {0.3, 0.4, 0.2}, {0.2, 0.4, 0.3}, {0.7, 0.2, 0.1}}
	a := NewLabelAcc(2)
	for i, row := range scores {
		a.Add(names[yTrue[i]], rankScores(names, row))
	}
	r := a.Result()
	if r.K != 2 {
		t.Errorf("K = %d, want 2", r.K)
	}
	wantRatio(t, "top-2 accuracy", r.TopKAccuracy, 3, 4)
	if v := val(t, r.TopKAccuracy); v != 0.75 {
		t.Errorf("top-2 accuracy = %v, want 0.75", v)
	}
	wantRatio(t, "recognition rate", r.RecognitionRate, 3, 4)
	wantRatio(t, "accuracy (exact only)", r.Accuracy, 2, 4)

	// The same data with k = 1 (no ranking): top-k is accuracy.
	b := NewLabelAcc(1)
	for i, row := range scores {
		b.Add(names[yTrue[i]], rankScores(names, row))
	}
	rb := b.Result()
	wantRatio(t, "top-1", rb.TopKAccuracy, 2, 4)
	if rb.K != 0 {
		t.Errorf("K = %d, want 0 without a ranking", rb.K)
	}
}

// A case without a prediction is a miss for its expected label and no
// false positive for any label. That is sklearn's behaviour for a
// prediction outside `labels`. Source: scikit-learn docstring of
// classification_report, second example:
//
//	y_pred = [1, 1, 0]; y_true = [1, 1, 1]; labels=[1, 2, 3]
//	           1       1.00      0.67      0.80         3
//	   micro avg       1.00      0.67      0.80         3
//
// Here the third case has no prediction at all.
func TestNoPredictionDocstring(t *testing.T) {
	a := NewLabelAcc(3)
	a.Add("订机票", []string{"订机票"})
	a.Add("订机票", []string{"订机票", "查天气"})
	a.Add("订机票", nil) // confidence below min_confidence
	r := a.Result()
	st := r.Labels["订机票"]
	wantPrinted(t, "precision", st.Precision, "1.00")
	wantPrinted(t, "recall", st.Recall, "0.67")
	wantPrinted(t, "f1", st.F1, "0.80")
	if st.Support != 3 {
		t.Errorf("support = %d, want 3", st.Support)
	}
	wantPrinted(t, "micro f1", r.MicroF1, "0.80")
	wantRatio(t, "micro f1", r.MicroF1, 4, 5)
	if len(r.Labels) != 1 {
		t.Errorf("labels = %v: a missing prediction must not become a label", r.Labels)
	}
	wantRatio(t, "accuracy", r.Accuracy, 2, 3)
	wantRatio(t, "top-3", r.TopKAccuracy, 2, 3)
	c := r.Confusion
	if !reflect.DeepEqual(c.Labels, []string{"订机票", NoPrediction}) ||
		!reflect.DeepEqual(c.Counts, [][]int{{2, 1}, {0, 0}}) {
		t.Errorf("confusion = %q %v", c.Labels, c.Counts)
	}
}

// A label never predicted has an undefined precision ("n/a", den 0) that
// macro averages count as 0, as sklearn's zero_division default does: the
// classification_report docstring's second example prints 0.00 for the
// unpredicted labels 2 and 3 and averages them in (macro precision 0.33 =
// (1 + 0 + 0) / 3).
func TestUndefinedRatiosCountAsZero(t *testing.T) {
	a := NewLabelAcc(1)
	a.Add("订机票", []string{"订机票"})
	a.Add("查天气", []string{"订机票"})
	r := a.Result()
	st := r.Labels["查天气"]
	if _, ok := st.Precision.Value(); ok || st.Precision.Den != 0 {
		t.Errorf("precision of a never-predicted label = %v, want n/a", st.Precision)
	}
	// 订机票: P 1/2; 查天气: P n/a → 0. Macro = 0.5 / 2.
	wantRatio(t, "macro precision", r.MacroPrecision, 0.5, 2)
	b, err := json.Marshal(st.Precision)
	if err != nil || string(b) != `{"value":null,"num":0,"den":0}` {
		t.Errorf("n/a precision marshals as %s (%v)", b, err)
	}
}

func TestRankingDuplicatesCountOnce(t *testing.T) {
	a := NewLabelAcc(2)
	a.Add("查天气", []string{"订机票", "订机票", "查天气"})
	a.Add("播放音乐", []string{"订机票", "订机票", "查天气", "播放音乐"})
	r := a.Result()
	wantRatio(t, "top-2", r.TopKAccuracy, 1, 2)
}

func TestLabelEmpty(t *testing.T) {
	var a LabelAcc
	r := a.Result()
	if r.Total != 0 || r.Confusion != nil || len(r.Labels) != 0 || r.Labels == nil {
		t.Errorf("empty result = %+v", r)
	}
	for name, ratio := range map[string]schema.Ratio{
		"accuracy": r.Accuracy, "macro f1": r.MacroF1, "micro f1": r.MicroF1,
		"weighted f1": r.WeightedF1, "top-k": r.TopKAccuracy,
	} {
		if _, ok := ratio.Value(); ok {
			t.Errorf("%s of no cases = %v, want n/a", name, ratio)
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Error(err)
	}
}

type labelCase struct {
	expected string
	ranked   []string
}

func randomLabelCases(n int) []labelCase {
	labels := []string{"订机票", "查天气", "播放音乐", "导航", "闲聊", "weather.query"}
	rng := rand.New(rand.NewPCG(4, 2))
	out := make([]labelCase, n)
	for i := range out {
		c := labelCase{expected: labels[rng.IntN(len(labels))]}
		if rng.IntN(10) > 0 { // one case in ten has no prediction
			perm := rng.Perm(len(labels))
			for _, p := range perm[:1+rng.IntN(4)] {
				c.ranked = append(c.ranked, labels[p])
			}
			if rng.IntN(2) == 0 { // bias towards right answers
				c.ranked[0] = c.expected
			}
		}
		out[i] = c
	}
	return out
}

func TestLabelMerge(t *testing.T) {
	cases := randomLabelCases(500)
	for _, k := range []int{1, 3} {
		whole := NewLabelAcc(k)
		parts := []*LabelAcc{NewLabelAcc(k), NewLabelAcc(k), NewLabelAcc(k)}
		for i, c := range cases {
			whole.Add(c.expected, c.ranked)
			parts[i%3].Add(c.expected, c.ranked)
		}
		merged := NewLabelAcc(k)
		for _, p := range []*LabelAcc{parts[2], parts[0], parts[1]} {
			merged.Merge(p)
		}
		merged.Merge(nil)
		if got, want := merged.Result(), whole.Result(); !reflect.DeepEqual(got, want) {
			t.Errorf("k=%d: merged result differs\n got %+v\nwant %+v", k, got, want)
		}
		// The zero value takes the other side's k.
		var zero LabelAcc
		zero.Merge(whole)
		if !reflect.DeepEqual(zero.Result(), whole.Result()) {
			t.Errorf("k=%d: zero.Merge(whole) differs from whole", k)
		}
	}

	// Different k: the merge keeps the smaller one and equals an
	// accumulator with that k fed everything.
	a3, b2, whole2 := NewLabelAcc(3), NewLabelAcc(2), NewLabelAcc(2)
	for i, c := range cases {
		whole2.Add(c.expected, c.ranked)
		if i%2 == 0 {
			a3.Add(c.expected, c.ranked)
		} else {
			b2.Add(c.expected, c.ranked)
		}
	}
	a3.Merge(b2)
	if got, want := a3.Result(), whole2.Result(); !reflect.DeepEqual(got, want) {
		t.Errorf("k 3+2: got %+v, want %+v", got, want)
	}

	// Self-merge doubles every count.
	self := NewLabelAcc(2)
	self.Add("订机票", []string{"订机票"})
	self.Merge(self)
	if r := self.Result(); r.Total != 2 || r.Confusion.Counts[0][0] != 2 {
		t.Errorf("self-merge = %+v", r)
	}
}

// Order of Add must not matter.
func TestLabelOrderIndependent(t *testing.T) {
	cases := randomLabelCases(200)
	fwd, rev := NewLabelAcc(3), NewLabelAcc(3)
	for i := range cases {
		fwd.Add(cases[i].expected, cases[i].ranked)
		c := cases[len(cases)-1-i]
		rev.Add(c.expected, c.ranked)
	}
	a, _ := json.Marshal(fwd.Result())
	b, _ := json.Marshal(rev.Result())
	if string(a) != string(b) {
		t.Errorf("results depend on order:\n%s\n%s", a, b)
	}
}
