package metrics

import (
	"math"
	"slices"
	"sort"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
)

// LabelContribution is a label dimension's: a case contributes its cell
// of the confusion matrix, (expected label, predicted label), written as
// the labels' indexes in the sorted list of the labels seen (the
// predicted index −1 when there was no prediction). The macro, micro and
// weighted averages and every label's F1 are functions of the cells'
// counts, so the matrix the accumulator keeps is the tally: no per-case
// work. Its resamples are the cases. Accuracy, top-k accuracy and each
// label's precision and recall are proportions of cases (Wilson); they
// are not statistics of this contribution. A paired comparison maps the
// labels of both runs to one index list.
var LabelContribution = Contribution{
	Unit:   schema.UnitCases,
	Coords: []string{"expected label", "predicted label"},
	Stats: []Stat{{Name: "macro_precision"}, {Name: "macro_recall"}, {Name: "macro_f1"}, {Name: "micro_f1"}, {Name: "weighted_f1"},
		{Name: "labels[L].f1"}},
}

// labelCell is one cell of the confusion matrix as the bootstrap reads it:
// label indexes (−1 for no prediction, or a label outside the declared
// set) and the cell's count.
type labelCell struct {
	exp, pred int
	n         int64
}

// Intervals sets the bootstrap intervals of out's averages (macro
// precision, recall and F1, micro F1, weighted F1) and of each label's F1
// (out is what Result gave), resampling the cases through the cells of
// the confusion matrix (LabelContribution), drawn with o: each resample
// computes the figures as Result does on the resampled cases — over the
// declared label set, or over the labels the resample expects or
// predicts, a ratio over zero counting as 0 in the averages.
func (a *LabelAcc) Intervals(out *schema.Label, o infer.Options) {
	if a.total == 0 || len(a.pairs)+len(a.none) == 0 {
		return
	}
	c := a.counts()
	labels := c.labels // every label expected or predicted
	idx := make(map[string]int, len(labels))
	for i, l := range labels {
		idx[l] = i
	}
	cells := make([]labelCell, 0, len(a.pairs)+len(a.none))
	for p, n := range a.pairs {
		cells = append(cells, labelCell{idx[p.expected], idx[p.predicted], int64(n)})
	}
	for l, n := range a.none {
		cells = append(cells, labelCell{idx[l], -1, int64(n)})
	}
	// The cells in a fixed order, so the resamples do not depend on the
	// maps' order (nor on the order the cases were added or merged in).
	sort.Slice(cells, func(i, j int) bool {
		if cells[i].exp != cells[j].exp {
			return cells[i].exp < cells[j].exp
		}
		return cells[i].pred < cells[j].pred
	})
	counts := make([]int64, len(cells))
	for i, cl := range cells {
		counts[i] = cl.n
	}
	// The labels the averages run over when the set is declared: their
	// indexes among those seen, −1 for a declared label never seen.
	var fixed []int
	if a.fixed != nil {
		for _, l := range a.fixed {
			i, ok := idx[l]
			if !ok {
				i = -1
			}
			fixed = append(fixed, i)
		}
	}
	// Per-label F1 for the labels the report lists.
	listed := make([]string, 0, len(out.Labels))
	for l := range out.Labels {
		listed = append(listed, l)
	}
	slices.Sort(listed)
	st := newLabelStat(cells, len(labels), fixed)
	listedIdx := make([]int, len(listed))
	for i, l := range listed {
		j, ok := idx[l]
		if !ok {
			j = -1
		}
		listedIdx[i] = j
	}
	n := 5 + len(listed)
	ivs := infer.BootstrapVec(counts, n, func(w []int64, vals []float64) { st.eval(w, listedIdx, vals) }, o)
	for i, r := range []*schema.Ratio{&out.MacroPrecision, &out.MacroRecall, &out.MacroF1, &out.MicroF1, &out.WeightedF1} {
		SetCI(r, ivs[i])
	}
	for i, l := range listed {
		SetCI(&out.Labels[l].F1, ivs[5+i])
	}
}

// labelStat computes a label dimension's figures from resampled cell
// counts, reusing its arrays.
type labelStat struct {
	cells         []labelCell
	fixed         []int
	tp, pred, sup []int64
	seenE, seenP  []bool
	nLabels       int
	present       []int
}

func newLabelStat(cells []labelCell, nLabels int, fixed []int) *labelStat {
	return &labelStat{cells: cells, fixed: fixed, nLabels: nLabels,
		tp: make([]int64, nLabels), pred: make([]int64, nLabels), sup: make([]int64, nLabels),
		seenE: make([]bool, nLabels), seenP: make([]bool, nLabels)}
}

// eval sets vals to macro precision, recall, F1, micro F1, weighted F1
// and the F1 of each label of listed (indexes, −1 for a label with no
// case: no value) for the cells weighted by w.
func (s *labelStat) eval(w []int64, listed []int, vals []float64) {
	clear(s.tp)
	clear(s.pred)
	clear(s.sup)
	clear(s.seenE)
	clear(s.seenP)
	for k, cl := range s.cells {
		n := w[k]
		if n == 0 {
			continue
		}
		s.sup[cl.exp] += n
		s.seenE[cl.exp] = true
		if cl.pred >= 0 {
			s.pred[cl.pred] += n
			s.seenP[cl.pred] = true
			if cl.pred == cl.exp {
				s.tp[cl.exp] += n
			}
		}
	}
	over := s.fixed
	if over == nil {
		s.present = s.present[:0]
		for i := range s.nLabels {
			if s.seenE[i] || s.seenP[i] {
				s.present = append(s.present, i)
			}
		}
		over = s.present
	}
	var sumP, sumR, sumF, sumFW, sumTP, sumPred, sumSup float64
	for _, i := range over {
		if i < 0 { // a declared label never seen: all zero
			continue
		}
		t, pr, su := float64(s.tp[i]), float64(s.pred[i]), float64(s.sup[i])
		sumP += div0(t, pr)
		sumR += div0(t, su)
		f := div0(2*t, pr+su)
		sumF += f
		sumFW += f * su
		sumTP += t
		sumPred += pr
		sumSup += su
	}
	nl := float64(len(over))
	vals[0], vals[1], vals[2] = sumP/nl, sumR/nl, sumF/nl
	vals[3] = 2 * sumTP / (sumPred + sumSup)
	vals[4] = sumFW / sumSup
	for j, i := range listed {
		if i < 0 {
			vals[5+j] = math.NaN()
			continue
		}
		vals[5+j] = 2 * float64(s.tp[i]) / float64(s.pred[i]+s.sup[i])
	}
}

// div0 is a/b, or 0 when b is 0: a ratio over zero counts as 0 in the
// averages, as scikit-learn's zero_division default.
func div0(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// LabelCell is one case's cell of a label dimension's confusion matrix,
// its labels written as indexes into a list of labels: the expected
// label and the predicted one (−1 when the case has no prediction).
type LabelCell struct{ Expected, Predicted int }

// LabelAverages returns a function that sets out[0:5] to the macro
// precision, macro recall, macro F1, micro F1 and weighted F1 of the
// cases given as the counts w of cells (w[k] cases in cells[k]), computed
// as LabelAcc.Result computes them: over the declared labels (fixed:
// their indexes, −1 for one no case shows) when the set is declared, else
// over the labels the cases expect or predict, a ratio over zero counting
// as 0. nLabels bounds the indexes. A paired comparison of two runs
// (assert/compare) evaluates each run's half of the joined cells with it.
func LabelAverages(cells []LabelCell, nLabels int, fixed []int) func(w []int64, out []float64) {
	cs := make([]labelCell, len(cells))
	for i, c := range cells {
		cs[i] = labelCell{exp: c.Expected, pred: c.Predicted}
	}
	st := newLabelStat(cs, nLabels, fixed)
	vals := make([]float64, 5)
	return func(w []int64, out []float64) {
		st.eval(w, nil, vals)
		copy(out, vals)
	}
}
