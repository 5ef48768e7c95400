package assert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// topKSuite is a rasa suite whose intent dimension looks at the top k of
// the ranking, ordered by the ranking's confidences.
func topKSuite(k int) string {
	return fmt.Sprintf(`
suite "topk" { schema = "r" }
schema "r" {
  extends = "rasa"
  dimension "intent" {
    kind               = "label"
    path               = "$.intent.name"
    ranking            = "$.intent_ranking[*].name"
    ranking_confidence = "$.intent_ranking[*].confidence"
    top_k              = %d
  }
}
template "t" {
  text   = "x"
  expect = { "$.intent.name" = "x" }
}
`, k)
}

// topK evaluates one case per row of scores (scores[i][j] is the score of
// integer label j), the ranking listed in a shuffled order and the
// prediction the first label, and returns top_k_accuracy as num/den.
func topK(t *testing.T, k int, yTrue []int, scores [][]float64) schema.Ratio {
	s := loadSuite(t, topKSuite(k))
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	rnd := rand.New(rand.NewPCG(1, uint64(k)))
	for i, row := range scores {
		type entry struct {
			Name       int     `json:"name"`
			Confidence float64 `json:"confidence"`
		}
		var ranking []entry
		for j, sc := range row {
			ranking = append(ranking, entry{j, sc})
		}
		rnd.Shuffle(len(ranking), func(a, b int) { ranking[a], ranking[b] = ranking[b], ranking[a] })
		body, _ := json.Marshal(map[string]any{"intent": map[string]any{"name": 0}, "intent_ranking": ranking})
		r := &schema.Result{Case: schema.Case{ID: fmt.Sprint(i), Template: "t", Source: "t", SourceKind: "template",
			Expect: schema.Expectations{{Path: "$.intent.name", Value: int64(yTrue[i])}}}, Response: body}
		col.Add(r, ev.Evaluate(r))
	}
	l := col.Metrics().Node.Label["intent"]
	if l == nil {
		t.Fatal("no metrics.label.intent node for integer labels")
	}
	return l.TopKAccuracy
}

// Top-k accuracy ranks by the ranking's confidences, whatever order the
// service lists them in, and breaks ties towards the higher label index,
// as scikit-learn's top_k_accuracy_score.
func TestTopKEqualsScikitLearn(t *testing.T) {
	for _, c := range []struct {
		name     string
		yTrue    []int
		scores   [][]float64
		k        int
		num, den float64
	}{
		// The example of top_k_accuracy_score's docstring (scikit-learn
		// sklearn/metrics/_ranking.py): 0.75, 3 with normalize=False.
		{"docstring example k=2", []int{0, 1, 2, 2}, [][]float64{{0.5, 0.2, 0.2}, {0.3, 0.4, 0.2}, {0.2, 0.4, 0.3}, {0.7, 0.2, 0.1}}, 2, 3, 4},
		// test_top_k_accuracy_score_ties (sklearn/metrics/tests/
		// test_ranking.py): "highest indices labels are chosen first in
		// case of ties" — 0.25, 0.5 and 1 for k = 1, 2, 3.
		{"ties k=1", []int{0, 1, 2, 3}, sklearnTies, 1, 1, 4},
		{"ties k=2", []int{0, 1, 2, 3}, sklearnTies, 2, 2, 4},
		{"ties k=3", []int{0, 1, 2, 3}, sklearnTies, 3, 4, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := topK(t, c.k, c.yTrue, c.scores)
			if got.Num != c.num || got.Den != c.den {
				t.Errorf("top_k_accuracy = %v/%v, want %v/%v (scikit-learn)", got.Num, got.Den, c.num, c.den)
			}
		})
	}
}

var sklearnTies = [][]float64{{5, 5, 7, 0}, {1, 5, 5, 5}, {0, 0, 3, 3}, {1, 1, 1, 1}}

// TestTopKWithoutPrediction: top-k accuracy follows the ranking's scores
// whether or not the case has a prediction, as scikit-learn's
// top_k_accuracy_score reads only the score matrix: a missing intent name
// or one under min_confidence is a miss for accuracy only. The audit's
// case (true b; ranking a 0.5, b 0.4, c 0.1; k = 2) is 1.0 in
// top_k_accuracy_score with the name null, or "a" at 0.3 under
// min_confidence 0.5 (nlutest gave 0 before); the 16 Chinese cases below
// (names null or under 0.5 in 9, tied scores) are scikit-learn 1.2.1's
// top_k_accuracy_score(y_true, scores, k, labels=sorted labels) with
// normalize=False: 7, 11 and 14 for k = 1, 2, 3, and accuracy_score 2/16
// with the predictions under 0.5 as no prediction.
func TestTopKWithoutPrediction(t *testing.T) {
	abc := []string{"a", "b", "c"}
	audit := [][]float64{{0.5, 0.4, 0.1}}
	for _, c := range []struct {
		name string
		pred string
		conf float64
	}{{"name null", "", 0.9}, {"under min_confidence", "a", 0.3}, {"control", "a", 0.9}} {
		l := topKNoPred(t, 2, abc, []topKRow{{"b", c.pred, c.conf, audit[0]}})
		if l.TopKAccuracy.Num != 1 || l.TopKAccuracy.Den != 1 || l.RecognitionRate.Num != 1 {
			t.Errorf("audit case, %s: top_k_accuracy %v, recognition_rate %v; top_k_accuracy_score 1.0", c.name, l.TopKAccuracy, l.RecognitionRate)
		}
		if l.Accuracy.Num != 0 {
			t.Errorf("audit case, %s: accuracy %v, want 0 (b was not predicted)", c.name, l.Accuracy)
		}
	}
	labels := []string{"订机票", "查天气", "退订", "问候"}
	rows := []topKRow{
		{"问候", "订机票", 0.21, []float64{0.5, 0.75, 0.0, 0.5}},
		{"订机票", "订机票", 0.42, []float64{1.0, 0.0, 1.0, 0.25}},
		{"退订", "查天气", 0.55, []float64{1.0, 0.75, 1.0, 0.0}},
		{"订机票", "退订", 0.41, []float64{0.25, 0.25, 1.0, 0.75}},
		{"订机票", "", 0.56, []float64{1.0, 0.25, 0.0, 1.0}},
		{"查天气", "", 0.58, []float64{0.75, 1.0, 0.75, 0.75}},
		{"问候", "问候", 0.44, []float64{0.75, 0.5, 0.25, 0.0}},
		{"问候", "问候", 0.63, []float64{0.75, 0.0, 0.75, 0.25}},
		{"问候", "退订", 0.95, []float64{0.25, 0.0, 0.0, 0.25}},
		{"查天气", "查天气", 0.22, []float64{0.25, 0.5, 0.25, 0.25}},
		{"问候", "问候", 0.36, []float64{0.75, 0.75, 0.75, 0.75}},
		{"问候", "问候", 0.5, []float64{0.0, 0.5, 0.75, 0.5}},
		{"订机票", "查天气", 0.57, []float64{0.25, 1.0, 0.5, 1.0}},
		{"订机票", "退订", 0.59, []float64{0.0, 0.0, 1.0, 0.25}},
		{"订机票", "", 0.94, []float64{1.0, 0.5, 0.0, 0.0}},
		{"问候", "查天气", 0.54, []float64{0.25, 0.5, 0.0, 1.0}},
	}
	for k, want := range map[int]float64{1: 7, 2: 11, 3: 14} {
		l := topKNoPred(t, k, labels, rows)
		if l.TopKAccuracy.Num != want || l.TopKAccuracy.Den != 16 || l.RecognitionRate != l.TopKAccuracy {
			t.Errorf("k = %d: top_k_accuracy %v, recognition_rate %v; top_k_accuracy_score %v/16", k, l.TopKAccuracy, l.RecognitionRate, want)
		}
		if l.Accuracy.Num != 2 || l.Accuracy.Den != 16 {
			t.Errorf("k = %d: accuracy %v; accuracy_score 2/16", k, l.Accuracy)
		}
	}
}

// topKRow is one case: the expected label, the response's intent name
// ("" for null) and confidence, and the ranking's score of each label.
type topKRow struct {
	expected, pred string
	conf           float64
	scores         []float64
}

// topKNoPred evaluates rows under a rasa schema with min_confidence 0.5
// and a scored ranking (the labels listed in the order given) and returns
// metrics.label.intent.
func topKNoPred(t *testing.T, k int, labels []string, rows []topKRow) *schema.Label {
	t.Helper()
	s := loadSuite(t, fmt.Sprintf(`
suite "topk" { schema = "r" }
schema "r" {
  extends = "rasa"
  dimension "intent" {
    kind               = "label"
    path               = "$.intent.name"
    confidence         = "$.intent.confidence"
    min_confidence     = 0.5
    ranking            = "$.intent_ranking[*].name"
    ranking_confidence = "$.intent_ranking[*].confidence"
    top_k              = %d
  }
}
template "t" {
  text   = "x"
  expect = { "$.intent.name" = "x" }
}
`, k))
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	for i, row := range rows {
		var ranking []map[string]any
		for j, l := range labels {
			ranking = append(ranking, map[string]any{"name": l, "confidence": row.scores[j]})
		}
		var name any
		if row.pred != "" {
			name = row.pred
		}
		body, _ := json.Marshal(map[string]any{"intent": map[string]any{"name": name, "confidence": row.conf}, "intent_ranking": ranking})
		r := &schema.Result{Case: schema.Case{ID: fmt.Sprint(i), Template: "t", Source: "t", SourceKind: "template",
			Expect: schema.Expectations{{Path: "$.intent.name", Value: row.expected}}}, Response: body}
		col.Add(r, ev.Evaluate(r))
	}
	l := col.Metrics().Node.Label["intent"]
	if l == nil {
		t.Fatal("no metrics.label.intent")
	}
	return l
}
