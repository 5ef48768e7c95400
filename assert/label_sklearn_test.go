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
