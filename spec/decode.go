package spec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec/combine"
	"github.com/zclconf/go-cty/cty"
)

var suiteSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "schema"}, {Name: "tags"}, {Name: "targets"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "defaults"}},
}

var defaultsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "level"}, {Name: "strategy"}, {Name: "limit"}, {Name: "level_limit"}},
}

func (l *loader) decodeSuite(b *hcl.Block) {
	s := l.suite
	c, diags := b.Body.Content(suiteSchema)
	l.diags = append(l.diags, diags...)
	s.Name = label(b)
	s.DeclRange = b.DefRange
	l.checkLabel(b)
	s.Description = l.str(c.Attributes, "description", "")
	s.SchemaName = l.str(c.Attributes, "schema", "")
	s.Tags = l.strList(c.Attributes, "tags")
	if a, ok := c.Attributes["targets"]; ok {
		s.RunTargets, s.RunTargetsRange = l.strList(c.Attributes, "targets"), a.Expr.Range()
	}
	for i, db := range c.Blocks {
		if i > 0 {
			l.errorf(db.DefRange.Ptr(), "Duplicate defaults block", "A suite has at most one defaults block.")
			continue
		}
		dc, diags := db.Body.Content(defaultsSchema)
		l.diags = append(l.diags, diags...)
		s.Defaults.Level = l.str(dc.Attributes, "level", "")
		s.Defaults.Strategy = l.strategy(dc.Attributes, "")
		s.Defaults.Limit = l.integer(dc.Attributes, "limit", 0, 0)
		if m := l.strMapNum(dc.Attributes, "level_limit"); m != nil {
			s.Defaults.LevelLimit = m
		}
	}
}

func (l *loader) strMapNum(attrs hcl.Attributes, name string) map[string]int {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, ok := l.static(a, cty.Map(cty.Number), fmt.Sprintf("%q attribute", name))
	if !ok || v.IsNull() {
		return nil
	}
	out := map[string]int{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		f, _ := e.AsBigFloat().Float64()
		if f < 0 || f != math.Trunc(f) {
			l.errorf(a.Expr.Range().Ptr(), "Invalid limit", "Each %s value must be a whole number ≥ 0; %s has %g.", name, k.AsString(), f)
			continue
		}
		out[k.AsString()] = int(f)
	}
	return out
}

var strategies = combine.Strategies()

func (l *loader) strategy(attrs hcl.Attributes, def string) string {
	s := l.str(attrs, "strategy", def)
	if s == "" || slices.Contains(strategies, s) {
		return s
	}
	l.errorf(attrs["strategy"].Expr.Range().Ptr(), "Unknown strategy", "The strategy %q is not one of %s.%s", s, quoteList(strategies), didYouMean(s, strategies))
	return def
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "type"}},
}

func (l *loader) decodeVariable(b *hcl.Block) {
	c, diags := b.Body.Content(variableSchema)
	l.diags = append(l.diags, diags...)
	v := &Variable{Name: label(b), DeclRange: b.DefRange, Default: cty.NullVal(cty.DynamicPseudoType), badDefault: misspells(diags, "default")}
	if !hclsyntax.ValidIdentifier(v.Name) {
		l.errorf(b.LabelRanges[0].Ptr(), "Invalid variable name", "A variable name must be a valid identifier (letters, digits, _ and -, not starting with a digit) so it can be read as var.NAME; %q is not.", v.Name)
		return
	}
	if a, ok := c.Attributes["default"]; ok {
		l.defaultRanges = append(l.defaultRanges, a.Expr.Range())
		v.Default, v.badDefault = l.variableDefault(a)
	}
	if a, ok := c.Attributes["description"]; ok {
		if val, ok := l.static(a, cty.String, "description"); ok && !val.IsNull() {
			v.Description = val.AsString()
		}
	}
	if a, ok := c.Attributes["sensitive"]; ok {
		if val, ok := l.static(a, cty.Bool, "sensitive attribute"); ok && !val.IsNull() {
			v.Sensitive = val.True()
		}
	}
	l.suite.Variables = append(l.suite.Variables, v)
	l.varDecl[v.Name] = v
}

// variableDefault evaluates a variable's default (which may call env());
// bad is true when it has an error, reported.
func (l *loader) variableDefault(a *hcl.Attribute) (v cty.Value, bad bool) {
	if !l.onlyRoots(a.Expr, "variable default", "") {
		return cty.NullVal(cty.DynamicPseudoType), true
	}
	ctx := &hcl.EvalContext{Functions: Functions(l.suite.Access)}
	ctx.Functions["env"] = envFunc(l.opts.Env)
	val, diags := a.Expr.Value(ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cty.NullVal(cty.DynamicPseudoType), true
	}
	return val, false
}

var schemaBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "response"}, {Name: "description"}, {Name: "ignore"}, {Name: "extends"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "dimension", LabelNames: []string{"name"}}},
}

var splitSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "where"}, {Name: "fraction"}, {Name: "seed"}},
}

func (l *loader) decodeSplit(b *hcl.Block) {
	c, diags := b.Body.Content(splitSchema)
	l.diags = append(l.diags, diags...)
	l.checkLabel(b)
	sp := &Split{Name: label(b), DeclRange: b.DefRange, Seed: "nlutest"}
	w, hasWhere := c.Attributes["where"]
	_, hasFrac := c.Attributes["fraction"]
	switch {
	case hasWhere && hasFrac:
		l.errorf(b.DefRange.Ptr(), "Conflicting split", "A split is chosen either by a where condition or by a fraction, not both.")
	case hasWhere:
		sp.Where = w.Expr
		sp.templateOnly = NeedsOf(w.Expr).TemplateOnly()
	case hasFrac:
		sp.Fraction = l.number(c.Attributes, "fraction", 0, 0, 1)
		sp.Seed = l.str(c.Attributes, "seed", sp.Seed)
	default:
		l.errorf(b.DefRange.Ptr(), "Split needs where or fraction", "Give the split a where condition over case (e.g. where = case.level == \"S1\") or a fraction of all cases (e.g. fraction = 0.1).")
	}
	l.suite.Splits = append(l.suite.Splits, sp)
}

// layoutSplits gives fraction splits their share of the unit interval:
// splits with the same seed take consecutive shares in declaration order, so
// train/dev/test 0.8/0.1/0.1 partition the cases.
func (l *loader) layoutSplits() {
	used := map[string]float64{}
	for _, sp := range l.suite.Splits {
		if sp.Where != nil || sp.Fraction == 0 {
			continue
		}
		sp.lo = used[sp.Seed]
		sp.hi = sp.lo + sp.Fraction
		used[sp.Seed] = sp.hi
		if sp.hi > 1+1e-9 {
			l.errorf(sp.DeclRange.Ptr(), "Split fractions exceed 1", "Splits with seed %q share the cases in declaration order; together they ask for %.4g of them. Lower a fraction or give this split its own seed.", sp.Seed, sp.hi)
		}
	}
}

var thresholdSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "message"}, {Name: "severity"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "history"}},
}

func (l *loader) decodeThreshold(b *hcl.Block) {
	c, ok := l.content(b.Body, thresholdSchema)
	l.checkLabel(b)
	t := &Threshold{Name: label(b), DeclRange: b.DefRange}
	if a, has := c.Attributes["condition"]; has {
		t.Condition = a.Expr
	}
	t.Message = l.str(c.Attributes, "message", "")
	t.Severity = l.str(c.Attributes, "severity", "error")
	if t.Severity != "error" && t.Severity != "warn" {
		l.errorf(c.Attributes["severity"].Expr.Range().Ptr(), "Unknown severity", "A threshold's severity is \"error\" (a miss fails the run) or \"warn\" (a miss is only reported); %q is neither.", t.Severity)
		t.Severity = "error"
	}
	for i, hb := range c.Blocks {
		if i > 0 {
			l.errorf(hb.DefRange.Ptr(), "Duplicate history block", "A threshold has one history block; the first is at %s.", rangeString(c.Blocks[0].DefRange))
			continue
		}
		l.decodeThresholdHistory(t, hb)
	}
	if ok { // else the condition is missing (reported); the rest is checked
		l.suite.Thresholds = append(l.suite.Thresholds, t)
	}
}

var assertSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "message"}, {Name: "dimension"}},
}

func (l *loader) decodeAssert(b *hcl.Block) *Assert {
	c, ok := l.content(b.Body, assertSchema)
	a := &Assert{DeclRange: b.DefRange}
	a.Message = l.str(c.Attributes, "message", "")
	a.Dimension = l.str(c.Attributes, "dimension", "")
	if !ok { // the condition is missing (reported)
		return nil
	}
	a.Condition = c.Attributes["condition"].Expr
	return a
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
