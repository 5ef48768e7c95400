package assert

import (
	"encoding/json"
	"sort"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/ohler55/ojg/jp"
)

// This file evaluates equality filters — [?(@.name == literal)] and
// [?(@['name'] == literal)], the form Rasa suites use to pick an entity
// ($.entities[?(@.entity == '城市')].value) — on the parsed tape, so a
// response is not built as Go values for them. The results are those of
// ojg on the built response (matches): the same values in the same order,
// found when the same. TestFilterTapeMatchesTree and FuzzFilterTape hold
// the two side by side.

// eqFilter is a filter step [?(@.name == lit)] with lit a literal: a
// string, int64, float64, bool or nil (null), as ojg's parser types it.
type eqFilter struct {
	name string
	lit  any
}

// tapeFilters returns, for a path of the steps locate follows (names,
// indices, wildcards) and equality filters, the filter of each step (nil
// for the other steps); ok is false for any other path, and for a path
// without a filter. A filter applied to the root itself stays on the tree:
// ojg applies it to a scalar root in its own way (a null one panics).
func tapeFilters(x jp.Expr) (eqs []*eqFilter, ok bool) {
	if len(x) < 2 {
		return nil, false
	}
	if _, ok := x[0].(jp.Root); !ok {
		return nil, false
	}
	onRoot := true // every step so far leaves the root where it is
	for i, f := range x[1:] {
		switch t := f.(type) {
		case jp.Bracket:
		case jp.Child, jp.Nth, jp.Wildcard:
			onRoot = false
		case *jp.Filter:
			eq, ok := eqFilterOf(t)
			if !ok || onRoot {
				return nil, false
			}
			if eqs == nil {
				eqs = make([]*eqFilter, len(x))
			}
			eqs[i+1] = eq
			onRoot = false
		default:
			return nil, false
		}
	}
	return eqs, eqs != nil
}

// eqFilterOf reads a filter of the form [?(@.name == lit)] (ojg parses
// @['name'] the same way), ok false for any other filter.
func eqFilterOf(f *jp.Filter) (eq *eqFilter, ok bool) {
	defer func() {
		// Inspect asserts that the script starts with an operation.
		if recover() != nil {
			eq, ok = nil, false
		}
	}()
	form := f.Inspect()
	if form == nil || form.Op != "==" {
		return nil, false
	}
	left, isExpr := form.Left.(jp.Expr)
	if !isExpr || len(left) != 2 {
		return nil, false
	}
	if _, isAt := left[0].(jp.At); !isAt {
		return nil, false
	}
	name, isChild := left[1].(jp.Child)
	if !isChild {
		return nil, false
	}
	switch form.Right.(type) {
	case string, int64, float64, bool, nil:
		return &eqFilter{name: string(name), lit: form.Right}, true
	}
	return nil, false
}

// match reports whether the filter keeps item: item is an object whose
// member name equals the literal as ojg compares them.
func (f *eqFilter) match(d *jsondoc.Doc, item jsondoc.Ref) bool {
	m, ok := d.Get(item, f.name) // false when item is no object
	if !ok {
		return false
	}
	switch d.Kind(m) {
	case jsondoc.String:
		s, ok := f.lit.(string)
		return ok && d.EqualString(m, s) // exactly, after unescaping
	case jsondoc.Null:
		return f.lit == nil
	case jsondoc.True, jsondoc.False:
		b, ok := f.lit.(bool)
		return ok && b == (d.Kind(m) == jsondoc.True)
	case jsondoc.Number:
		return ojgEqual(d.Value(m), f.lit)
	}
	return false // an object or an array equals no literal
}

// ojgEqual is the == of ojg's filter scripts (jp's evalStack) between a
// number as the built response holds it (int64, float64 or json.Number)
// and a literal: ojg normalises a json.Number, a named string type, to
// its text; int64 and float64 compare as numbers (1 == 1.0).
func ojgEqual(v, lit any) bool {
	if n, ok := v.(json.Number); ok {
		v = string(n)
	}
	if v == lit {
		return true
	}
	switch l := v.(type) {
	case int64:
		r, ok := lit.(float64)
		return ok && float64(l) == r
	case float64:
		r, ok := lit.(int64)
		return ok && l == float64(r)
	}
	return false
}

// tapeWalk walks a path on the tape for locate.
type tapeWalk struct {
	d   *jsondoc.Doc
	x   jp.Expr
	eqs []*eqFilter // the filter of each step of x, or nil
	out []jsondoc.Ref
}

// walk follows x[i:] from r, adding what it selects to w.out.
func (w *tapeWalk) walk(r jsondoc.Ref, i int) {
	d := w.d
	for ; i < len(w.x); i++ {
		var ok bool
		switch t := w.x[i].(type) {
		case jp.Child:
			if r, ok = d.Get(r, string(t)); !ok {
				return
			}
		case jp.Nth:
			if r, ok = d.Index(r, int(t)); !ok {
				return
			}
		case jp.Wildcard:
			w.each(r, nil, i)
			return
		case *jp.Filter:
			if w.eqs != nil && w.eqs[i] != nil {
				w.each(r, w.eqs[i], i)
			}
			return
		}
	}
	w.out = append(w.out, r)
}

// each follows x[i+1:] from the elements or members of r that step i
// selects — all of them (a wildcard, eq nil) or those eq keeps: arrays by
// index, objects by key.
func (w *tapeWalk) each(r jsondoc.Ref, eq *eqFilter, i int) {
	d := w.d
	switch d.Kind(r) {
	case jsondoc.Array:
		d.Elems(r, func(_ int, v jsondoc.Ref) bool {
			if eq == nil || eq.match(d, v) {
				w.walk(v, i+1)
			}
			return true
		})
	case jsondoc.Object:
		type member struct {
			key string
			val jsondoc.Ref
		}
		var ms []member
		d.Each(r, func(k, v jsondoc.Ref) bool {
			if eq == nil || eq.match(d, v) {
				ms = append(ms, member{d.Str(k), v})
			}
			return true
		})
		sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
		for _, m := range ms {
			w.walk(m.val, i+1)
		}
	}
}

// refsOf returns what a path of mode modeTape or modeFilter selects on
// the tape, in the order matches gives on the built response. The slice
// is rs's, valid until the next call.
func (rs *response) refsOf(c *compiled) []jsondoc.Ref {
	if rs.found == nil {
		rs.found = rs.foundBuf[:0]
	}
	w := tapeWalk{d: rs.doc, x: c.x, eqs: c.eqs, out: rs.found[:0]}
	w.walk(rs.doc.Root(), 0)
	rs.found = w.out
	return w.out
}

// equalRefs reports whether found values (refs, at least one) equal
// expected as Equal(expected, the list of their values) does, without
// building the values. No refs is not found, which equals nothing.
func equalRefs(expected any, d *jsondoc.Doc, refs []jsondoc.Ref) bool {
	e, ok := expected.([]any)
	if !ok || len(refs) == 0 || len(e) != len(refs) {
		return false
	}
	for i, r := range refs {
		if !equalDoc(e[i], d, r) {
			return false
		}
	}
	return true
}
