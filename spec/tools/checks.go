// Package tools owns the suite's agent-tool blocks (issue 37): the tools
// block, checks of an agent's tool calls written as data (Checks,
// DecodeChecks), the keys its argument checks and a final_state block's
// checks are recorded under (Prefix, FinalPrefix, CheckKey), and the tool
// block, a mock tool that answers an agent's calls from the suite (Tool,
// DecodeMocks, Answer, MockState, Defs). It decodes blocks' content with
// the loader's evaluation passed in (Env) and answers calls; it does not
// compile JSONPaths or decode expect maps (spec does, through Env), call
// agents (runner/targets) or check results (assert/tools.go).
package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/attr"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
)

// The tools block, in a template (each case), a conversation turn, a
// scenario's each_turn — over the turn's calls — and in a conversation
// or scenario block, over the calls of all its turns (checked on the turn
// that ends it):
//
//	tools {
//	  called     = ["search_flights"]            # each called at least once (as often as listed)
//	  not_called = ["book_flight"]
//	  args       = { "search_flights" = { "$.city" = "{城市}" } }   # a turn's block only
//	  sequence   = ["search_flights", "book_flight"]
//	  mode       = "in_order"                     # exact (default), in_order, any_order, subset, superset
//	}
//
// The args expectations become expectations of the case under the key
// "tool:NAME:$.path" (Prefix), so their placeholders are resolved
// and recorded like any other expectation's, and eval re-checks them from
// results.jsonl. A final_state block's expectations are keyed
// "final:$.path" (FinalPrefix) the same way.

// Prefix starts the expectation key of a tools block's args entry:
// "tool:search_flights:$.city".
const Prefix = "tool:"

// FinalPrefix starts the expectation key of a final_state block's expect
// entry: "final:$.bookings[0].city".
const FinalPrefix = "final:"

// Checks is a tools block.
type Checks struct {
	// Called lists the tools that must be called (a name listed n times
	// must be called at least n times); HasCalled is set when called was
	// written (even empty), which makes the turn count in metrics.tools'
	// precision and recall.
	Called    []string
	HasCalled bool
	NotCalled []string
	// Sequence is the expected list of calls and Mode how the calls are
	// compared with it (schema.Mode*); HasSequence when written.
	Sequence    []string
	HasSequence bool
	Mode        string
	// ArgTools are the tools whose arguments the block checks, in source
	// order (the expectations are the case's "tool:NAME:…" ones).
	ArgTools []string
	// Ranges locate the block and its attributes, for failures.
	DeclRange, CalledRange, NotCalledRange, SequenceRange hcl.Range
}

// CheckKey is a compiled expectation key: a JSONPath of the response,
// or with a prefix, of the dialogue state (state:), of a tool call's
// arguments (tool:NAME:) or of the final state (final:).
type CheckKey struct {
	X jp.Expr
	// Norm is the key normalised, prefix included.
	Norm  string
	State bool
	Tool  string
	Final bool
}

// Reserved says which block writes an expect map's key that uses a
// prefix of the recorded forms (tool:, final:), which only tools and
// final_state blocks write; "" for any other key.
func Reserved(raw string) string {
	t := strings.TrimLeft(raw, " \t\n\v\f\r")
	switch {
	case strings.HasPrefix(t, Prefix):
		return "a tools block's args: tools { args = { \"NAME\" = { \"$.city\" = \"{城市}\" } } }"
	case strings.HasPrefix(t, FinalPrefix):
		return "a final_state block: final_state { from = \"mocks\", expect = { \"$.bookings[0].city\" = \"{城市}\" } }"
	}
	return ""
}

// ChecksSchema is the tools block's body schema: decode a block's body
// with it and hand the content to DecodeChecks.
var ChecksSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "called"}, {Name: "not_called"}, {Name: "args"}, {Name: "sequence"}, {Name: "mode"},
}}

// Args decodes the expectations on the arguments of tool's calls, the
// map a of one args entry, into the case's expectations; its diagnostics
// say what is wrong.
type Args func(tool string, a *hcl.Attribute) hcl.Diagnostics

// DecodeChecks decodes the content c (decoded with ChecksSchema) of the
// tools block b. script: the block is a conversation's or scenario's,
// over every turn's calls, where args is not allowed. Each args entry
// whose tool name is good is handed to args, in source order.
func DecodeChecks(b *hcl.Block, c *hcl.BodyContent, script bool, env Env, args Args) (*Checks, hcl.Diagnostics) {
	d := &decoder{env: env}
	tc := &Checks{DeclRange: b.DefRange}
	attrs := c.Attributes
	names := func(name string, dst *[]string, rng *hcl.Range) bool {
		a, ok := attrs[name]
		if !ok {
			return false
		}
		*rng = a.Range
		*dst = d.strList(attrs, name)
		for _, n := range *dst {
			d.checkName(a.Expr, n)
		}
		return true
	}
	tc.HasCalled = names("called", &tc.Called, &tc.CalledRange)
	names("not_called", &tc.NotCalled, &tc.NotCalledRange)
	tc.HasSequence = names("sequence", &tc.Sequence, &tc.SequenceRange)
	for _, n := range tc.NotCalled {
		if slices.Contains(tc.Called, n) || slices.Contains(tc.Sequence, n) {
			d.errorf(attrs["not_called"].Expr.Range().Ptr(), "Contradictory tool checks", "%q is in not_called and must also be called (called or sequence); no agent can pass both. Remove it from one of them.", n)
		}
	}
	tc.Mode = d.str(attrs, "mode", schema.ModeExact)
	if a, ok := attrs["mode"]; ok {
		switch {
		case !slices.Contains(schema.SequenceModes, tc.Mode):
			d.errorf(a.Expr.Range().Ptr(), "Unknown sequence mode", "mode is one of %s: how the calls are compared with sequence.%s", strings.Join(quoteAll(schema.SequenceModes), ", "), d.didYouMean(tc.Mode, schema.SequenceModes))
		case !tc.HasSequence:
			d.errorf(a.Range.Ptr(), "Mode without sequence", "mode says how the calls are compared with sequence; add sequence = [\"…\"], or remove mode.")
		}
	}
	a, ok := attrs["args"]
	if !ok {
		return tc, d.diags
	}
	if script {
		d.errorf(a.Range.Ptr(), "Arguments checked over several turns", "This tools block (a conversation's or a scenario's, or a scenario's each_turn) checks the calls of several turns by name: called, not_called, sequence. Check arguments in the tools block of a conversation turn or a template, whose case makes the call.")
		return tc, d.diags
	}
	d.args(tc, a, args)
	return tc, d.diags
}

// args decodes args = { "NAME" = { "$.path" = value, … }, … }: each
// entry an expectation on the arguments of the tool's calls.
func (d *decoder) args(tc *Checks, a *hcl.Attribute, args Args) {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.errorf(a.Expr.Range().Ptr(), "Invalid args", "args is a map from a tool's name to expectations on its arguments, e.g. args = { \"search_flights\" = { \"$.city\" = \"{城市}\" } }.")
		return
	}
	for _, p := range pairs {
		name := MapKeyName(p.Key)
		if name == "" {
			d.errorf(p.Key.Range().Ptr(), "Invalid args", "Each args entry is \"NAME\" = { \"$.path\" = value }: a tool's name, and expectations on its arguments.")
			continue
		}
		if !d.checkName(p.Key, name) {
			continue
		}
		if slices.Contains(tc.ArgTools, name) {
			d.errorf(p.Key.Range().Ptr(), "Duplicate args", "The arguments of %q are checked already in this block; merge the two maps.", name)
			continue
		}
		if _, diags := hcl.ExprMap(p.Value); diags.HasErrors() {
			d.errorf(p.Value.Range().Ptr(), "Invalid args", "The arguments of %q are checked by a map from a JSONPath of the arguments to the expected value, e.g. { \"$.city\" = \"{城市}\" }.", name)
			continue
		}
		d.diags = append(d.diags, args(name, &hcl.Attribute{Name: "args", Expr: p.Value, Range: p.Value.Range()})...)
		tc.ArgTools = append(tc.ArgTools, name)
	}
}

// MapKeyName is the name a map key of an HCL object expression writes,
// bare (city) or quoted ("订单号"); "" for a key that is neither.
func MapKeyName(k hcl.Expression) string {
	if n := hcl.ExprAsKeyword(k); n != "" {
		return n
	}
	if v, diags := k.Value(nil); !diags.HasErrors() && v.Type().FriendlyName() == "string" && !v.IsNull() {
		return v.AsString()
	}
	return ""
}

// CheckName reports a tool name (written at e) that cannot be one: empty,
// or with a colon (the recorded args keys are tool:NAME:$.path) or a
// control character; ok is false after that error. A name no tool block
// declares (env.Tools) is a warning when the suite declares tool blocks
// (an http agent's tools need none).
func CheckName(e hcl.Expression, name string, env Env) (ok bool, diags hcl.Diagnostics) {
	d := &decoder{env: env}
	ok = d.checkName(e, name)
	return ok, d.diags
}

func (d *decoder) checkName(e hcl.Expression, name string) bool {
	if name == "" || strings.ContainsAny(name, ":") || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		d.errorf(e.Range().Ptr(), "Invalid tool name", "%q is not a tool name: a name is not empty and holds no colon or control character.", name)
		return false
	}
	if tools := d.env.Tools; len(tools) > 0 && !slices.Contains(tools, name) {
		d.warnf(e.Range().Ptr(), "Unknown tool", "No tool block declares %q, so no mock answers it.%s A check of a tool the agent is not offered fails; fix the name, or declare tool %q {}.", name, d.didYouMean(name, tools), name)
	}
	return true
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = `"` + x + `"`
	}
	return out
}

// Env is what decoding the tools and tool blocks needs from the suite's
// loader.
type Env struct {
	// Content decodes body against schema as the loader does (an unknown
	// argument does not stop the decoding: ok is false only when the
	// content is unusable).
	Content func(body hcl.Body, schema *hcl.BodySchema) (c *hcl.BodyContent, ok bool, diags hcl.Diagnostics)
	// Static evaluates an attribute that may use only var and the suite's
	// functions, converted to ty (cty.DynamicPseudoType: as written); what
	// names it in messages. ok is false when the value cannot be used;
	// diags say why (none when it was said before).
	Static func(a *hcl.Attribute, ty cty.Type, what string) (v cty.Value, ok bool, diags hcl.Diagnostics)
	// MockExpr checks the names a mock expression (a result, an effect's
	// value; what names it) uses: MockRoots, and no sensitive variable.
	MockExpr func(e hcl.Expression, what string) (ok bool, diags hcl.Diagnostics)
	// Expect decodes an expect map (a tool case's when) with no slots.
	Expect func(a *hcl.Attribute) ([]Expectation, hcl.Diagnostics)
	// Suggest is the option nearest to name, "" when none is near, for
	// did-you-mean.
	Suggest func(name string, options []string) string
	// Tools are the names the suite's tool blocks declare, in order.
	Tools []string
}

// Expectation is one entry of an expect map as the loader decodes it.
type Expectation struct {
	// Path is the JSONPath normalised, X compiled; State is set for a
	// "state:" path.
	Path  string
	X     jp.Expr
	State bool
	// Value is the expected value, with placeholders still in its strings
	// (Placeholders says whether it has any).
	Value        cty.Value
	Placeholders bool
	Range        hcl.Range
}

// decoder decodes one block, collecting its diagnostics.
type decoder struct {
	env   Env
	diags hcl.Diagnostics
}

func (d *decoder) errorf(rng *hcl.Range, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng})
}

func (d *decoder) warnf(rng *hcl.Range, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng})
}

func (d *decoder) didYouMean(name string, options []string) string {
	if s := d.env.Suggest(name, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

func (d *decoder) content(body hcl.Body, schema *hcl.BodySchema) (*hcl.BodyContent, bool) {
	c, ok, diags := d.env.Content(body, schema)
	d.diags = append(d.diags, diags...)
	return c, ok
}

func (d *decoder) static(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
	v, ok, diags := d.env.Static(a, ty, what)
	d.diags = append(d.diags, diags...)
	return v, ok
}

func (d *decoder) mockExpr(e hcl.Expression, what string) bool {
	ok, diags := d.env.MockExpr(e, what)
	d.diags = append(d.diags, diags...)
	return ok
}

func (d *decoder) attrs() attr.Reader { return attr.Reader{Static: d.static, Errorf: d.errorf} }

func (d *decoder) str(attrs hcl.Attributes, name, def string) string {
	return d.attrs().String(attrs, name, def)
}

func (d *decoder) strList(attrs hcl.Attributes, name string) []string {
	return d.attrs().StringList(attrs, name)
}
