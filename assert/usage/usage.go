// Package usage owns metrics.usage: the tokens a language-model target
// reported for its calls (schema.Result.Usage), summed per node of the
// metrics tree. It is a metric family outside package assert, built only
// from assert's exported API (Family, Acc, Observation, SetFamily), which
// is all any family needs; extensions.Default links it.
package usage

import (
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Family is the usage family.
type Family struct{}

// Shape is metrics.usage's part of the tree, schema.UsageFamily.
func (Family) Shape() *schema.Family { return schema.UsageFamily }

// NewAcc applies to every suite: a node without a reported usage has no
// metrics.usage.
func (Family) NewAcc(*spec.Suite) assert.Acc { return &acc{} }

type acc struct{ u schema.TokenUsage }

func (a *acc) Add(o *assert.Observation) {
	if u := o.Result.Usage; u != nil {
		a.u.Calls++
		a.u.PromptTokens += u.PromptTokens
		a.u.CompletionTokens += u.CompletionTokens
		a.u.TotalTokens += u.TotalTokens
	}
}

func (a *acc) Merge(o assert.Acc) {
	b := o.(*acc).u
	a.u.Calls += b.Calls
	a.u.PromptTokens += b.PromptTokens
	a.u.CompletionTokens += b.CompletionTokens
	a.u.TotalTokens += b.TotalTokens
}

func (a *acc) Fill(n *schema.Node) {
	if a.u.Calls > 0 {
		u := a.u
		assert.SetFamily(n, schema.UsageFamily.Name, &u)
	}
}
