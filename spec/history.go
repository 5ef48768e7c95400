package spec

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec/drift"
)

// pendingHistory is a history block decoded but not yet checked against
// the metrics tree (checkThresholdHistory, after the references).
type pendingHistory struct {
	th     *Threshold
	metric hcl.Expression // nil: the condition's metrics
	better string
	block  *hcl.Block
}

// decodeThresholdHistory decodes a threshold's history block.
func (l *loader) decodeThresholdHistory(th *Threshold, b *hcl.Block) {
	c, _ := l.content(b.Body, drift.Schema)
	h := &drift.Gate{DeclRange: b.DefRange}
	h.Window = l.integer(c.Attributes, "window", drift.DefaultWindow, 2)
	h.MaxDrop = l.number(c.Attributes, "max_drop", 0, 0, math.MaxFloat64)
	h.Alpha = l.number(c.Attributes, "alpha", drift.DefaultAlpha, 1e-9, 0.5)
	h.MinRuns = l.integer(c.Attributes, "min_runs", drift.DefaultMinRuns, 2)
	if h.MinRuns > h.Window {
		l.errorf(c.Attributes["min_runs"].Expr.Range().Ptr(), "More runs needed than the window holds", "min_runs (%d) is the fewest earlier runs the gate needs out of the window's %d; make it at most window.", h.MinRuns, h.Window)
	}
	p := pendingHistory{th: th, block: b}
	if a, ok := c.Attributes["better"]; ok {
		p.better = l.str(c.Attributes, "better", "")
		if p.better != "higher" && p.better != "lower" {
			l.errorf(a.Expr.Range().Ptr(), "Unknown direction", "better says which way the metric improves: \"higher\" (accuracy, F1) or \"lower\" (error rate, latency); %q is neither.", p.better)
			p.better = ""
		}
	}
	if a, ok := c.Attributes["metric"]; ok {
		p.metric = a.Expr
	}
	th.History = h
	l.pendingHistory = append(l.pendingHistory, p)
}

// checkThresholdHistory resolves each history block's metrics once the
// references have been checked: the metric must be one number of the
// metrics tree, and its direction known (written, or read from the
// condition's comparisons).
func (l *loader) checkThresholdHistory() {
	for _, p := range l.pendingHistory {
		var trs []hcl.Traversal
		if p.metric != nil {
			tr, ok := l.historyMetric(p.metric)
			if !ok {
				continue
			}
			trs = []hcl.Traversal{tr}
		} else if p.th.Condition != nil {
			trs = ConditionMetrics(p.th.Condition)
		}
		if len(trs) == 0 && p.th.Condition != nil && p.metric == nil {
			l.errorf(p.block.DefRange.Ptr(), "No metric to watch", "The threshold's condition reads no metric, so its history block has nothing to watch; add metric = metrics.NAME to the block.")
		}
		for _, tr := range trs {
			better := p.better
			if better == "" {
				want := traversalText(tr)
				better = drift.Direction(p.th.Condition, func(e hclsyntax.Expression) bool { return readsMetric(e, want) })
			}
			if better == "" {
				l.errorf(p.block.DefRange.Ptr(), "Direction of the metric unknown", "The drift gate must know which way %s improves, and the condition does not say it by one comparison (metric >= value, or <=). Add better = \"higher\" or better = \"lower\" to the history block.", traversalText(tr))
				continue
			}
			p.th.History.Watch = append(p.th.History.Watch, drift.Metric{Traversal: tr, Better: better})
		}
	}
	l.pendingHistory = nil
}

// historyMetric checks a history block's metric expression: one
// reference to a number of the metrics tree (a bound names its metric).
func (l *loader) historyMetric(expr hcl.Expression) (hcl.Traversal, bool) {
	tr, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() || tr.RootName() != "metrics" || len(tr) < 2 {
		l.errorf(expr.Range().Ptr(), "Metric reference required", "A history block's metric is one metric of the run, written as a condition reads it: metric = metrics.accuracy, metric = metrics.split.smoke.accuracy.")
		return nil, false
	}
	if !l.checkExpr(expr, "history block's metric", []string{"metrics"}, nil) {
		return nil, false
	}
	tr = stripBound(tr)
	if l.suite.Tree != nil && !metricLeaf(l.suite.Tree, tr[1:]) {
		l.errorf(expr.Range().Ptr(), "Not a metric", "%s is a node or a group of the metrics tree, not one number: name a metric in it (…accuracy, …f1).", traversalText(tr))
		return nil, false
	}
	return tr, true
}

// stripBound drops a last ci_low or ci_high step: the drift gate watches
// the metric, with its interval.
func stripBound(tr hcl.Traversal) hcl.Traversal {
	tr = WrittenTraversal(tr)
	if len(tr) > 2 {
		if name, ok := stepName(tr[len(tr)-1]); ok && IntervalBound(name) {
			return tr[:len(tr)-1]
		}
	}
	return tr
}

// ConditionMetrics are the metrics a condition reads, once each, in the
// order written (bounds stand for their metric), as written.
func ConditionMetrics(cond hcl.Expression) []hcl.Traversal {
	var out []hcl.Traversal
	seen := map[string]bool{}
	for _, tr := range cond.Variables() {
		if tr.RootName() != "metrics" || len(tr) < 2 {
			continue
		}
		tr = stripBound(tr)
		if k := traversalText(tr); !seen[k] {
			seen[k] = true
			out = append(out, tr)
		}
	}
	return out
}

// readsMetric reports whether e is a reference to the metric written
// want (or to one of its bounds).
func readsMetric(e hclsyntax.Expression, want string) bool {
	st, ok := e.(*hclsyntax.ScopeTraversalExpr)
	return ok && traversalText(stripBound(st.Traversal)) == want
}

// traversalText writes a traversal as a condition would: names with
// dots, keys in brackets.
func traversalText(tr hcl.Traversal) string {
	s := ""
	for _, step := range tr {
		switch t := step.(type) {
		case hcl.TraverseRoot:
			s += t.Name
		case hcl.TraverseAttr:
			s += "." + t.Name
		case hcl.TraverseIndex:
			if name, ok := stepName(t); ok {
				s += fmt.Sprintf("[%q]", name)
			} else {
				s += "[…]"
			}
		}
	}
	return s
}

// TraversalSteps are the names of a metric traversal's steps after its
// root (metrics.split["冒烟"].accuracy: split, 冒烟, accuracy): the
// members of report.json's metrics tree it reads; ok is false for a step
// that is not a name or a string key.
func TraversalSteps(tr hcl.Traversal) (steps []string, ok bool) {
	tr = stripBound(tr)
	for _, s := range tr[1:] {
		name, named := stepName(s)
		if !named {
			return nil, false
		}
		steps = append(steps, name)
	}
	return steps, true
}

// TraversalText writes a metric traversal as a condition would, with
// keys in brackets: metrics.split["冒烟"].accuracy.
func TraversalText(tr hcl.Traversal) string { return traversalText(tr) }
