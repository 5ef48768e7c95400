package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Threshold conditions may read the bounds of a metric's confidence
// interval: metrics.accuracy.ci_low >= 0.85 ("we are 95 % sure accuracy
// is at least 0.85"). A metric is a number in the `metrics` object, so
// once validate has checked the names as written, Load rewrites each such
// traversal's last two steps, NAME and ci_low, into one attribute,
// NAME#ci_low, a name no condition can spell, which the `metrics` object
// holds beside NAME (assert.MetricsValue). Reports show it under the name
// written (IntervalAddress).

// The bounds of an interval, as a condition names them.
const (
	CILow  = "ci_low"
	CIHigh = "ci_high"
)

var intervalBounds = []string{CILow, CIHigh}

// IntervalBound reports whether name is ci_low or ci_high.
func IntervalBound(name string) bool { return name == CILow || name == CIHigh }

// intervalSep joins a metric's name and a bound in the rewritten
// attribute: no identifier holds it.
const intervalSep = "#"

// IntervalAttr is the name of the attribute holding the bound of metric
// name's interval in the `metrics` object.
func IntervalAttr(name, bound string) string { return name + intervalSep + bound }

// SplitIntervalAttr returns the metric and the bound an IntervalAttr name
// joins, and false for any other name.
func SplitIntervalAttr(attr string) (name, bound string, ok bool) {
	name, bound, ok = strings.Cut(attr, intervalSep)
	if !ok || !IntervalBound(bound) {
		return attr, "", false
	}
	return name, bound, true
}

// WrittenTraversal returns tr as the condition wrote it: a rewritten last
// step NAME#ci_low split back into NAME and ci_low.
func WrittenTraversal(tr hcl.Traversal) hcl.Traversal {
	if len(tr) < 2 {
		return tr
	}
	last, ok := tr[len(tr)-1].(hcl.TraverseAttr)
	if !ok {
		return tr
	}
	name, bound, ok := SplitIntervalAttr(last.Name)
	if !ok {
		return tr
	}
	out := append(tr[:len(tr)-1:len(tr)-1], hcl.TraverseAttr{Name: name, SrcRange: last.SrcRange}, hcl.TraverseAttr{Name: bound, SrcRange: last.SrcRange})
	return out
}

// rewriteIntervalRefs rewrites the interval bounds the thresholds read
// (see above). It runs after checkReferences: a threshold whose names did
// not check is left alone. A bound read through an index computed at run
// time (metrics.split[var.s].accuracy.ci_low) cannot be checked nor
// rewritten, and is an error.
func (l *loader) rewriteIntervalRefs() {
	for _, th := range l.suite.Thresholds {
		e, ok := th.Condition.(hclsyntax.Expression)
		if !ok {
			continue
		}
		hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
			switch x := n.(type) {
			case *hclsyntax.ScopeTraversalExpr:
				if x.Traversal.RootName() == "metrics" {
					x.Traversal = rewriteBound(x.Traversal)
				}
			case *hclsyntax.RelativeTraversalExpr:
				if len(x.Traversal) > 0 && readsMetrics(x.Source) {
					if bound, ok := stepName(x.Traversal[len(x.Traversal)-1]); ok && IntervalBound(bound) {
						r := x.Traversal[len(x.Traversal)-1].SourceRange()
						l.errorf(&r, "Interval of a computed address", "A threshold reads %s of a metric whose address is fixed: name its node with a string, as metrics.split[\"smoke\"].accuracy.%s, not with a value computed when the condition runs.", bound, bound)
					}
				}
			}
			return nil
		})
	}
}

// rewriteBound joins tr's last two steps when the last is ci_low or
// ci_high: metrics.split.smoke.accuracy.ci_low becomes
// metrics.split.smoke["accuracy#ci_low"], an attribute step.
func rewriteBound(tr hcl.Traversal) hcl.Traversal {
	if len(tr) < 3 {
		return tr
	}
	bound, ok := stepName(tr[len(tr)-1])
	name, ok2 := stepName(tr[len(tr)-2])
	if !ok || !ok2 || !IntervalBound(bound) {
		return tr
	}
	rng := hcl.RangeBetween(tr[len(tr)-2].SourceRange(), tr[len(tr)-1].SourceRange())
	out := append(tr[:len(tr)-2:len(tr)-2], hcl.TraverseAttr{Name: IntervalAttr(name, bound), SrcRange: rng})
	return out
}

// readsMetrics reports whether e reads the metrics tree.
func readsMetrics(e hcl.Expression) bool {
	for _, tr := range e.Variables() {
		if tr.RootName() == "metrics" {
			return true
		}
	}
	return false
}
