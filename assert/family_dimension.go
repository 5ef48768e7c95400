package assert

import (
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// dimensionFamily counts the units of leaf and items dimensions and the
// cases of case dimensions (metrics.dimension), from each case's
// evaluation.
type dimensionFamily struct{}

func (dimensionFamily) Shape() *schema.Family { return schema.DimensionFamily }
func (dimensionFamily) NewAcc(s *spec.Suite) Acc {
	return &dimensionAcc{sc: s.Schema}
}

// dimensionAcc holds one accumulator per dimension, indexed as the
// schema's dimensions, made on first need.
type dimensionAcc struct {
	sc       *spec.Schema
	dims     []*metrics.DimAcc
	caseDims []*metrics.CaseDimAcc
}

func (d *dimensionAcc) Add(o *Observation) {
	if o.Eval == nil || d.sc == nil || o.Result.Outcome == schema.Error {
		return
	}
	cd := &o.Eval.dims
	for i := range cd.tallies {
		if cd.counted[i] {
			d.dim(i).Add(&cd.tallies[i])
		}
	}
	for i, c := range cd.cases {
		if c != 0 {
			d.caseDim(i).Add(c > 0)
		}
	}
}

func (d *dimensionAcc) dim(i int) *metrics.DimAcc {
	if d.dims == nil {
		d.dims = make([]*metrics.DimAcc, len(d.sc.Dimensions))
	}
	if d.dims[i] == nil {
		d.dims[i] = metrics.NewDimAcc(d.sc.Dimensions[i].Kind)
	}
	return d.dims[i]
}

func (d *dimensionAcc) caseDim(i int) *metrics.CaseDimAcc {
	if d.caseDims == nil {
		d.caseDims = make([]*metrics.CaseDimAcc, len(d.sc.Dimensions))
	}
	if d.caseDims[i] == nil {
		d.caseDims[i] = &metrics.CaseDimAcc{}
	}
	return d.caseDims[i]
}

func (d *dimensionAcc) Merge(o Acc) {
	od := o.(*dimensionAcc)
	if d.sc == nil {
		d.sc = od.sc
	}
	for i, x := range od.dims {
		if x != nil {
			d.dim(i).Merge(x)
		}
	}
	for i, x := range od.caseDims {
		if x != nil {
			d.caseDim(i).Merge(x)
		}
	}
}

func (d *dimensionAcc) Fill(n *schema.Node) {
	put := func(i int, v *schema.Dimension) {
		if n.Dimension == nil {
			n.Dimension = map[string]*schema.Dimension{}
		}
		n.Dimension[d.sc.Dimensions[i].Name] = v
	}
	for i, x := range d.dims {
		if x != nil {
			put(i, x.Result())
		}
	}
	for i, x := range d.caseDims {
		if x != nil {
			put(i, x.Result())
		}
	}
}
