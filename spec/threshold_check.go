package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
)

// This file checks the types of threshold conditions at load. Every metric
// a condition reads is a number (or null, "no data"), so a condition is
// evaluated once with each metric an unknown number, in the context the
// run evaluates it in: a comparison with a text (metrics.accuracy >=
// "high"), arithmetic on one, or a condition that is not true or false
// fails there as it would at the end of every run, and is reported at the
// expression instead. A == or != between a metric and a value of another
// type (metrics.accuracy == "0.9") is no error in HCL but always false (or
// always true): it is reported too.

// checkThresholdTypes checks every threshold whose names are all known
// (the load has no error inside its condition).
func (l *loader) checkThresholdTypes() {
	for _, th := range l.suite.Thresholds {
		if l.errorWithin(th.Condition.Range()) {
			continue
		}
		metrics, ok := l.typedMetrics(th.Condition)
		if !ok {
			continue
		}
		ctx := l.suite.CheckBaseContext().NewChild()
		ctx.Variables = map[string]cty.Value{"metrics": metrics}
		l.checkThresholdValue(th, ctx)
	}
}

// errorWithin reports whether an error of the load lies inside rng.
func (l *loader) errorWithin(rng hcl.Range) bool {
	for _, d := range l.diags {
		if s := d.Subject; d.Severity == hcl.DiagError && s != nil && s.Filename == rng.Filename &&
			rng.Start.Byte <= s.Start.Byte && s.End.Byte <= rng.End.Byte {
			return true
		}
	}
	return false
}

// checkThresholdValue evaluates th's condition in ctx (metrics unknown
// numbers) and reports what cannot work.
func (l *loader) checkThresholdValue(th *Threshold, ctx *hcl.EvalContext) {
	cond := th.Condition
	v, diags := cond.Value(ctx)
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity != hcl.DiagError {
				continue
			}
			rng := cond.Range()
			if d.Subject != nil {
				rng = *d.Subject
			}
			l.errorf(&rng, "Invalid threshold condition", "threshold %q cannot be evaluated: %s: %s Every metric is a number, so the condition would fail to evaluate at the end of every run; compare metrics with numbers, e.g. metrics.accuracy >= 0.9.", th.Name, d.Summary, d.Detail)
			return
		}
	}
	v = Unmark(v)
	if ty := v.Type(); ty != cty.DynamicPseudoType && ty != cty.Bool {
		l.errorf(cond.Range().Ptr(), "Invalid threshold condition", "threshold %q gives %s, not true or false; write a comparison, e.g. metrics.accuracy >= 0.9.", th.Name, typeName(ty))
		return
	}
	syn, ok := cond.(hclsyntax.Expression)
	if !ok {
		return
	}
	_ = hclsyntax.VisitAll(syn, func(n hclsyntax.Node) hcl.Diagnostics {
		if op, ok := n.(*hclsyntax.BinaryOpExpr); ok && (op.Op == hclsyntax.OpEqual || op.Op == hclsyntax.OpNotEqual) {
			l.checkEquality(th, op, ctx)
		}
		return nil
	})
}

// checkEquality reports an == or != whose sides have different primitive
// types: HCL compares them without conversion, so the answer is fixed.
func (l *loader) checkEquality(th *Threshold, op *hclsyntax.BinaryOpExpr, ctx *hcl.EvalContext) {
	lv, ld := op.LHS.Value(ctx)
	rv, rd := op.RHS.Value(ctx)
	if ld.HasErrors() || rd.HasErrors() {
		return
	}
	lt, rt := Unmark(lv).Type(), Unmark(rv).Type()
	if !lt.IsPrimitiveType() || !rt.IsPrimitiveType() || lt == rt {
		return
	}
	always := "false"
	if op.Op == hclsyntax.OpNotEqual {
		always = "true"
	}
	rng := op.Range()
	l.errorf(&rng, "Comparison of different types", "In threshold %q, the left side is %s and the right side %s: HCL compares values of different types without converting them, so this is always %s. Compare the metric with a number, e.g. metrics.accuracy >= 0.9.", th.Name, typeName(lt), typeName(rt), always)
}

// typedMetrics is the metrics value of expr's traversals: each metric an
// unknown number, each node or map it passes through an object holding
// them, anything else (a whole node, a map read by a function) of unknown
// type. ok is false when expr reads metrics in a way this cannot follow
// (a splat, a computed key) or uses a variable without a value.
func (l *loader) typedMetrics(expr hcl.Expression) (cty.Value, bool) {
	root := &metricNode{}
	for _, tr := range expr.Variables() {
		switch tr.RootName() {
		case "var":
			if name, ok := stepName(tr[1]); len(tr) < 2 || !ok || l.unset[name] {
				return cty.NilVal, false
			}
		case "metrics":
			if !root.add(l.suite.Tree, tr[1:]) {
				return cty.NilVal, false
			}
		}
	}
	return root.value(), true
}

// metricNode is a node of the metrics value typedMetrics builds.
type metricNode struct {
	children map[string]*metricNode
	order    []string
	leaf     bool // read as a metric
	whole    bool // read as a whole (a node or a map)
}

// add records the traversal steps (after "metrics").
func (n *metricNode) add(tree *schema.Tree, steps hcl.Traversal) bool {
	if len(steps) == 0 {
		n.whole = true
		return true
	}
	leaf := metricLeaf(tree, steps)
	for _, s := range steps {
		name, ok := metricStep(s)
		if !ok {
			return false
		}
		if n.children == nil {
			n.children = map[string]*metricNode{}
		}
		c, ok := n.children[name]
		if !ok {
			c = &metricNode{}
			n.children[name] = c
			n.order = append(n.order, name)
		}
		n = c
	}
	if leaf {
		n.leaf = true
	} else {
		n.whole = true
	}
	return true
}

func (n *metricNode) value() cty.Value {
	switch {
	case n.whole || n.leaf && len(n.children) > 0:
		return cty.DynamicVal
	case n.leaf:
		return cty.UnknownVal(cty.Number)
	}
	attrs := make(map[string]cty.Value, len(n.children))
	for _, k := range n.order {
		attrs[k] = n.children[k].value()
	}
	return cty.ObjectVal(attrs)
}

// metricStep is the name a step reads: an attribute, or a key (a number
// key as HCL turns it into a map key).
func metricStep(s hcl.Traverser) (string, bool) {
	if name, ok := stepName(s); ok {
		return name, true
	}
	if ix, ok := s.(hcl.TraverseIndex); ok && ix.Key.Type() == cty.Number && ix.Key.IsKnown() && !ix.Key.IsNull() {
		return ix.Key.AsBigFloat().Text('f', -1), true
	}
	return "", false
}

// metricLeaf reports whether the steps after "metrics" name a metric of
// the tree (a number), not a node, a subtree or a map.
func metricLeaf(tree *schema.Tree, steps hcl.Traversal) bool {
	name, _ := metricStep(steps[0])
	if g := tree.Group(name); g != nil {
		steps = steps[1:]
		if g.Keyed {
			if len(steps) == 0 {
				return false
			}
			steps = steps[1:]
		}
	}
	return shapeLeaf(tree, tree.NodeShape(), steps)
}

// shapeLeaf is metricLeaf for the steps below an object of shape sh.
func shapeLeaf(tree *schema.Tree, sh *schema.Shape, steps hcl.Traversal) bool {
	if len(steps) == 0 {
		return false
	}
	name, _ := metricStep(steps[0])
	if base, _, ok := SplitIntervalAttr(name); ok {
		name = base // metrics.accuracy.ci_low, rewritten to accuracy#ci_low: a number
	}
	for _, a := range sh.Attrs {
		if a.Name == name {
			return len(steps) == 1
		}
	}
	for _, sub := range sh.Subs {
		if sub.Name != name {
			continue
		}
		rest := steps[1:]
		if sub.Keyed {
			if len(rest) == 0 {
				return false
			}
			rest = rest[1:]
		}
		shapes := []*schema.Shape{sub.Shape}
		if sub.Shape == nil {
			shapes = []*schema.Shape{tree.NodeShape()}
		}
		for _, v := range sub.Variants {
			shapes = append(shapes, v)
		}
		for _, s := range shapes {
			if shapeLeaf(tree, s, rest) {
				return true
			}
		}
		return false
	}
	return false
}
