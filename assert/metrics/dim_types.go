package metrics

import (
	"sort"

	"github.com/nlutest/nlutest/schema"
)

// types fills out's per-type figures and their averages, as seqeval's
// classification_report (default mode, conlleval's) computes them: per
// type precision = correct/recognised, recall = correct/expected, F1 their
// harmonic mean (2·correct/(expected+recognised)), support = expected; the
// types are those expected or recognised (in scope); micro = the
// dimension's own pooled figures; macro = unweighted mean over the types;
// weighted = mean weighted by support. A ratio with a zero denominator
// (a type never recognised has no precision) has no value itself and
// counts as 0 in the averages, as seqeval's and scikit-learn's
// zero_division default does.
func (d *DimAcc) types(out *schema.Dimension) {
	if len(d.byType) == 0 {
		return
	}
	raws := make([]string, 0, len(d.byType))
	for v := range d.byType {
		raws = append(raws, v)
	}
	sort.Strings(raws)
	out.Types = make(map[string]*schema.Dimension, len(raws))
	var mp, mr, mf, wp, wr, wf, support float64
	for _, v := range raws {
		c := *d.byType[v]
		t := dimension(d.kind, c)
		t.Support = c.expected
		// Display names may collide ("1" and 1): merge in sorted order.
		name := DisplayValue(v)
		if prev := out.Types[name]; prev != nil {
			c.add(dimCount{prev.Expected, prev.Recognized, prev.Correct})
			t = dimension(d.kind, c)
			t.Support = c.expected
		}
		out.Types[name] = t
	}
	names := make([]string, 0, len(out.Types))
	for name := range out.Types {
		names = append(names, name)
	}
	sort.Strings(names) // sums in a fixed order
	for _, name := range names {
		t := out.Types[name]
		p, r, f := val0(t.Precision), val0(t.Recall), val0(t.F1)
		s := float64(t.Support)
		mp, mr, mf = mp+p, mr+r, mf+f
		wp, wr, wf = wp+p*s, wr+r*s, wf+f*s
		support += s
	}
	n := float64(len(out.Types))
	out.MacroPrecision = &schema.Ratio{Num: mp, Den: n}
	out.MacroRecall = &schema.Ratio{Num: mr, Den: n}
	out.MacroF1 = &schema.Ratio{Num: mf, Den: n}
	out.WeightedPrecision = &schema.Ratio{Num: wp, Den: support}
	out.WeightedRecall = &schema.Ratio{Num: wr, Den: support}
	out.WeightedF1 = &schema.Ratio{Num: wf, Den: support}
}

// val0 is a ratio's value, 0 without one.
func val0(r *schema.Ratio) float64 {
	if r == nil {
		return 0
	}
	v, _ := r.Value()
	return v
}
