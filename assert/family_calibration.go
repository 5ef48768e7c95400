package assert

import (
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// calibrationFamily is metrics.calibration.DIM: for each label dimension
// with a confidence path, how well the top prediction's confidence
// matches its accuracy (Guo et al. 2017) — expected and maximum
// calibration error over 10 equal-width bins, the top label's Brier score
// and the bins of a reliability diagram. A case counts when it expects a
// label of the dimension and the response holds a label and a numeric
// confidence; the prediction is the label at the path whatever
// min_confidence says (calibration judges the raw confidence).
type calibrationFamily struct{}

func (calibrationFamily) Shape() *schema.Family { return schema.CalibrationFamily }

// NewAcc applies to suites whose schema has a label dimension with a
// confidence path.
func (calibrationFamily) NewAcc(s *spec.Suite) Acc {
	if s == nil || s.Schema == nil {
		return nil
	}
	for _, d := range s.Schema.Dimensions {
		if d.Kind == schema.KindLabel && d.Confidence != nil {
			return &calibrationAcc{sc: s.Schema}
		}
	}
	return nil
}

// calibrationAcc holds one accumulator per label dimension, indexed as
// the schema's dimensions, made on first need.
type calibrationAcc struct {
	sc   *spec.Schema
	dims []*metrics.CalibrationAcc
}

func (a *calibrationAcc) at(i int) *metrics.CalibrationAcc {
	if a.dims == nil {
		a.dims = make([]*metrics.CalibrationAcc, len(a.sc.Dimensions))
	}
	if a.dims[i] == nil {
		a.dims[i] = &metrics.CalibrationAcc{}
	}
	return a.dims[i]
}

func (a *calibrationAcc) Add(o *Observation) {
	if o.Eval == nil || o.Result.Outcome == schema.Error {
		return
	}
	for i := range o.Eval.confs {
		c := &o.Eval.confs[i]
		if c.truth == truthNone || c.truth == truthOutScope && c.expected == "" || !c.hasLabel || !c.hasConf {
			continue
		}
		if c.conf < 0 || c.conf > 1 {
			a.at(c.dim).OutOfRange()
			continue
		}
		a.at(c.dim).Add(c.conf, c.correct())
	}
}

func (a *calibrationAcc) Merge(o Acc) {
	b := o.(*calibrationAcc)
	if a.sc == nil {
		a.sc = b.sc
	}
	for i, x := range b.dims {
		if x != nil {
			a.at(i).Merge(x)
		}
	}
}

func (a *calibrationAcc) Fill(n *schema.Node) {
	out := map[string]*schema.Calibration{}
	for i, x := range a.dims {
		if x != nil {
			out[a.sc.Dimensions[i].Name] = x.Result()
		}
	}
	if len(out) > 0 {
		SetFamily(n, "calibration", out)
	}
}
