package assert

import (
	"math"
	"slices"
	"strconv"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
)

// Agreement between a judge and people (`nlutest judge agreement`, SPEC
// §14.5): the tables and Cohen's kappa. Reading the run's verdicts and the
// people's sheet is the caller's (pipeline); the arithmetic is here, with
// the ratings family's.

// Rating is one item a person rated: the item's id (a case id, or a
// conversation's script id) and the label given.
type Rating struct {
	ID, Label string
}

// Agree tabulates a judge's labels (by item id) against people's ratings
// over labels, the last of which is what a judge's label outside them
// counts as: the table (judge's label by row, people's by column), the
// items compared and agreed, the ratings of items the judge did not judge
// (Unmatched), and Cohen's kappa unweighted (nil when undefined, as
// scikit-learn's nan: one label throughout, or no items).
func Agree(labels []string, judged map[string]string, human []Rating) *schema.Agreement {
	ag := &schema.Agreement{Labels: labels, Table: square(len(labels))}
	var a, b []float64
	for _, h := range human {
		j, ok := judged[h.ID]
		if !ok {
			ag.Unmatched++
			continue
		}
		ji, hi := slices.Index(labels, j), slices.Index(labels, h.Label)
		if ji < 0 {
			ji = len(labels) - 1
		}
		ag.Table[ji][hi]++
		a, b = append(a, float64(ji)), append(b, float64(hi))
		ag.Items++
		if ji == hi {
			ag.Agreed++
		}
	}
	if k := metrics.CohenKappa(a, b, metrics.WeightNone); !math.IsNaN(k) {
		ag.Kappa = &k
	}
	return ag
}

// RubricScores are the labels of a scored rubric's agreement table.
var RubricScores = []string{"1", "2", "3", "4", "5"}

// AgreeScores tabulates a judge's 1–5 scores (by item id; 0 is an item
// judged without a score) against people's scores (1–5, the caller has
// checked them): the table, the items compared and agreed, those the
// judge did not judge (Unmatched) or judged without a score (Unscored),
// and Cohen's kappa unweighted and quadratic-weighted (as scikit-learn's
// cohen_kappa_score, weights over the scores' indexes; nil when
// undefined).
func AgreeScores(judged map[string]int, human []Rating) *schema.Agreement {
	ag := &schema.Agreement{Labels: RubricScores, Table: square(len(RubricScores)), Scored: true}
	var a, b []float64
	for _, r := range human {
		s, _ := strconv.Atoi(r.Label)
		js, judgedID := judged[r.ID]
		switch {
		case !judgedID:
			ag.Unmatched++
			continue
		case js == 0:
			ag.Unscored++
			continue
		}
		ag.Table[js-1][s-1]++
		a, b = append(a, float64(js)), append(b, float64(s))
		ag.Items++
		if js == s {
			ag.Agreed++
		}
	}
	if k := metrics.CohenKappa(a, b, metrics.WeightNone); !math.IsNaN(k) {
		ag.Kappa = &k
	}
	if k := metrics.CohenKappa(a, b, metrics.WeightQuadratic); !math.IsNaN(k) {
		ag.QuadraticKappa = &k
	}
	return ag
}

func square(n int) [][]int {
	t := make([][]int, n)
	for i := range t {
		t[i] = make([]int, n)
	}
	return t
}
