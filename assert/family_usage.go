package assert

import (
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// usageFamily is metrics.usage: the tokens of the calls that reported
// usage (schema.Result.Usage), summed per node.
type usageFamily struct{}

func (usageFamily) Shape() *schema.Family  { return schema.UsageFamily }
func (usageFamily) NewAcc(*spec.Suite) Acc { return &usageAcc{} }

type usageAcc struct{ u schema.TokenUsage }

func (a *usageAcc) Add(o *Observation) {
	if u := o.Result.Usage; u != nil {
		a.u.Calls++
		a.u.PromptTokens += u.PromptTokens
		a.u.CompletionTokens += u.CompletionTokens
		a.u.TotalTokens += u.TotalTokens
	}
}

func (a *usageAcc) Merge(o Acc) {
	b := o.(*usageAcc).u
	a.u.Calls += b.Calls
	a.u.PromptTokens += b.PromptTokens
	a.u.CompletionTokens += b.CompletionTokens
	a.u.TotalTokens += b.TotalTokens
}

func (a *usageAcc) Fill(n *schema.Node) {
	if a.u.Calls > 0 {
		u := a.u
		SetFamily(n, schema.UsageFamily.Name, &u)
	}
}
