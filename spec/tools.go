package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/ohler55/ojg/jp"
)

// This file is the tools block (issue 37): checks of an agent's tool
// calls written as data, in a template (each case), a conversation turn,
// a scenario's each_turn — over the turn's calls — and in a conversation
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
// "tool:NAME:$.path" (ToolPrefix), so their placeholders are resolved
// and recorded like any other expectation's, and eval re-checks them from
// results.jsonl. A final_state block's expectations are keyed
// "final:$.path" (FinalPrefix) the same way.

// ToolPrefix starts the expectation key of a tools block's args entry:
// "tool:search_flights:$.city".
const ToolPrefix = "tool:"

// FinalPrefix starts the expectation key of a final_state block's expect
// entry: "final:$.bookings[0].city".
const FinalPrefix = "final:"

// ToolChecks is a tools block.
type ToolChecks struct {
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

// CompileCheckKey compiles any expectation key a case may carry,
// including the recorded forms of args and final_state entries.
func CompileCheckKey(p string) (CheckKey, error) {
	t := strings.TrimLeft(p, " \t\n\v\f\r")
	switch {
	case strings.HasPrefix(t, ToolPrefix):
		rest := t[len(ToolPrefix):]
		name, path, ok := strings.Cut(rest, ":")
		if !ok || name == "" {
			return CheckKey{}, &PathError{Path: p, To: len(p), Reason: "a tool: key is tool:NAME:$.path: the tool's name, a colon and a JSONPath of its arguments"}
		}
		x, norm, err := CompilePath(path)
		return CheckKey{X: x, Norm: ToolPrefix + name + ":" + norm, Tool: name}, err
	case strings.HasPrefix(t, FinalPrefix):
		x, norm, err := CompilePath(t[len(FinalPrefix):])
		return CheckKey{X: x, Norm: FinalPrefix + norm, Final: true}, err
	}
	x, norm, state, err := CompileExpectPath(p)
	return CheckKey{X: x, Norm: norm, State: state}, err
}

// reservedKey reports whether an expect map's key uses a prefix of the
// recorded forms (tool:, final:), which only tools and final_state
// blocks write.
func reservedKey(raw string) string {
	t := strings.TrimLeft(raw, " \t\n\v\f\r")
	switch {
	case strings.HasPrefix(t, ToolPrefix):
		return "a tools block's args: tools { args = { \"NAME\" = { \"$.city\" = \"{城市}\" } } }"
	case strings.HasPrefix(t, FinalPrefix):
		return "a final_state block: final_state { from = \"mocks\", expect = { \"$.bookings[0].city\" = \"{城市}\" } }"
	}
	return ""
}

// OnResponse reports whether the expectation reads the response (not the
// dialogue state, a tool call or the final state): only those belong to
// schema dimensions.
func (x *ExpectSpec) OnResponse() bool { return !x.State && x.Tool == "" && !x.Final }

var toolsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "called"}, {Name: "not_called"}, {Name: "args"}, {Name: "sequence"}, {Name: "mode"},
}}

// toolsBlocks decodes the one tools block among blocks (nil without
// one). script: the block is a conversation's or scenario's, over every
// turn's calls, where args is not allowed. It returns the checks and the
// args expectations (keys "tool:NAME:$.path") to append to the case's.
func (l *loader) toolsBlocks(blocks hcl.Blocks, slots []string, script bool) (*ToolChecks, []*ExpectSpec) {
	var out *ToolChecks
	var args []*ExpectSpec
	for _, b := range blocks {
		if b.Type != "tools" {
			continue
		}
		if out != nil {
			l.errorf(b.DefRange.Ptr(), "Duplicate tools block", "A case has one tools block, first at %s; put every check in it.", rangeString(out.DeclRange))
			continue
		}
		out, args = l.toolsBlock(b, slots, script)
	}
	return out, args
}

func (l *loader) toolsBlock(b *hcl.Block, slots []string, script bool) (*ToolChecks, []*ExpectSpec) {
	tc := &ToolChecks{DeclRange: b.DefRange}
	c, ok := l.content(b.Body, toolsSchema)
	if !ok {
		return tc, nil
	}
	attrs := c.Attributes
	names := func(name string, dst *[]string, rng *hcl.Range) bool {
		a, ok := attrs[name]
		if !ok {
			return false
		}
		*rng = a.Range
		*dst = l.strList(attrs, name)
		for _, n := range *dst {
			l.checkToolName(a.Expr, n)
		}
		return true
	}
	tc.HasCalled = names("called", &tc.Called, &tc.CalledRange)
	names("not_called", &tc.NotCalled, &tc.NotCalledRange)
	tc.HasSequence = names("sequence", &tc.Sequence, &tc.SequenceRange)
	for _, n := range tc.NotCalled {
		if slices.Contains(tc.Called, n) || slices.Contains(tc.Sequence, n) {
			l.errorf(attrs["not_called"].Expr.Range().Ptr(), "Contradictory tool checks", "%q is in not_called and must also be called (called or sequence); no agent can pass both. Remove it from one of them.", n)
		}
	}
	tc.Mode = l.str(attrs, "mode", schema.ModeExact)
	if a, ok := attrs["mode"]; ok {
		switch {
		case !slices.Contains(schema.SequenceModes, tc.Mode):
			l.errorf(a.Expr.Range().Ptr(), "Unknown sequence mode", "mode is one of %s: how the calls are compared with sequence.%s", strings.Join(quoteAll(schema.SequenceModes), ", "), didYouMean(tc.Mode, schema.SequenceModes))
		case !tc.HasSequence:
			l.errorf(a.Range.Ptr(), "Mode without sequence", "mode says how the calls are compared with sequence; add sequence = [\"…\"], or remove mode.")
		}
	}
	a, ok := attrs["args"]
	if !ok {
		return tc, nil
	}
	if script {
		l.errorf(a.Range.Ptr(), "Arguments checked over several turns", "This tools block (a conversation's or a scenario's, or a scenario's each_turn) checks the calls of several turns by name: called, not_called, sequence. Check arguments in the tools block of a conversation turn or a template, whose case makes the call.")
		return tc, nil
	}
	return tc, l.toolArgs(tc, a, slots)
}

// toolArgs decodes args = { "NAME" = { "$.path" = value, … }, … }: each
// entry an expectation on the arguments of the tool's calls.
func (l *loader) toolArgs(tc *ToolChecks, a *hcl.Attribute, slots []string) []*ExpectSpec {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid args", "args is a map from a tool's name to expectations on its arguments, e.g. args = { \"search_flights\" = { \"$.city\" = \"{城市}\" } }.")
		return nil
	}
	var out []*ExpectSpec
	for _, p := range pairs {
		name := mapKeyName(p.Key)
		if name == "" {
			l.errorf(p.Key.Range().Ptr(), "Invalid args", "Each args entry is \"NAME\" = { \"$.path\" = value }: a tool's name, and expectations on its arguments.")
			continue
		}
		if !l.checkToolName(p.Key, name) {
			continue
		}
		if slices.Contains(tc.ArgTools, name) {
			l.errorf(p.Key.Range().Ptr(), "Duplicate args", "The arguments of %q are checked already in this block; merge the two maps.", name)
			continue
		}
		if _, d := hcl.ExprMap(p.Value); d.HasErrors() {
			l.errorf(p.Value.Range().Ptr(), "Invalid args", "The arguments of %q are checked by a map from a JSONPath of the arguments to the expected value, e.g. { \"$.city\" = \"{城市}\" }.", name)
			continue
		}
		specs := l.decodeExpect(&hcl.Attribute{Name: "args", Expr: p.Value, Range: p.Value.Range()}, slots)
		tc.ArgTools = append(tc.ArgTools, name)
		for _, es := range specs {
			if es.State {
				l.errorf(es.Range.Ptr(), "State path in args", "args paths read the call's arguments; a state: path reads the dialogue state, which belongs in the turn's expect.")
				continue
			}
			es.Path, es.Tool = ToolPrefix+name+":"+es.Path, name
			out = append(out, es)
		}
	}
	return out
}

// mapKeyName is a map key written as a keyword or a string.
func mapKeyName(k hcl.Expression) string {
	if n := hcl.ExprAsKeyword(k); n != "" {
		return n
	}
	if v, diags := k.Value(nil); !diags.HasErrors() && v.Type().FriendlyName() == "string" && !v.IsNull() {
		return v.AsString()
	}
	return ""
}

// checkToolName reports a tool name that cannot be one: empty, or with a
// colon (the recorded args keys are tool:NAME:$.path) or a control
// character. A name no tool block declares is a warning when the suite
// declares tool blocks (an http agent's tools need none).
func (l *loader) checkToolName(e hcl.Expression, name string) bool {
	if name == "" || strings.ContainsAny(name, ":") || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		l.errorf(e.Range().Ptr(), "Invalid tool name", "%q is not a tool name: a name is not empty and holds no colon or control character.", name)
		return false
	}
	if tools := l.suite.ToolOrder; len(tools) > 0 && !slices.Contains(tools, name) {
		l.warnf(e.Range().Ptr(), "Unknown tool", "No tool block declares %q, so no mock answers it.%s A check of a tool the agent is not offered fails; fix the name, or declare tool %q {}.", name, didYouMean(name, tools), name)
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

// constTools is SourceInfo.Tools for a source whose every case has the
// tools block tc (nil when tc is nil).
func constTools(tc *ToolChecks) func(*schema.Case) *ToolChecks {
	if tc == nil {
		return nil
	}
	return func(*schema.Case) *ToolChecks { return tc }
}
