package assert

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// ThresholdMetrics returns the canonical addresses of the metrics the
// thresholds of s name (metrics.split["smoke"].accuracy; a bound of an
// interval, metrics.accuracy.ci_low, as its metric), each once in the
// thresholds' order, and the nodes other than the root they are in (a
// pairing's nodes: NewPairing).
func ThresholdMetrics(s *spec.Suite) (addrs []string, nodes []NodeKey) {
	for _, th := range s.Thresholds {
		for _, t := range th.Condition.Variables() {
			if t.RootName() != "metrics" {
				continue
			}
			ct := canonical(s.Tree, spec.WrittenTraversal(t))
			if n := len(ct); n > 1 {
				if a, ok := ct[n-1].(hcl.TraverseAttr); ok && spec.IntervalBound(a.Name) {
					ct = ct[:n-1] // metrics.accuracy.ci_low: metrics.accuracy
				}
			}
			if addr := address(ct); !slices.Contains(addrs, addr) {
				addrs = append(addrs, addr)
			}
			if k, ok := nodeOf(s, ct); ok && !slices.Contains(nodes, k) {
				nodes = append(nodes, k)
			}
		}
	}
	return addrs, nodes
}

// nodeOf returns the node a canonical metrics traversal is in, false for
// the root (or a group named without its key).
func nodeOf(s *spec.Suite, ct hcl.Traversal) (NodeKey, bool) {
	if len(ct) < 3 {
		return NodeKey{}, false
	}
	a, ok := ct[1].(hcl.TraverseAttr)
	if !ok {
		return NodeKey{}, false
	}
	g := s.Tree.Group(a.Name)
	if g == nil {
		return NodeKey{}, false
	}
	if !g.Keyed {
		return NodeKey{Group: a.Name}, true
	}
	ix, ok := ct[2].(hcl.TraverseIndex)
	if !ok || ix.Key.Type() != cty.String || !ix.Key.IsKnown() || ix.Key.IsNull() || len(ct) < 4 {
		return NodeKey{}, false
	}
	return NodeKey{Group: a.Name, Key: ix.Key.AsString()}, true
}
