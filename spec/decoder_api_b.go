package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// This file is the public API the built-in case source kinds outside spec
// (sources/dataset, sources/conversation, sources/scenario) read their
// blocks and generate their cases with: what the loader does for every
// kind, offered to a kind that imports nothing but spec's exported API.

// DiagnosticError is a problem found while generating, reported as
// diagnostics with file and line (a bad dataset row): the command line
// prints them and exits 2.
type DiagnosticError struct{ Diags hcl.Diagnostics }

func (e *DiagnosticError) Error() string {
	var parts []string
	for _, d := range e.Diags {
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject != nil {
			msg = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, msg)
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// NoSensitive reports whether expr is free of the uses of sensitive
// variables the load refused: a kind does not evaluate an expression
// that holds one (the refusal is reported already).
func (d *Decoder) NoSensitive(expr hcl.Expression) bool { return d.l.noSensitive(expr) }

// UsesUnset reports whether expr reads a variable that has no value; such
// a variable's own diagnostic says what to fix, so a kind skips
// evaluating expr rather than report a second error.
func (d *Decoder) UsesUnset(expr hcl.Expression) bool { return d.l.usesUnset(expr) }

// StaticContext is the evaluation context of attributes evaluated at
// load: var.* and the suite language's functions.
func (d *Decoder) StaticContext() *hcl.EvalContext { return d.l.staticCtx() }

// Report adds diags (from evaluating an expression, reading a file…) to
// the load's diagnostics.
func (d *Decoder) Report(diags ...*hcl.Diagnostic) { d.l.diags = append(d.l.diags, diags...) }

// PathError reports the JSONPath raw, the value of expr, that did not
// compile (jsonpath.CompileExpect's error): the caret on the offending
// characters inside the string literal when expr is one, and what is
// wrong in words.
func (d *Decoder) PathError(expr hcl.Expression, raw string, err error) {
	d.l.pathError(expr, raw, err)
}

// Perturb reads a perturb block (nil when it declares no usable perturb,
// reported).
func (d *Decoder) Perturb(b *hcl.Block) *perturb.Block { return d.l.decodePerturb(b) }

// TextMinimums reads a source's min_* attributes (TextMinimumAttrs), 0–1
// each; references says whether the source's cases carry references,
// without which a minimum is an error.
func (d *Decoder) TextMinimums(attrs hcl.Attributes, references bool) []TextMinimum {
	return d.l.decodeTextMinimums(attrs, references)
}

// TextMinimumAttrs are the min_* attributes of a source with references
// (min_f1 …), for its block schema.
func TextMinimumAttrs() []hcl.AttributeSchema { return textMinimumAttrs() }

// ReplyBlocks reads the one reply block among blocks (nil without one; a
// second is an error). slots are the placeholders its values may use;
// references: the source's cases carry references, which `similar`
// without `to` compares with.
func (d *Decoder) ReplyBlocks(blocks hcl.Blocks, slots []string, references bool) *reply.Check {
	return d.l.replyBlocks(blocks, slots, references)
}

// ConstReply is SourceInfo.Reply for a source whose every case has the
// reply checks rc (nil when rc is nil).
func ConstReply(rc *reply.Check) func(*schema.Case) *reply.Check {
	if rc == nil {
		return nil
	}
	return func(*schema.Case) *reply.Check { return rc }
}

// BlockLabel is a block's first label ("" without one).
func BlockLabel(b *hcl.Block) string { return label(b) }

// StepName is the name a traversal step reads (.name or ["name"]); ok is
// false for another step (an index by number …).
func StepName(t hcl.Traverser) (name string, ok bool) { return stepName(t) }

// DidYouMean is " Did you mean "X"?" for the option of options nearest
// to name, "" when none is near: the end of a diagnostic's detail.
func DidYouMean(name string, options []string) string { return didYouMean(name, options) }

// JoinQuoted lists xs quoted, comma-separated, for a diagnostic's detail.
func JoinQuoted(xs []string) string { return joinQuoted(xs) }

// Capitalize upper-cases s's first byte (an error message becoming a
// diagnostic's sentence).
func Capitalize(s string) string { return capitalize(s) }

// GenericValue converts a cty value to the generic JSON form of
// expectations, slots and meta (int64 for whole numbers, float64 for
// others, string, bool, []any, map[string]any; nil for null).
func GenericValue(v cty.Value) any { return ctyToGeneric(v) }

// CtyString converts a primitive value to a string ("" for null or
// unknown).
func CtyString(v cty.Value) (string, error) { return ctyString(v) }

// CtyStrings converts a string, or a list, set or tuple of strings, to
// strings (nil for null or unknown; null elements are skipped).
func CtyStrings(v cty.Value) ([]string, error) { return ctyStrings(v) }

// FirstInvalidUTF8 is the offset of src's first byte that is not UTF-8
// (len(src) when all are).
func FirstInvalidUTF8(src []byte) int { return firstInvalidUTF8(src) }

// Shared returns the value the sources of one generation share under
// key, made by init on the first call (a kind's sources keep, e.g., the
// case ids they have seen, to refuse one seen by another). A generation
// runs its sources one after another, so the value needs no lock.
func (g *Gen) Shared(key any, init func() any) any {
	v, ok := g.shared[key]
	if !ok {
		v = init()
		g.shared[key] = v
	}
	return v
}

// DataChecker is a SourceKind whose sources read data files that
// generation reads row by row: Suite.CheckData and Suite.CheckCaseIDs
// ask it about the suite's sources of its kind.
type DataChecker interface {
	SourceKind
	// CheckData reads the data of the suite's sources of the kind to
	// their ends and returns the problems of every row, so one validate
	// reports them all (generation stops at the first).
	CheckData(s *Suite) hcl.Diagnostics
	// CheckCaseIDs refuses rows that share a case id, as generation
	// does, for a command that rebuilds recorded cases without
	// generating them (eval, merge).
	CheckCaseIDs(s *Suite) error
}

// dataCheckers are the suite's kinds that are DataCheckers, by block
// type.
func (s *Suite) dataCheckers() []DataChecker {
	var out []DataChecker
	for _, name := range s.SourceKindNames() {
		if k, ok := s.kinds[name].(DataChecker); ok {
			out = append(out, k)
		}
	}
	return out
}

// CheckData reads every row of the suite's data sources (datasets) and
// returns the problems of their rows (DataChecker.CheckData), so one
// validate reports the bad rows of every source at once.
func (s *Suite) CheckData() hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, k := range s.dataCheckers() {
		out = append(out, k.CheckData(s)...)
	}
	return out
}

// CheckCaseIDs refuses data rows that share a case id, as generation
// does, for a command that rebuilds recorded cases without generating
// them (eval, merge): DataChecker.CheckCaseIDs of each kind.
func (s *Suite) CheckCaseIDs() error {
	for _, k := range s.dataCheckers() {
		if err := k.CheckCaseIDs(s); err != nil {
			return err
		}
	}
	return nil
}

// joinQuoted lists xs quoted, comma-separated.
func joinQuoted(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(x)
	}
	return out
}

// ctyString converts a primitive value to a string.
func ctyString(v cty.Value) (string, error) {
	if v.IsNull() || !v.IsKnown() {
		return "", nil
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", fmt.Errorf("want a string, got %s", v.Type().FriendlyName())
	}
	return s.AsString(), nil
}

// ctyStrings converts a string or a list, set or tuple of strings.
func ctyStrings(v cty.Value) ([]string, error) {
	if v.IsNull() || !v.IsKnown() {
		return nil, nil
	}
	t := v.Type()
	if t.IsPrimitiveType() {
		s, err := ctyString(v)
		return []string{s}, err
	}
	if !t.IsListType() && !t.IsTupleType() && !t.IsSetType() {
		return nil, fmt.Errorf("want a string or a list of strings, got %s", t.FriendlyName())
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			continue
		}
		if !ev.Type().IsPrimitiveType() {
			return nil, fmt.Errorf("want a list of strings, got an element of %s", ev.Type().FriendlyName())
		}
		s, err := ctyString(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
