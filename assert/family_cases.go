package assert

import (
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// casesFamily counts outcomes: total, passed, failed, errored, accuracy
// and error rate.
type casesFamily struct{}

func (casesFamily) Shape() *schema.Family  { return schema.CasesFamily }
func (casesFamily) NewAcc(*spec.Suite) Acc { return &counts{} }

// counts tallies outcomes.
type counts struct{ total, passed, failed, errored int }

func (c *counts) add(o schema.Outcome) {
	c.total++
	switch o {
	case schema.Pass:
		c.passed++
	case schema.Fail:
		c.failed++
	case schema.Error:
		c.errored++
	}
}

func (c *counts) Add(o *Observation) { c.add(o.Result.Outcome) }

func (c *counts) Merge(o Acc) {
	oc := o.(*counts)
	c.total += oc.total
	c.passed += oc.passed
	c.failed += oc.failed
	c.errored += oc.errored
}

func (c *counts) Fill(n *schema.Node) {
	n.Total, n.Passed, n.Failed, n.Errored = c.total, c.passed, c.failed, c.errored
	n.Accuracy = schema.R(c.passed, c.total-c.errored)
	n.ErrorRate = schema.R(c.errored, c.total)
}
