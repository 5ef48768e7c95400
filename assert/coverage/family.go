// Package coverage owns metrics.coverage: which items of the bot's own
// model — the coverage block's Rasa domain, NLU data and flows, or plain
// list (spec/botmodel) — the suite's cases exercised, exercised only in
// cases that failed or errored, or never exercised (docs/metrics.md#coverage).
// It is a metric family outside package assert, built from its exported
// API; extensions.Default links it. Its accumulator keeps, per item, the
// passing and failing cases that exercised it and the cases whose answer
// showed it, so shards merge to the figures of the whole run.
package coverage

import (
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/botmodel"
)

// Family is the coverage family.
type Family struct{}

// Shape is metrics.coverage's part of the tree, schema.CoverageFamily.
func (Family) Shape() *schema.Family { return schema.CoverageFamily }

// NewAcc applies to suites with a coverage block whose model loaded.
func (Family) NewAcc(s *spec.Suite) assert.Acc {
	cov := Of(s)
	if cov == nil || cov.Model == nil {
		return nil
	}
	ix := cov.Memo(func() any { return newIndex(s) }).(*index)
	return &acc{ix: ix, items: make([]schema.CoverageItem, len(ix.m.Items))}
}

// undeclaredKey is an item cases checked that the model lacks.
type undeclaredKey struct {
	kind botmodel.Kind
	name string
}

// acc accumulates one node: per item of the model, the cases that
// exercised it (passed, failed) and showed it (seen).
type acc struct {
	ix         *index
	items      []schema.CoverageItem
	undeclared map[undeclaredKey]*schema.CoverageItem
}

func (a *acc) Add(o *assert.Observation) {
	r := o.Result
	pass := r.Outcome == schema.Pass
	if !pass && r.Outcome != schema.Fail && r.Outcome != schema.Error {
		return
	}
	c := o.Memo(Family{}, func() any { return a.ix.analyze(o) }).(*caseCoverage)
	for _, i := range c.exercised {
		if pass {
			a.items[i].Passed++
		} else {
			a.items[i].Failed++
		}
	}
	for _, i := range c.seen {
		a.items[i].Seen++
	}
	for _, u := range c.undeclared {
		if a.undeclared == nil {
			a.undeclared = map[undeclaredKey]*schema.CoverageItem{}
		}
		it := a.undeclared[u]
		if it == nil {
			it = &schema.CoverageItem{}
			a.undeclared[u] = it
		}
		if pass {
			it.Passed++
		} else {
			it.Failed++
		}
	}
}

func (a *acc) Merge(o assert.Acc) {
	b := o.(*acc)
	for i, it := range b.items {
		a.items[i].Passed += it.Passed
		a.items[i].Failed += it.Failed
		a.items[i].Seen += it.Seen
	}
	for k, it := range b.undeclared {
		if a.undeclared == nil {
			a.undeclared = map[undeclaredKey]*schema.CoverageItem{}
		}
		mine := a.undeclared[k]
		if mine == nil {
			mine = &schema.CoverageItem{}
			a.undeclared[k] = mine
		}
		mine.Passed += it.Passed
		mine.Failed += it.Failed
		mine.Seen += it.Seen
	}
}

func (a *acc) Fill(n *schema.Node) {
	assert.SetFamily(n, schema.CoverageFamily.Name, a.value())
}

// value is the node's metrics.coverage.
func (a *acc) value() *schema.Coverage {
	v := &schema.Coverage{}
	kind := func(k botmodel.Kind) *schema.CoverageKind {
		p := v.Kind(k.String())
		if *p == nil {
			*p = &schema.CoverageKind{Item: map[string]schema.CoverageItem{}}
		}
		return *p
	}
	for i, it := range a.ix.m.Items {
		ck := kind(it.Kind)
		st := a.items[i].Status()
		ck.Count(st)
		v.Count(st)
		ck.Item[it.Name] = a.items[i]
	}
	for k, it := range a.undeclared {
		ck := kind(k.kind)
		if ck.UndeclaredItem == nil {
			ck.UndeclaredItem = map[string]schema.CoverageItem{}
		}
		ck.UndeclaredItem[k.name] = *it
		ck.Count(schema.CoverageUndeclared)
		v.Count(schema.CoverageUndeclared)
	}
	return v
}
