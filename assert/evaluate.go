package assert

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
	"github.com/zclconf/go-cty/cty"
)

// Evaluator checks results against a suite's expectations and conditions.
// It is safe for concurrent use: the runner calls it from every worker.
type Evaluator struct {
	suite     *spec.Suite
	templates map[string]*spec.Template
	// paths caches compiled JSONPaths by their text (expectations of saved
	// results are compiled once, not per case).
	paths sync.Map
	// where locates expectations for failure reports: template → path → range.
	where map[string]map[string]hcl.Range
	// dims is set when the suite's schema declares dimensions.
	dims *dimIndex
}

// NewEvaluator prepares an evaluator for s.
func NewEvaluator(s *spec.Suite) *Evaluator {
	e := &Evaluator{suite: s, templates: map[string]*spec.Template{}, where: map[string]map[string]hcl.Range{}}
	for _, t := range s.Templates {
		e.templates[t.Name] = t
		m := map[string]hcl.Range{}
		for _, x := range t.Expect {
			m[x.Path] = x.Range
			e.paths.Store(x.Path, compiled{x.Expr, multiNode(x.Expr), x.Expr.String()})
		}
		e.where[t.Name] = m
	}
	if s.Schema != nil && len(s.Schema.Dimensions) > 0 {
		e.dims = newDimIndex(s.Schema)
	}
	return e
}

type compiled struct {
	x     jp.Expr
	multi bool
	// canon is the path's canonical text, as response leaves print.
	canon string
}

func (e *Evaluator) path(p string) (compiled, error) {
	if c, ok := e.paths.Load(p); ok {
		return c.(compiled), nil
	}
	x, _, err := spec.CompilePath(p)
	if err != nil {
		return compiled{}, err
	}
	c := compiled{x, multiNode(x), x.String()}
	e.paths.Store(p, c)
	return c, nil
}

var parsers = sync.Pool{New: func() any { return &oj.Parser{Reuse: true} }}

// deepCopy copies a parsed JSON value, so it stays valid after the parser
// that produced it is reused.
func deepCopy(v any) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	}
	return v
}

// Evaluate sets r.Outcome and r.Failures. A result whose call failed stays
// an error; a response that is not JSON becomes one.
func (e *Evaluator) Evaluate(r *schema.Result) {
	r.Failures = nil
	if r.Error != nil {
		r.Outcome = schema.Error
		return
	}
	var data any
	if len(r.Response) > 0 {
		// A parser per call reuses its maps: nothing of the parsed response
		// outlives this call except failure values, which are copied.
		p := parsers.Get().(*oj.Parser)
		defer parsers.Put(p)
		d, err := p.Parse(r.Response)
		if err != nil {
			r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: fmt.Sprintf("response is not JSON: %v", err)}
			r.Outcome = schema.Error
			return
		}
		data = d
	}
	t := e.templates[r.Template]
	file := ""
	if t != nil {
		file = t.DeclRange.Filename
	}
	var met []bool
	if e.dims != nil {
		met = make([]bool, len(r.Expect))
	}
	for i, x := range r.Expect {
		nfail := len(r.Failures)
		c, err := e.path(x.Path)
		f := schema.Failure{Kind: "expect", Path: x.Path, Expected: x.Value, File: file}
		if rng, ok := e.where[r.Template][x.Path]; ok {
			f.Line = rng.Start.Line
		}
		if err != nil {
			f.Message = fmt.Sprintf("invalid JSONPath: %v", err)
			r.Failures = append(r.Failures, f)
			continue
		}
		f.Dimension = e.dimName(x.Path, c.x)
		got, found := matches(c.x, data, c.multi)
		if !found {
			f.Missing = true
			r.Failures = append(r.Failures, f)
			continue
		}
		var actual any = got[0]
		if c.multi {
			actual = got
		}
		if !Equal(x.Value, actual) {
			f.Actual = deepCopy(actual)
			r.Failures = append(r.Failures, f)
		}
		if met != nil {
			met[i] = len(r.Failures) == nfail
		}
	}
	if e.dims != nil {
		r.Scratch = e.analyse(r, data, met)
	}
	var asserts []*spec.Assert
	if t != nil {
		asserts = t.Asserts
	}
	if len(asserts)+len(e.suite.Asserts) > 0 {
		ctx := e.conditionContext(r)
		for _, a := range asserts {
			e.condition(r, a, ctx)
		}
		for _, a := range e.suite.Asserts {
			e.condition(r, a, ctx)
		}
	}
	if len(r.Failures) > 0 {
		r.Outcome = schema.Fail
	} else {
		r.Outcome = schema.Pass
	}
}

func (e *Evaluator) dimName(key string, x jp.Expr) string {
	if e.dims == nil {
		return ""
	}
	if d := e.dims.of(key, x); d != nil {
		return d.Name
	}
	return ""
}

// conditionContext is the context of assert conditions: var, case, slot,
// response, http and latency_ms.
func (e *Evaluator) conditionContext(r *schema.Result) *hcl.EvalContext {
	ctx := e.suite.CaseContext(&r.Case)
	resp := cty.NullVal(cty.DynamicPseudoType)
	if len(r.Response) > 0 {
		if v, err := spec.JSONToCty(r.Response); err == nil {
			resp = v
		}
	}
	hdrs := map[string]cty.Value{}
	for k, v := range r.Headers {
		hdrs[strings.ToLower(k)] = cty.StringVal(v)
	}
	ctx.Variables["response"] = resp
	ctx.Variables["http"] = cty.ObjectVal(map[string]cty.Value{
		"status":  cty.NumberIntVal(int64(r.Status)),
		"headers": headerMap(hdrs),
	})
	ctx.Variables["latency_ms"] = cty.NumberFloatVal(r.LatencyMS)
	return ctx
}

func headerMap(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	return cty.MapVal(m)
}

// condition evaluates one assert block. A condition that cannot be
// evaluated (a field the response lacks, say) is a failure of the case: the
// service answered, but not with what the suite relies on.
func (e *Evaluator) condition(r *schema.Result, a *spec.Assert, ctx *hcl.EvalContext) {
	f := schema.Failure{Kind: "assert", Dimension: a.Dimension, File: a.DeclRange.Filename, Line: a.DeclRange.Start.Line}
	v, diags := a.Condition.Value(ctx)
	src := exprSource(e.suite, a.Condition)
	switch {
	case diags.HasErrors():
		f.Message = fmt.Sprintf("%s could not be evaluated: %s", src, diagSummary(diags))
	case !v.IsKnown() || v.IsNull():
		f.Message = fmt.Sprintf("%s has no value", src)
	case v.Type() != cty.Bool:
		f.Message = fmt.Sprintf("%s is %s, not true or false", src, v.Type().FriendlyName())
	case v.True():
		return
	default:
		msg := a.Message
		if msg == "" {
			msg = "condition is false"
		}
		f.Message = fmt.Sprintf("%s: %s%s", msg, src, usedValues(a.Condition, ctx))
	}
	r.Failures = append(r.Failures, f)
}

func diagSummary(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			parts = append(parts, strings.TrimSuffix(d.Detail, "."))
		}
	}
	return strings.Join(parts, "; ")
}

// exprSource returns the source text of an expression.
func exprSource(s *spec.Suite, e hcl.Expression) string {
	r := e.Range()
	src := s.Sources[r.Filename]
	if src == nil || r.End.Byte > len(src) || r.Start.Byte >= r.End.Byte {
		return "condition"
	}
	return string(src[r.Start.Byte:r.End.Byte])
}

// usedValues renders " (with response.intent.name = "x", …)" for the names
// a condition used, so a failure explains itself.
func usedValues(e hcl.Expression, ctx *hcl.EvalContext) string {
	seen := map[string]bool{}
	var parts []string
	for _, tr := range e.Variables() {
		name := address(tr)
		if seen[name] || tr.RootName() == "var" {
			continue
		}
		seen[name] = true
		v, diags := tr.TraverseAbs(ctx)
		if diags.HasErrors() {
			parts = append(parts, name+" is missing")
			continue
		}
		parts = append(parts, name+" = "+ShowValue(v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return " (with " + strings.Join(parts, ", ") + ")"
}

// ShowValue renders a cty value briefly for messages.
func ShowValue(v cty.Value) string {
	if !v.IsKnown() {
		return "(unknown)"
	}
	if v.IsNull() {
		return "null"
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case ty == cty.Number:
		return v.AsBigFloat().Text('g', 10)
	case ty == cty.Bool:
		return fmt.Sprintf("%t", v.True())
	}
	if b, err := ctyJSON(v); err == nil {
		if len(b) > 200 {
			return string(b[:200]) + "…"
		}
		return string(b)
	}
	return ty.FriendlyName()
}
