package assert

import (
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// oosFamily is metrics.oos.DIM: out-of-scope detection for each label
// dimension with a confidence path and an out_of_scope label or a
// min_confidence. In scope (the positive class) are the cases that expect
// a label other than the out-of-scope one; out of scope those that expect
// the out-of-scope label or null on the label path (no prediction). The
// score of a case is the confidence of the response's label, 0 when it has
// no label or the out-of-scope label; a label without a numeric confidence
// gives no score and the case is left out. Figures: AUROC and AUPR of "in
// scope" by the score (scikit-learn's roc_auc_score and
// average_precision_score), the FPR at 95 % TPR, and a threshold table
// (in-scope accuracy and out-of-scope recall of a fallback below each
// threshold: 0.1 … 0.9, 0.95, 0.99 and the dimension's min_confidence).
type oosFamily struct{}

func (oosFamily) Shape() *schema.Family { return schema.OOSFamily }

// oosDimension reports whether the family scores label dimension d.
func oosDimension(d *spec.Dimension) bool {
	return d.Kind == schema.KindLabel && d.Confidence != nil && (d.OutOfScope != "" || d.MinConfidence > 0)
}

// NewAcc applies to suites whose schema has a dimension oosDimension
// accepts.
func (oosFamily) NewAcc(s *spec.Suite) Acc {
	if s == nil || s.Schema == nil {
		return nil
	}
	for _, d := range s.Schema.Dimensions {
		if oosDimension(d) {
			return &oosAcc{sc: s.Schema}
		}
	}
	return nil
}

// oosAcc holds one accumulator per scored dimension, indexed as the
// schema's dimensions, made on first need.
type oosAcc struct {
	sc   *spec.Schema
	dims []*metrics.OOSAcc
}

func (a *oosAcc) at(i int) *metrics.OOSAcc {
	if a.dims == nil {
		a.dims = make([]*metrics.OOSAcc, len(a.sc.Dimensions))
	}
	if a.dims[i] == nil {
		a.dims[i] = metrics.NewOOSAcc(a.sc.Dimensions[i].MinConfidence)
	}
	return a.dims[i]
}

func (a *oosAcc) Add(o *Observation) {
	if o.Eval == nil || o.Result.Outcome == schema.Error {
		return
	}
	for i := range o.Eval.confs {
		c := &o.Eval.confs[i]
		dim := a.sc.Dimensions[c.dim]
		if c.truth == truthNone || !oosDimension(dim) {
			continue
		}
		score, ok := c.inScopeScore()
		if !ok {
			continue
		}
		a.at(c.dim).Add(score, c.truth == truthLabel, c.correct())
	}
}

func (a *oosAcc) Merge(o Acc) {
	b := o.(*oosAcc)
	if a.sc == nil {
		a.sc = b.sc
	}
	for i, x := range b.dims {
		if x != nil {
			a.at(i).Merge(x)
		}
	}
}

func (a *oosAcc) Fill(n *schema.Node) {
	out := map[string]*schema.OOS{}
	for i, x := range a.dims {
		if x != nil {
			out[a.sc.Dimensions[i].Name] = x.Result()
		}
	}
	if len(out) > 0 {
		SetFamily(n, "oos", out)
	}
}
