// Package attr owns the reading of a block's plain attributes — a
// string, a boolean, a list of strings — the way every block of the suite
// language reads them: through the loader's static evaluation (which
// checks names, sensitive and unset variables and converts to the type,
// reporting its own diagnostics), with a missing or null attribute taking
// the default, and a null inside a list an error at the attribute. spec's
// loader and the leaf rooms that decode blocks without importing spec
// (spec/reply, spec/tools) share it, so the three read an attribute alike.
// It is a leaf: hcl and cty only.
package attr

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Reader reads attributes through Static and reports through Errorf.
type Reader struct {
	// Static evaluates a's expression in the static context, converted
	// to ty (what names the attribute in a message); false when it could
	// not, having reported why.
	Static func(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool)
	// Errorf reports an error at rng.
	Errorf func(rng *hcl.Range, summary, detail string, args ...any)
}

// value is attrs[name] as ty, or false when it is missing, null or
// could not be read.
func (r Reader) value(attrs hcl.Attributes, name string, ty cty.Type) (cty.Value, *hcl.Attribute, bool) {
	a, ok := attrs[name]
	if !ok {
		return cty.NilVal, nil, false
	}
	v, ok := r.Static(a, ty, fmt.Sprintf("%q attribute", name))
	if !ok || v.IsNull() {
		return cty.NilVal, a, false
	}
	return v, a, true
}

// String is the string attribute name, or def.
func (r Reader) String(attrs hcl.Attributes, name, def string) string {
	if v, _, ok := r.value(attrs, name, cty.String); ok {
		return v.AsString()
	}
	return def
}

// Bool is the boolean attribute name, or def.
func (r Reader) Bool(attrs hcl.Attributes, name string, def bool) bool {
	if v, _, ok := r.value(attrs, name, cty.Bool); ok {
		return v.True()
	}
	return def
}

// StringList is the list-of-strings attribute name, or nil; a null
// element is an error at the attribute and is left out.
func (r Reader) StringList(attrs hcl.Attributes, name string) []string {
	v, a, ok := r.value(attrs, name, cty.List(cty.String))
	if !ok {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			r.Errorf(a.Expr.Range().Ptr(), "Null in list", "The %q list must not contain null.", name)
			continue
		}
		out = append(out, e.AsString())
	}
	return out
}
