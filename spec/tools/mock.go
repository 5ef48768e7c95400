package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/diagfmt"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"golang.org/x/text/unicode/norm"
)

// The tool block (issue 37): a mock tool that answers an
// agent's calls from the suite, so an agent runs in CI with no backend.
//
//	tool "book_flight" {
//	  description = "预订航班"
//	  parameters  = { type = "object", properties = { city = { type = "string" } }, required = ["city"] }
//	  case {                                     # the first case whose when holds answers
//	    when   = { "$.city" = "拉萨" }
//	    result = { error = "no seats" }
//	  }
//	  result = { order_id = "B-${args.city}" }   # the default: an expression over args, var, mocks
//	  effect {
//	    append = "bookings"                      # the mock state's list "bookings" gets the value
//	    value  = args
//	  }
//	}
//
// The tool blocks are what an openai (or demo agent) target offers the
// model (the request's tools), and their answers are the tool messages
// it is sent back. The effects of a conversation's calls make its mock
// state, which a final_state block with from = "mocks" reads.

// Tool is a tool block.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, compact JSON.
	Parameters []byte
	// Cases are the case blocks, in order; Result the default result (nil
	// without one) and Effects its effects.
	Cases     []*Case
	Result    hcl.Expression
	Effects   []*Effect
	DeclRange hcl.Range
}

// Case is one case block of a tool: when its expectations hold on
// the arguments, its result answers and its effects apply.
type Case struct {
	When    []when
	Result  hcl.Expression
	Effects []*Effect
	Range   hcl.Range
}

type when struct {
	path string
	x    jp.Expr
	want any
}

// Effect is an effect block: the value is appended to the mock
// state's list Append, or set as its member Set.
type Effect struct {
	Append, Set string
	Value       hcl.Expression
	Range       hcl.Range
}

// toolNameRE is a function name as OpenAI's chat completions accept it.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var toolSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "parameters"}, {Name: "result"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "case"}, {Type: "effect"}},
}

var toolCaseSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "when", Required: true}, {Name: "result", Required: true}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "effect"}},
}

var toolEffectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "append"}, {Name: "set"}, {Name: "value", Required: true}},
}

// MockRoots are the names a mock's result and effect expressions use.
var MockRoots = []string{"var", "args", "mocks"}

// defaultParameters is the parameters of a tool block without any.
var defaultParameters = []byte(`{"type":"object","properties":{}}`)

// DecodeMocks decodes the tool blocks, in order: the tools by name and
// their names in order.
func DecodeMocks(blocks hcl.Blocks, env Env) (map[string]*Tool, []string, hcl.Diagnostics) {
	d := &decoder{env: env}
	var byName map[string]*Tool
	var order []string
	for _, b := range blocks {
		name := ""
		if len(b.Labels) > 0 {
			name = b.Labels[0]
		}
		if !toolNameRE.MatchString(name) {
			d.errorf(b.LabelRanges[0].Ptr(), "Invalid tool name", "A tool's name is what the model calls: 1 to 64 letters, digits, _ or - (OpenAI's rule for function names); %q is not one.", name)
			continue
		}
		if t := d.tool(b, name); t != nil {
			if byName == nil {
				byName = map[string]*Tool{}
			}
			byName[name] = t
			order = append(order, name)
		}
	}
	return byName, order, d.diags
}

func (d *decoder) tool(b *hcl.Block, name string) *Tool {
	c, ok := d.content(b.Body, toolSchema)
	if !ok {
		return nil
	}
	t := &Tool{Name: name, Description: d.str(c.Attributes, "description", ""), Parameters: defaultParameters, DeclRange: b.DefRange}
	if a, ok := c.Attributes["parameters"]; ok {
		v, ok := d.static(a, cty.DynamicPseudoType, `"parameters" attribute`)
		if !ok {
			return nil
		}
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			d.errorf(a.Expr.Range().Ptr(), "Invalid parameters", "parameters is the JSON Schema of the tool's arguments, an object: { type = \"object\", properties = { city = { type = \"string\" } }, required = [\"city\"] }.")
			return nil
		}
		p, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			d.errorf(a.Expr.Range().Ptr(), "Invalid parameters", "parameters cannot be written as JSON: %v.", err)
			return nil
		}
		t.Parameters = p
	}
	if a, ok := c.Attributes["result"]; ok && d.mockExpr(a.Expr, "tool's result") {
		t.Result = a.Expr
	}
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "case":
			if tc := d.toolCase(blk); tc != nil {
				t.Cases = append(t.Cases, tc)
			}
		case "effect":
			if e := d.effect(blk); e != nil {
				t.Effects = append(t.Effects, e)
			}
		}
	}
	return t
}

func (d *decoder) toolCase(b *hcl.Block) *Case {
	c, ok := d.content(b.Body, toolCaseSchema)
	if !ok {
		return nil
	}
	tc := &Case{Result: c.Attributes["result"].Expr, Range: b.DefRange}
	if !d.mockExpr(tc.Result, "tool case's result") {
		return nil
	}
	specs, diags := d.env.Expect(c.Attributes["when"])
	d.diags = append(d.diags, diags...)
	for _, es := range specs {
		if es.State || es.Placeholders {
			d.errorf(es.Range.Ptr(), "Invalid when", "when reads the call's arguments with plain JSONPaths and values: no state: paths, no {placeholders} (a tool block belongs to no template).")
			return nil
		}
		tc.When = append(tc.When, when{path: es.Path, x: es.X, want: ctyGeneric(es.Value)})
	}
	for _, eb := range c.Blocks {
		if e := d.effect(eb); e != nil {
			tc.Effects = append(tc.Effects, e)
		}
	}
	return tc
}

func (d *decoder) effect(b *hcl.Block) *Effect {
	c, ok := d.content(b.Body, toolEffectSchema)
	if !ok {
		return nil
	}
	e := &Effect{Append: d.str(c.Attributes, "append", ""), Set: d.str(c.Attributes, "set", ""), Value: c.Attributes["value"].Expr, Range: b.DefRange}
	if (e.Append == "") == (e.Set == "") {
		d.errorf(b.DefRange.Ptr(), "Invalid effect", "An effect names one member of the mock state: append = \"bookings\" (a list the value is appended to) or set = \"user\" (the value replaces it).")
		return nil
	}
	if !d.mockExpr(e.Value, "effect's value") {
		return nil
	}
	return e
}

// ctyGeneric is a static value in the generic JSON form (ojg's: int64,
// float64, string, bool, nil, []any, map[string]any).
func ctyGeneric(v cty.Value) any {
	if v.IsNull() {
		return nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil
	}
	g, err := oj.Parse(b)
	if err != nil {
		return nil
	}
	return g
}

// MockState is a conversation's mock state: the members the effects of
// its tool calls set and appended to (a JSON object).
type MockState map[string]any

// JSON is the state as JSON (members sorted).
func (m MockState) JSON() []byte {
	if m == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(map[string]any(m))
	if err != nil {
		return []byte("{}")
	}
	return b
}

// Answer is the tool's answer to a call with the arguments args (JSON,
// an object): the result of the first case whose when holds, else the
// default result, each with its effects applied to state. An error says
// why there is no answer (no case holds and no default, an expression
// that fails); state is then unchanged. base is the suite's evaluation
// context (var and its functions), whose child evaluates the results.
func (t *Tool) Answer(base *hcl.EvalContext, args []byte, state MockState) ([]byte, error) {
	argv, err := jsonToCty(args)
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %v", err)
	}
	result, effects := t.Result, t.Effects
	if len(t.Cases) > 0 {
		doc, err := oj.Parse(args)
		if err != nil {
			return nil, fmt.Errorf("the arguments are not JSON: %v", err)
		}
		for _, c := range t.Cases {
			if c.holds(doc) {
				result, effects = c.Result, c.Effects
				break
			}
		}
	}
	if result == nil {
		return nil, fmt.Errorf("tool %q has no case for these arguments and no default result", t.Name)
	}
	ctx := base.NewChild()
	mv, err := jsonToCty(state.JSON())
	if err != nil {
		mv = cty.EmptyObjectVal
	}
	ctx.Variables = map[string]cty.Value{"args": argv, "mocks": mv}
	out, err := mockValue(result, ctx)
	if err != nil {
		return nil, fmt.Errorf("tool %q: result: %v", t.Name, err)
	}
	next := MockState{}
	for k, v := range state {
		next[k] = v
	}
	for _, e := range effects {
		v, err := mockValue(e.Value, ctx)
		if err != nil {
			return nil, fmt.Errorf("tool %q: effect at line %d: %v", t.Name, e.Range.Start.Line, err)
		}
		g, _ := oj.Parse(v)
		if e.Set != "" {
			next[e.Set] = g
			continue
		}
		list, _ := next[e.Append].([]any)
		next[e.Append] = append(slices.Clip(list), g)
	}
	for k, v := range next {
		state[k] = v
	}
	return out, nil
}

// mockValue evaluates a mock expression to JSON.
func mockValue(e hcl.Expression, ctx *hcl.EvalContext) ([]byte, error) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s", strings.TrimSuffix(diagfmt.Text(diags), "."))
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("the value is not known")
	}
	return ctyjson.Marshal(v, v.Type())
}

// holds reports whether every when expectation holds on the arguments.
func (c *Case) holds(doc any) bool {
	for _, w := range c.When {
		got := w.x.Get(doc)
		var actual any
		switch {
		case len(got) == 0:
			return false
		case multiPath(w.x):
			actual = got
		default:
			actual = got[0]
		}
		if !jsonEqual(w.want, actual) {
			return false
		}
	}
	return true
}

// multiPath reports whether a path may select several nodes.
func multiPath(x jp.Expr) bool {
	for _, f := range x {
		switch f.(type) {
		case jp.Wildcard, jp.Descent, *jp.Filter, jp.Union, jp.Slice:
			return true
		}
	}
	return false
}

// jsonEqual compares generic JSON values as expectations do: numbers as
// numbers, strings in NFC, lists in order, objects by keys.
func jsonEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && norm.NFC.String(x) == norm.NFC.String(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	}
	return 0, false
}

// Defs is the request's tools member for the named tools of byName, in
// order: [{"type":"function","function":{"name","description","parameters"}}].
func Defs(byName map[string]*Tool, names []string) []byte {
	b := []byte{'['}
	for _, n := range names {
		t := byName[n]
		if t == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"function","function":{"name":`...)
		b = strconv.AppendQuote(b, t.Name) // names are ASCII letters, digits, _ and -
		if t.Description != "" {
			d, _ := json.Marshal(t.Description)
			b = append(append(b, `,"description":`...), d...)
		}
		b = append(append(b, `,"parameters":`...), t.Parameters...)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// jsonToCty converts JSON text to a cty value (objects, tuples,
// numbers…), as spec.JSONToCty does.
func jsonToCty(b []byte) (cty.Value, error) {
	ty, err := ctyjson.ImpliedType(b)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(b, ty)
}
