package assert

import (
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// labelFamily gives the classification metrics of label dimensions
// (metrics.label: intent, domain), from each case's evaluation.
type labelFamily struct{}

func (labelFamily) Shape() *schema.Family { return schema.LabelFamily }
func (labelFamily) NewAcc(s *spec.Suite) Acc {
	return &labelAcc{sc: s.Schema}
}

// labelAcc holds one accumulator per label dimension, indexed as the
// schema's dimensions, made on first need.
type labelAcc struct {
	sc     *spec.Schema
	labels []*metrics.LabelAcc
}

func (l *labelAcc) Add(o *Observation) {
	if o.Eval == nil || l.sc == nil || o.Result.Outcome == schema.Error {
		return
	}
	for i, obs := range o.Eval.dims.labels {
		if obs.has {
			l.label(i).AddRanked(obs.expected, obs.prediction, obs.topk)
		}
	}
}

func (l *labelAcc) label(i int) *metrics.LabelAcc {
	if l.labels == nil {
		l.labels = make([]*metrics.LabelAcc, len(l.sc.Dimensions))
	}
	if l.labels[i] == nil {
		l.labels[i] = metrics.NewLabelAcc(l.sc.Dimensions[i].TopK)
		l.labels[i].SetLabels(l.sc.Dimensions[i].Labels)
	}
	return l.labels[i]
}

func (l *labelAcc) Merge(o Acc) {
	ol := o.(*labelAcc)
	if l.sc == nil {
		l.sc = ol.sc
	}
	for i, x := range ol.labels {
		if x != nil {
			l.label(i).Merge(x)
		}
	}
}

func (l *labelAcc) Fill(n *schema.Node) {
	for i, x := range l.labels {
		if x == nil {
			continue
		}
		if n.Label == nil {
			n.Label = map[string]*schema.Label{}
		}
		n.Label[l.sc.Dimensions[i].Name] = x.Result()
	}
}
