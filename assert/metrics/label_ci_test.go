package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/assert/infer"
)

// The label bootstrap's statistic, on the cells' own counts, gives the
// figures Result gives — macro, micro and weighted averages and each
// label's F1 — with and without a declared label set, with cases that
// have no prediction and predictions outside the set: each resample is
// scored as the report scores the run.
func TestLabelStatMatchesResult(t *testing.T) {
	labels := []string{"订机票", "查天气", "退订", "问候", "oos"}
	for _, fixed := range [][]string{nil, {"订机票", "查天气", "退订", "未见"}} {
		rng := rand.New(rand.NewPCG(7, uint64(len(fixed))))
		a := NewLabelAcc(1)
		a.SetLabels(fixed)
		for range 500 {
			exp := labels[rng.IntN(4)]
			var ranked []string
			switch r := rng.IntN(10); {
			case r < 6:
				ranked = []string{exp}
			case r < 9:
				ranked = []string{labels[rng.IntN(len(labels))]}
			}
			a.Add(exp, ranked)
		}
		out := a.Result()
		c := a.counts()
		idx := map[string]int{}
		for i, l := range c.labels {
			idx[l] = i
		}
		var cells []labelCell
		for p, n := range a.pairs {
			cells = append(cells, labelCell{idx[p.expected], idx[p.predicted], int64(n)})
		}
		for l, n := range a.none {
			cells = append(cells, labelCell{idx[l], -1, int64(n)})
		}
		var fx []int
		for _, l := range a.fixed {
			i, ok := idx[l]
			if !ok {
				i = -1
			}
			fx = append(fx, i)
		}
		w := make([]int64, len(cells))
		for i, cl := range cells {
			w[i] = cl.n
		}
		listed := []int{idx["订机票"], idx["退订"]}
		vals := make([]float64, 7)
		newLabelStat(cells, len(c.labels), fx).eval(w, listed, vals)
		want := []float64{val0(&out.MacroPrecision), val0(&out.MacroRecall), val0(&out.MacroF1), val0(&out.MicroF1), val0(&out.WeightedF1),
			val0(&out.Labels["订机票"].F1), val0(&out.Labels["退订"].F1)}
		for i := range vals {
			if math.Abs(vals[i]-want[i]) > 1e-12 {
				t.Errorf("fixed %v: statistic %d = %v, Result %v", fixed, i, vals[i], want[i])
			}
		}
		a.Intervals(out, infer.Options{Address: "metrics.label.意图"})
		if _, _, ok := out.MacroF1.CI(); !ok {
			t.Errorf("fixed %v: no macro F1 interval", fixed)
		}
		if _, _, ok := out.Labels["订机票"].F1.CI(); !ok {
			t.Errorf("fixed %v: no per-label F1 interval", fixed)
		}
		if fixed != nil {
			if _, _, ok := out.Labels["未见"].F1.CI(); ok {
				t.Error("a declared label never seen has an F1 interval")
			}
		}
	}
}
