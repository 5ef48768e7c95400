package assert

import (
	"math"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// memoryLabels are a memory judge's verdicts, in the agreement table's
// order (pipeline.MemoryVerdicts).
var memoryLabels = []string{schema.Entailed, schema.Neutral, schema.Contradicted, schema.Unanswered, schema.Unparseable}

// Agree against hand counts: 3 entailed (people agree), 3 contradicted
// (people: 2 contradicted, 1 neutral), 2 neutral (people agree): observed
// 7/8, chance (3·3 + 3·2 + 2·3)/64 = 21/64, Cohen's kappa (7/8 − 21/64) /
// (1 − 21/64) = 35/43 (Cohen 1960; scikit-learn's cohen_kappa_score gives
// 0.8139534883720931 on these labels). One verdict throughout leaves kappa
// undefined (nil), as scikit-learn's nan.
func TestAgree(t *testing.T) {
	judged := map[string]string{"a": "entailed", "b": "entailed", "c": "entailed", "d": "contradicted", "e": "contradicted", "f": "contradicted", "g": "neutral", "h": "neutral"}
	var human []Rating
	for id, v := range map[string]string{"a": "entailed", "b": "entailed", "c": "entailed", "d": "contradicted", "e": "contradicted", "f": "neutral", "g": "neutral", "h": "neutral", "zz": "neutral"} {
		human = append(human, Rating{ID: id, Label: v})
	}
	ag := Agree(memoryLabels, judged, human)
	if ag.Items != 8 || ag.Unmatched != 1 || ag.Agreed != 7 || ag.Kappa == nil || math.Abs(*ag.Kappa-0.8139534883720931) > 1e-12 {
		t.Errorf("agreement %+v, kappa %v; want 8 items, 1 unmatched, 7 agreed, kappa 35/43", ag, ag.Kappa)
	}
	if ag.Table[2][1] != 1 || ag.Table[2][2] != 2 || ag.Observed() != schema.R(7, 8) {
		t.Errorf("table %v", ag.Table)
	}
	one := Agree(memoryLabels, map[string]string{"a": "entailed", "b": "entailed"}, []Rating{{ID: "a", Label: "entailed"}, {ID: "b", Label: "entailed"}})
	if one.Kappa != nil || one.Items != 2 {
		t.Errorf("one verdict throughout: kappa %v", one.Kappa)
	}
	if none := Agree(memoryLabels, nil, nil); none.Items != 0 || none.Kappa != nil {
		t.Errorf("no items: %+v", none)
	}
}

// AgreeScores against hand counts: judge (1,2,3,3) vs people (1,2,3,4):
// 3 of 4 agree; one item judged without a score is counted apart, one the
// judge never saw is unmatched. Kappa unweighted: observed 3/4, chance
// (1·1 + 1·1 + 2·1 + 0·1)/16 = 4/16, (3/4 − 1/4)/(1 − 1/4) = 2/3
// (Cohen 1960).
func TestAgreeScores(t *testing.T) {
	judged := map[string]int{"a": 1, "b": 2, "c": 3, "d": 3, "e": 0}
	human := []Rating{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"z", "2"}}
	ag := AgreeScores(judged, human)
	if ag.Items != 4 || ag.Agreed != 3 || ag.Unscored != 1 || ag.Unmatched != 1 || !ag.Scored {
		t.Errorf("agreement %+v", ag)
	}
	if ag.Kappa == nil || math.Abs(*ag.Kappa-2.0/3) > 1e-12 || ag.QuadraticKappa == nil {
		t.Errorf("kappa %v, want 2/3", ag.Kappa)
	}
	if ag.Table[2][3] != 1 || ag.Table[0][0] != 1 {
		t.Errorf("table %v", ag.Table)
	}
}
