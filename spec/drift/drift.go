package drift

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Gate is a threshold's `history` block: the drift gate
// (docs/language.md#history). It fails when a metric the threshold watches
// has fallen significantly more than MaxDrop below its level over the
// last Window runs the history file (--history) holds.
type Gate struct {
	// Watch are the metrics the gate watches: the block's metric, else
	// every metric the condition reads (a bound, metrics.accuracy.ci_low,
	// watches its metric), each with the direction it improves in.
	Watch   []Metric
	Window  int
	MaxDrop float64
	Alpha   float64
	// MinRuns is the fewest earlier runs with the metric the gate needs;
	// with fewer its answer is "no data".
	MinRuns   int
	DeclRange hcl.Range
}

// Metric is one metric a drift gate watches.
type Metric struct {
	// Traversal is the metric's address as written (without a bound).
	Traversal hcl.Traversal
	// Better is "higher" or "lower".
	Better string
}

// The drift gate's defaults.
const (
	DefaultWindow  = 10
	DefaultAlpha   = 0.05
	DefaultMinRuns = 3
)

// Schema is the body schema of a history block.
var Schema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "metric"}, {Name: "window"}, {Name: "max_drop"}, {Name: "alpha"}, {Name: "better"}, {Name: "min_runs"}},
}

// Direction reads the direction a metric improves in from a threshold's
// condition: its comparisons of an operand for which isMetric holds (a
// reference to the metric or one of its bounds) with something else —
// metric >= x or x <= metric say "higher", metric <= x "lower"; "" when
// there is none or they disagree.
func Direction(cond hcl.Expression, isMetric func(hclsyntax.Expression) bool) string {
	e, ok := cond.(hclsyntax.Expression)
	if !ok {
		return ""
	}
	dir := ""
	agree := true
	_ = hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		op, ok := n.(*hclsyntax.BinaryOpExpr)
		if !ok {
			return nil
		}
		var d string
		switch op.Op {
		case hclsyntax.OpGreaterThan, hclsyntax.OpGreaterThanOrEqual:
			d = "higher"
		case hclsyntax.OpLessThan, hclsyntax.OpLessThanOrEqual:
			d = "lower"
		default:
			return nil
		}
		switch {
		case isMetric(op.LHS):
		case isMetric(op.RHS):
			d = map[string]string{"higher": "lower", "lower": "higher"}[d]
		default:
			return nil
		}
		if dir != "" && dir != d {
			agree = false
		}
		dir = d
		return nil
	})
	if !agree {
		return ""
	}
	return dir
}
