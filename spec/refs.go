package spec

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
)

// CaseAttributes are the attributes of `case` in per-case expressions
// (schema.CaseFields marked Expr, and history: a conversation's earlier
// messages, empty for a single case).
var CaseAttributes = append(schema.ExprCaseFields(), "history")

// HTTPAttributes are the attributes of `http` in conditions.
var HTTPAttributes = []string{"status", "headers"}

// allRoots are every name an expression can start with somewhere.
var allRoots = []string{"var", "case", "slot", "response", "http", "latency_ms", "metrics", "reply", "capture", "judge", "state"}

var rootWhere = map[string]string{
	"case":       "per-case expressions (target requests, asserts, split conditions)",
	"slot":       "per-case expressions (target requests, asserts, split conditions)",
	"response":   "assert conditions and a target's reply, which run after the call",
	"http":       "assert conditions, which run after the call",
	"latency_ms": "assert conditions, which run after the call",
	"reply":      "assert conditions, which run after the call",
	"state":      "assert conditions, which run after the call (the dialogue state a rasa target with tracker = true reads)",
	"capture":    "target requests and assert conditions of a conversation's turns",
	"metrics":    "threshold conditions, which run after all cases",
	"var":        "every expression except a variable's default",
	"judge":      "the request and judge block of a target with a judge block",
}

// JudgeAttributes are the attributes of judge, the answer a judge target
// is asked to judge.
var JudgeAttributes = []string{"fact", "question", "answer", "expect", "rubric", "criteria", "history", "scored"}

// onlyRoots checks that expr uses only the given root names (and that each
// var.NAME is declared); it reports what it finds and returns false on error.
func (l *loader) onlyRoots(expr hcl.Expression, what string, roots ...string) bool {
	return l.checkExpr(expr, what, roots, nil)
}

// checkExpr checks every name expr uses: its root must be one of roots; var,
// case, slot, http, response and metrics traversals must name something
// that exists. slots lists the slot names a template's expressions may use
// (nil: any materials name).
func (l *loader) checkExpr(expr hcl.Expression, what string, roots []string, slots []string) bool {
	ok := true
	for _, tr := range expr.Variables() {
		root := tr.RootName()
		rng := tr.SourceRange()
		if !slices.Contains(roots, root) {
			ok = false
			if slices.Contains(allRoots, root) {
				avail := "no names"
				if len(roots) > 0 {
					avail = quoteList(roots)
				}
				l.errorf(&rng, "Name not available here", "%q can be used only in %s. In a %s you can use %s.", root, rootWhere[root], what, avail)
			} else {
				l.errorf(&rng, "Unknown name", "There is no name %q in a %s.%s Available: %s.", root, what, didYouMean(root, roots), quoteList(roots))
			}
			continue
		}
		if !l.checkTraversal(tr, what, slots) {
			ok = false
		}
	}
	return ok
}

func stepName(t hcl.Traverser) (string, bool) {
	switch s := t.(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseIndex:
		if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
			return s.Key.AsString(), true
		}
	}
	return "", false
}

func (l *loader) checkTraversal(tr hcl.Traversal, what string, slots []string) bool {
	root := tr.RootName()
	if len(tr) < 2 {
		switch root {
		case "latency_ms", "response", "http", "case", "slot", "metrics", "reply", "capture", "judge", "state", "args", "mocks":
			return true
		}
		rng := tr.SourceRange()
		l.errorf(&rng, "Incomplete reference", "%q alone is not a value; name one of its attributes, e.g. var.NAME.", root)
		return false
	}
	name, named := stepName(tr[1])
	switch root {
	case "var":
		return l.checkVarRef(tr, name, named)
	case "case":
		return l.checkCaseRef(tr, name, named, slots)
	case "slot":
		return l.checkSlotRef(tr, name, named, slots)
	case "http":
		if named && !slices.Contains(HTTPAttributes, name) {
			return l.badRef(tr[1], "Unsupported attribute", "http has no attribute %q.%s http has %s.", name, didYouMean(name, HTTPAttributes), quoteList(HTTPAttributes))
		}
	case "judge":
		if named && !slices.Contains(JudgeAttributes, name) {
			return l.badRef(tr[1], "Unsupported attribute", "judge has no attribute %q.%s judge has %s.", name, didYouMean(name, JudgeAttributes), quoteList(JudgeAttributes))
		}
	case "response":
		if sch := l.suite.Schema; sch != nil && sch.HasType && !l.judgeResponse {
			return l.checkResponse(tr, sch)
		}
	case "metrics":
		return l.checkMetrics(tr)
	case "latency_ms":
		return l.badRef(tr[1], "Unsupported attribute", "latency_ms is a number of milliseconds; it has no attributes.")
	case "reply":
		return l.badRef(tr[1], "Unsupported attribute", "reply is the bot's reply text (a string); it has no attributes.")
	}
	return true
}

// badRef reports an error at one step of a traversal and returns false.
func (l *loader) badRef(step hcl.Traverser, summary, detail string, args ...any) bool {
	rng := step.SourceRange()
	l.errorf(&rng, summary, detail, args...)
	return false
}

// checkVarRef checks var.NAME: NAME must be a declared variable.
func (l *loader) checkVarRef(tr hcl.Traversal, name string, named bool) bool {
	if !named {
		return l.badRef(tr[1], "Invalid variable reference", "Write var.NAME with the name of a declared variable.")
	}
	if _, ok := l.varDecl[name]; !ok {
		names := make([]string, 0, len(l.varDecl))
		for n := range l.varDecl {
			names = append(names, n)
		}
		return l.badRef(tr[1], "Undeclared variable", "There is no variable %q.%s Declare it with variable %q { default = … }.", name, didYouMean(name, names), name)
	}
	return true
}

// checkCaseRef checks case.NAME (and case.slots.SLOT against slots).
func (l *loader) checkCaseRef(tr hcl.Traversal, name string, named bool, slots []string) bool {
	if named && !slices.Contains(CaseAttributes, name) {
		return l.badRef(tr[1], "Unsupported attribute", "case has no attribute %q.%s case has %s.", name, didYouMean(name, CaseAttributes), quoteList(CaseAttributes))
	}
	if named && name == "slots" && len(tr) > 2 {
		if sn, ok := stepName(tr[2]); ok && !l.slotKnown(sn, slots) {
			return l.badRef(tr[2], "Unknown slot", "No slot %q here.%s", sn, didYouMean(sn, l.slotNames(slots)))
		}
	}
	return true
}

// checkSlotRef checks slot.NAME against slots; a slot value has no
// attributes.
func (l *loader) checkSlotRef(tr hcl.Traversal, name string, named bool, slots []string) bool {
	if named && !l.slotKnown(name, slots) {
		return l.badRef(tr[1], "Unknown slot", "No slot %q here.%s Slots are the placeholders of the template's text.", name, didYouMean(name, l.slotNames(slots)))
	}
	if len(tr) > 2 {
		return l.badRef(tr[2], "Unsupported attribute", "slot.%s is the raw value (a string). For its normalised value, tag or level use case.slots[%q].normalized (or .tag, .level).", name, name)
	}
	return true
}

func (l *loader) slotKnown(name string, slots []string) bool {
	if slots == nil {
		_, ok := l.suite.Materials[name]
		return ok
	}
	return slices.Contains(slots, name)
}

func (l *loader) slotNames(slots []string) []string {
	if slots != nil {
		return slots
	}
	return l.suite.MatOrder
}

// checkResponse checks a response.* traversal against the schema's
// declared response type.
func (l *loader) checkResponse(tr hcl.Traversal, sch *Schema) bool {
	ty := sch.Response
	path := "response"
	for _, step := range tr[1:] {
		if ty == cty.DynamicPseudoType {
			return true
		}
		rng := step.SourceRange()
		name, named := stepName(step)
		switch {
		case ty.IsObjectType() && named:
			if !ty.HasAttribute(name) {
				attrs := make([]string, 0)
				for n := range ty.AttributeTypes() {
					attrs = append(attrs, n)
				}
				sort.Strings(attrs)
				l.errorf(&rng, "Unsupported attribute",
					"%s has no attribute %q in the %q schema's response type.%s %s has %s. If the service really returns it, add it to the schema's response type.",
					path, name, sch.Name, didYouMean(name, attrs), path, quoteList(attrs))
				return false
			}
			ty = ty.AttributeType(name)
			path += "." + name
		case ty.IsMapType():
			ty = ty.ElementType()
			path += "[…]"
		case ty.IsListType() || ty.IsSetType():
			if named {
				l.errorf(&rng, "Unsupported attribute", "%s is a list; index it with a number, e.g. %s[0].", path, path)
				return false
			}
			ty = ty.ElementType()
			path += "[…]"
		case ty.IsTupleType():
			return true
		default:
			l.errorf(&rng, "Unsupported attribute", "%s is %s; it has no attributes or elements.", path, typeName(ty))
			return false
		}
	}
	return true
}

// The names checkMetrics knows come from the suite's metrics-tree
// descriptor (Suite.Tree).

func shapeNames(sh *schema.Shape) (attrs, subs []string) {
	for _, a := range sh.Attrs {
		attrs = append(attrs, a.Name)
	}
	for _, s := range sh.Subs {
		subs = append(subs, s.Name)
	}
	return attrs, subs
}

func (l *loader) checkMetrics(tr hcl.Traversal) bool {
	steps := tr[1:]
	fail := func(i int, summary, detail string, args ...any) bool {
		rng := steps[i].SourceRange()
		l.errorf(&rng, summary, detail, args...)
		return false
	}
	name, _ := stepName(steps[0])
	g := l.suite.Tree.Group(name)
	switch {
	case g == nil:
		return l.checkNode(steps, tr[0].SourceRange())
	case !g.Keyed:
		return l.checkNode(steps[1:], steps[0].SourceRange())
	}
	if len(steps) < 2 {
		return fail(0, "Incomplete metric", "metrics.%s is a map of nodes; name one, e.g. metrics.%s[\"NAME\"].accuracy.", name, name)
	}
	key, ok := stepName(steps[1])
	if !ok {
		return fail(1, "Invalid metric key", "Name the %s with a string.", name)
	}
	if known, checked := l.metricKeys(g.Keys); checked && !slices.Contains(known, key) {
		knownText := "The suite declares none."
		if len(known) > 0 {
			knownText = "Known: " + quoteList(known) + "."
		}
		return fail(1, "Unknown "+g.What, "This suite has no %s %q, so metrics.%s has no node for it.%s %s", g.What, key, name, didYouMean(key, known), knownText)
	}
	return l.checkNode(steps[2:], steps[1].SourceRange())
}

// metricKeys returns the keys a keyed map of the metrics tree can have in
// this suite (schema.Sub.Keys); checked is false when any key may appear.
func (l *loader) metricKeys(keys string) (known []string, checked bool) {
	add := func(k string) {
		if !slices.Contains(known, k) {
			known = append(known, k)
		}
	}
	if len(l.brokenSources) > 0 && (keys == schema.KeysLevel || keys == schema.KeysScene || keys == schema.KeysRubric) {
		return nil, false // a source with errors may declare any level, scene or rubric
	}
	switch keys {
	case schema.KeysSplit:
		for _, sp := range l.suite.Splits {
			add(sp.Name)
		}
		for _, n := range l.broken["split"] {
			add(n) // a split block that could not be read
		}
	case schema.KeysLevel:
		for _, src := range l.suite.CaseSources {
			if lv := src.Info().Level; lv != "" {
				add(lv)
			}
		}
	case schema.KeysTemplate:
		return l.sourceNames(schema.KindTemplate), true
	case schema.KeysRubric:
		return l.suite.RubricNames(), true
	case schema.KeysScene:
		for _, src := range l.suite.CaseSources {
			sc := src.Info().Scene
			for i := range sc {
				add(strings.Join(sc[:i+1], "/"))
			}
		}
	default:
		kind, ok := strings.CutPrefix(keys, schema.KeysSourcePrefix)
		if !ok {
			return nil, false
		}
		return l.sourceNames(kind), true
	}
	return known, true
}

// sourceNames lists the names of the suite's case sources of one kind,
// with those of its blocks whose errors left no source (already reported:
// a reference to one is not a second error).
func (l *loader) sourceNames(kind string) []string {
	out := slices.Clone(l.brokenSources[kind])
	for _, src := range l.suite.CaseSources {
		if src.Kind() == kind {
			out = append(out, src.Name())
		}
	}
	return out
}

func (l *loader) checkNode(steps hcl.Traversal, prev hcl.Range) bool {
	if len(steps) == 0 {
		return true
	}
	tree := l.suite.Tree
	leaves, subs := shapeNames(tree.NodeShape())
	name, ok := stepName(steps[0])
	rng := steps[0].SourceRange()
	if !ok || (!slices.Contains(leaves, name) && !slices.Contains(subs, name)) {
		all := append(slices.Clip(leaves), subs...)
		for _, g := range tree.Groups {
			all = append(all, g.Name)
		}
		l.errorf(&rng, "Unknown metric", "There is no metric %q here.%s A metrics node has %s.", name, didYouMean(name, all), quoteList(append(slices.Clip(leaves), subs...)))
		return false
	}
	if slices.Contains(leaves, name) {
		return l.checkLeaf(tree.NodeShape(), name, steps[1:])
	}
	sub := tree.NodeShape().Subs[slices.Index(subs, name)]
	if len(steps) == 1 {
		return true
	}
	if sub.Keys == schema.KeysDimension || sub.Keys == schema.KeysLabel {
		return l.checkDimensionMetric(sub, steps[1:])
	}
	return l.checkSub(sub, steps[1:])
}

// checkLeaf checks what follows a metric's name, an attribute of sh:
// nothing, or the bound of its confidence interval (ci_low, ci_high)
// when it has one.
func (l *loader) checkLeaf(sh *schema.Shape, name string, rest hcl.Traversal) bool {
	if len(rest) == 0 {
		return true
	}
	r := rest[0].SourceRange()
	var a schema.Attr
	if i := slices.IndexFunc(sh.Attrs, func(a schema.Attr) bool { return a.Name == name }); i >= 0 {
		a = sh.Attrs[i]
	}
	bound, _ := stepName(rest[0])
	switch {
	case IntervalBound(bound) && a.CI == schema.CINone:
		l.errorf(&r, "Metric without an interval", "%s is %s: it has no confidence interval, so no %s. Proportions, F1s and means have one (`nlutest eval RUN --list-metrics` lists them with their interval); compare %s itself instead.", name, kindText(a), bound, name)
		return false
	case IntervalBound(bound) && len(rest) > 1:
		r = rest[1].SourceRange()
		l.errorf(&r, "Unsupported attribute", "%s.%s is a number; it has no attributes.", name, bound)
		return false
	case IntervalBound(bound):
		return true
	case a.CI != schema.CINone:
		l.errorf(&r, "Unsupported attribute", "%s is a number; its only attributes are the bounds of its confidence interval, ci_low and ci_high.%s", name, didYouMean(bound, intervalBounds))
		return false
	}
	l.errorf(&r, "Unsupported attribute", "%s is a number; it has no attributes.", name)
	return false
}

// kindText names what kind of number a metric is, for messages.
func kindText(a schema.Attr) string {
	switch a.Kind {
	case schema.MetricCount:
		return "a count"
	case schema.MetricMillis:
		return "a latency in milliseconds"
	case schema.MetricRatio:
		return "a ratio that is not a proportion, F1 or mean of independent units"
	}
	return "a number without an interval"
}

// checkSub checks the steps after the name of a subtree (latency, a
// registered family's) against its shape.
func (l *loader) checkSub(sub *schema.Sub, steps hcl.Traversal) bool {
	if len(steps) == 0 {
		return true
	}
	if sub.Keyed {
		return l.checkEntry(sub, sub.Shape, steps[1:])
	}
	attrs, subs := shapeNames(sub.Shape)
	all := append(slices.Clip(attrs), subs...)
	a, _ := stepName(steps[0])
	if !slices.Contains(all, a) {
		r := steps[0].SourceRange()
		l.errorf(&r, "Unknown metric", "%s has no %q.%s It has %s.", sub.Name, a, didYouMean(a, all), quoteList(all))
		return false
	}
	return l.checkIn(sub.Shape, a, steps[1:])
}

// checkIn checks the steps after name, an attribute or subtree of sh.
func (l *loader) checkIn(sh *schema.Shape, name string, rest hcl.Traversal) bool {
	for _, s := range sh.Subs {
		if s.Name == name {
			return l.checkSub(s, rest)
		}
	}
	return l.checkLeaf(sh, name, rest)
}

// checkEntry checks the steps after the key of a keyed map's entry.
func (l *loader) checkEntry(sub *schema.Sub, sh *schema.Shape, steps hcl.Traversal) bool {
	if len(steps) == 0 {
		return true
	}
	attrs, subs := shapeNames(sh)
	all := append(slices.Clip(attrs), subs...)
	b, _ := stepName(steps[0])
	if !slices.Contains(all, b) {
		r := steps[0].SourceRange()
		l.errorf(&r, "Unknown metric", "%s entries have %s; %q is none of them.%s", sub.Name, quoteList(all), b, didYouMean(b, all))
		return false
	}
	return l.checkIn(sh, b, steps[1:])
}

// checkDimensionMetric checks metrics…dimension.NAME… and …label.NAME…
// against the suite schema's dimensions.
func (l *loader) checkDimensionMetric(sub *schema.Sub, steps hcl.Traversal) bool {
	sc := l.suite.Schema
	name, _ := stepName(steps[0])
	var names []string
	var dim *Dimension
	if sc != nil {
		for _, d := range sc.Dimensions {
			if (sub.Keys == schema.KeysLabel) == (d.Kind == schema.KindLabel) {
				names = append(names, d.Name)
				if d.Name == name {
					dim = d
				}
			}
		}
	}
	if dim == nil {
		known := "The suite's schema declares none."
		if len(names) > 0 {
			known = "Known: " + quoteList(names) + "."
		}
		rng := steps[0].SourceRange()
		l.errorf(&rng, "Unknown "+sub.What, "The suite's schema has no %s %q.%s %s", sub.What, name, didYouMean(name, names), known)
		return false
	}
	l.checkFed(dim, steps[0].SourceRange())
	if len(steps) < 2 {
		return true
	}
	sh := sub.ShapeOf(dim.Kind)
	attrs, subs := shapeNames(sh)
	all := append(slices.Clip(attrs), subs...)
	a, _ := stepName(steps[1])
	if !slices.Contains(all, a) {
		rng := steps[1].SourceRange()
		l.errorf(&rng, "Unknown metric", "The %s dimension %q has no %q.%s It has %s.", dim.Kind, dim.Name, a, didYouMean(a, all), quoteList(all))
		return false
	}
	if dim.Kind == schema.KindItems && dim.TypeKey == "" && (a == "types" || slices.Contains(sh.Optional, a)) {
		rng := steps[1].SourceRange()
		l.errorf(&rng, "Metric needs item types", "%s of the %s dimension %q is computed per item type; declare the key holding the type in the dimension (type = \"entity\").", a, dim.Kind, dim.Name)
		return false
	}
	return l.checkIn(sh, a, steps[2:])
}

// checkFed warns when no expectation of the suite feeds dimension dim, so
// a threshold reading it will have no data, and names the expectation
// form that would. Sources whose cases carry their own expectations
// (datasets read from Rasa files) may feed it: no warning then.
func (l *loader) checkFed(dim *Dimension, rng hcl.Range) {
	sc := l.suite.Schema
	for _, src := range l.suite.CaseSources {
		info := src.Info()
		if info.Expect == nil {
			return
		}
		for _, x := range info.Expect {
			if x.OnResponse() && concretePath(x.Expr) && (sc.DimensionOf(x.Expr) == dim || sc.CollectionOf(x.Expr) == dim) {
				return
			}
		}
	}
	l.warnf(&rng, "Dimension fed by no expectation", "No expectation of the suite belongs to the %s dimension %q, so the threshold reading it will have no data and fail. An expectation that feeds it: expect = { %s }.", dim.Kind, dim.Name, feedingForm(dim))
}

// concretePath reports whether x selects one node: names and indexes
// (dimension metrics count only such expectations).
func concretePath(x jp.Expr) bool {
	for i, f := range x {
		switch f.(type) {
		case jp.Root:
			if i > 0 {
				return false
			}
		case jp.Child, jp.Nth, jp.Bracket:
		default:
			return false
		}
	}
	return true
}

// feedingForm is an example expectation of dimension d.
func feedingForm(d *Dimension) string {
	switch {
	case d.Kind == schema.KindItems && d.Collection != nil:
		parts := make([]string, len(d.Keys))
		for i, k := range d.Keys {
			parts[i] = k + " = \"…\""
		}
		return fmt.Sprintf("%q = [{ %s }] (or [] for none)", d.Collection.Source, strings.Join(parts, ", "))
	case d.Kind == schema.KindItems && d.Items != nil && len(d.Keys) > 0:
		return fmt.Sprintf("\"%s.%s\" = \"…\" for items selected by %s", strings.Replace(d.Items.Source, "[*]", "[0]", 1), d.Keys[0], d.Items.Source)
	case d.Kind == schema.KindLabel && d.Label != nil:
		return fmt.Sprintf("%q = \"LABEL\"", d.Label.Source)
	case len(d.Paths) > 0:
		return fmt.Sprintf("a path matching %s = VALUE", d.Paths[0].Source)
	}
	return "a path of the dimension"
}

// checkReferences checks every deferred expression once everything is
// declared.
func (l *loader) checkReferences() {
	s := l.suite
	for _, t := range s.Targets {
		l.checkTargetRefs(t)
	}
	condRoots := []string{"var", "case", "slot", "response", "http", "latency_ms", "reply", "capture", "state"}
	for _, a := range s.Asserts {
		l.checkExpr(a.Condition, "suite assert condition", condRoots, nil)
	}
	for _, src := range s.CaseSources {
		info := src.Info()
		keys := info.Slots
		if keys == nil {
			keys = []string{} // no slots (nil would mean any materials name)
		}
		for _, a := range info.Asserts {
			l.checkExpr(a.Condition, src.Kind()+" assert condition", condRoots, keys)
		}
	}
	for _, sp := range s.Splits {
		if sp.Where != nil {
			l.checkExpr(sp.Where, "split condition", []string{"var", "case", "slot"}, nil)
		}
	}
	for _, th := range s.Thresholds {
		l.checkExpr(th.Condition, "threshold condition", []string{"var", "metrics"}, nil)
	}
	l.checkStateUse()
}

// checkTargetRefs checks the names a target's expressions use. A judge
// target's requests may also use judge, and its responses are the
// judge's, not the suite schema's.
func (l *loader) checkTargetRefs(t *Target) {
	request, after := []string{"var", "case", "slot", "capture"}, []string{"var", "case", "slot", "response"}
	if t.Judge != nil {
		request, after = append(request, "judge"), append(after, "judge")
		l.judgeResponse = true
		defer func() { l.judgeResponse = false }()
	}
	for _, e := range t.PerCase {
		l.checkExpr(e, "target request", request, nil)
	}
	for _, e := range t.AfterCall {
		l.checkExpr(e, "target reply", after, nil)
	}
	if t.Judge != nil && t.Judge.Verdict != nil {
		l.checkExpr(t.Judge.Verdict, "judge verdict", []string{"var", "judge", "response", "reply"}, nil)
	}
}

// checkFunctionNames reports calls to functions that do not exist, in
// every expression of a file (target requests, conditions, defaults…), at
// load: HCL would only say so when the expression is evaluated, in the
// middle of a run.
func (l *loader) checkFunctionNames(body *hclsyntax.Body) {
	names := slices.Sorted(maps.Keys(Functions(FileAccess{})))
	known := map[string]bool{"env": true}
	for _, n := range names {
		known[n] = true
	}
	types := typeExprRanges(body)
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if fc, ok := n.(*hclsyntax.FunctionCallExpr); ok && !known[fc.Name] && !within(types, fc.NameRange) {
			rng := fc.NameRange
			l.errorf(&rng, "Call to unknown function", "There is no function named %q.%s See docs/language.md#functions for the functions suites can call.", fc.Name, didYouMean(fc.Name, names))
		}
		return nil
	})
}

// typeExprRanges are the ranges of the file's type expressions — a schema's
// response and a variable's type — where object({…}), list(T) and
// optional(T) are type constructors, not function calls.
func typeExprRanges(body *hclsyntax.Body) []hcl.Range {
	var out []hcl.Range
	for _, b := range body.Blocks {
		name := map[string]string{"schema": "response", "variable": "type"}[b.Type]
		if a, ok := b.Body.Attributes[name]; ok && name != "" {
			out = append(out, a.Expr.Range())
		}
	}
	return out
}

// within reports whether r lies inside one of the ranges.
func within(ranges []hcl.Range, r hcl.Range) bool {
	for _, o := range ranges {
		if o.Filename == r.Filename && o.Start.Byte <= r.Start.Byte && r.End.Byte <= o.End.Byte {
			return true
		}
	}
	return false
}

// checkNames checks the function calls of a file's body and of its
// streamed turns (read by parseStreamed, their diagnostics turnDiags),
// and notes its env() calls. The diagnostics are in the order of the
// file: HCL visits a body's attributes in no set order.
func (l *loader) checkNames(body *hclsyntax.Body, turnDiags hcl.Diagnostics) {
	mark := len(l.diags)
	l.checkEnvCalls(body)
	l.checkFunctionNames(body)
	l.diags = append(l.diags, turnDiags...)
	sort.SliceStable(l.diags[mark:], func(i, j int) bool {
		return diagBefore(l.diags[mark+i], l.diags[mark+j])
	})
}

// diagBefore orders diagnostics by where they are.
func diagBefore(a, b *hcl.Diagnostic) bool {
	if a.Subject == nil || b.Subject == nil {
		return a.Subject != nil
	}
	if a.Subject.Filename != b.Subject.Filename {
		return a.Subject.Filename < b.Subject.Filename
	}
	return a.Subject.Start.Byte < b.Subject.Start.Byte
}

// checkEnvCalls records every env() call outside a variable default.
func (l *loader) checkEnvCalls(body *hclsyntax.Body) {
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if fc, ok := n.(*hclsyntax.FunctionCallExpr); ok && fc.Name == "env" {
			l.envCalls = append(l.envCalls, fc.NameRange)
		}
		return nil
	})
}

func (l *loader) envCallDiags() {
	sort.SliceStable(l.envCalls, func(i, j int) bool {
		a, b := l.envCalls[i], l.envCalls[j]
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Start.Byte < b.Start.Byte
	})
	for _, r := range l.envCalls {
		inDefault := slices.ContainsFunc(l.defaultRanges, func(d hcl.Range) bool {
			return d.Filename == r.Filename && d.Start.Byte <= r.Start.Byte && r.End.Byte <= d.End.Byte
		})
		if !inDefault {
			rr := r
			l.errorf(&rr, "env() outside a variable default", "env() may be used only in a variable's default, so every outside input is declared in one place. Declare variable \"x\" { default = env(\"X\", \"\") } and use var.x here.")
		}
	}
}

// suggest returns the option closest to name, or "" when none is close.
func suggest(name string, options []string) string {
	n := utf8.RuneCountInString(name)
	best, bestD := "", 1<<30
	for _, o := range options {
		d := levenshtein(strings.ToLower(name), strings.ToLower(o))
		// A name cut short or run on ({手机号} for 手机号11位) is a common slip.
		if n >= 2 && (strings.HasPrefix(o, name) || strings.HasPrefix(name, o) && utf8.RuneCountInString(o) >= 2) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = o, d
		}
	}
	// About one edit per three characters, and always one for names of two
	// or more characters (Chinese names are short).
	if best == "" || bestD > max(1, n/3) || bestD >= n {
		return ""
	}
	return best
}

func didYouMean(name string, options []string) string {
	if s := suggest(name, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
