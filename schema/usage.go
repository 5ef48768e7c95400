package schema

import "encoding/json"

// TokenUsage is metrics.usage: the tokens language-model calls reported
// (an openai target's usage), summed over the calls of a node that
// reported any.
type TokenUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// UsageFamily is the usage family's part of the metrics tree.
var UsageFamily = &Family{Name: "usage", Subs: []*Sub{{
	Name: "usage", Doc: "tokens the target reported (openai targets; present when any call reported usage)",
	Shape: &Shape{Attrs: []Attr{
		{Name: "calls", Kind: MetricCount, Doc: "calls that reported usage"},
		{Name: "prompt_tokens", Kind: MetricCount, Doc: "prompt tokens, summed"},
		{Name: "completion_tokens", Kind: MetricCount, Doc: "completion tokens, summed"},
		{Name: "total_tokens", Kind: MetricCount, Doc: "total tokens, summed"},
	}},
	Props: []string{"calls", "total_tokens"},
}}}

// UsageOf reads metrics.usage of node n, whether the node was built by a
// run (a *TokenUsage) or read back from a report (decoded JSON); nil when
// the node has none.
func UsageOf(n *Node) *TokenUsage {
	v, ok := n.Families[UsageFamily.Name]
	if !ok || v == nil {
		return nil
	}
	if u, ok := v.(*TokenUsage); ok {
		return u
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var u TokenUsage
	if json.Unmarshal(b, &u) != nil {
		return nil
	}
	return &u
}
