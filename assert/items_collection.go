package assert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/internal/nfc"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"golang.org/x/text/unicode/norm"
)

// An expectation on an items dimension's collection path ("$.entities"
// for items = "$.entities[*]") lists the items the response must hold:
//
//	expect = { "$.entities" = [{ entity = "city", value = "{城市}" }] }
//
// It is compared as a multiset, in any order, on the dimension's keys plus
// any other key the expected items give (start and end: offsets are
// compared when the expectation gives them). Items of the response whose
// type (the dimension's type key) is outside its declared scope are left
// out of the comparison and of the metrics. An empty list expects no item,
// so every item in scope is a false positive. A response without the
// collection holds no items.

// An items dimension without keys compares its items whole: an object on
// all its keys, a scalar by value — a list of words ("evidence":
// ["喜欢", "推荐"]) is a multiset of words.

// listsItems reports whether an expectation on c lists items: its path is
// an items dimension's collection and the value a list of objects (or
// none), or, for a dimension without keys (c.whole), a list of scalars.
func (c *compiled) listsItems(v any) bool {
	return c.collection && (itemList(v) || c.whole && scalarList(v))
}

// scalarList reports whether v is a list of strings, numbers and bools.
func scalarList(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, it := range list {
		switch it.(type) {
		case []any, map[string]any, nil:
			return false
		}
	}
	return true
}

// itemList reports whether an expected value lists items: a list of
// objects (or none). Any other value on a collection path is compared as
// an ordinary expectation.
func itemList(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, it := range list {
		if _, ok := it.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// collectionKeys returns the keys the items of an expected collection are
// compared on: the dimension's keys and every key an expected item names,
// sorted and unique; none for a dimension without keys (items compared
// whole). buf is reused.
func collectionKeys(buf []string, dimKeys []string, value any) []string {
	keys := append(buf[:0], dimKeys...)
	if len(dimKeys) == 0 {
		return keys
	}
	list, _ := value.([]any)
	for _, it := range list {
		if obj, ok := it.(map[string]any); ok {
			for k := range obj {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// appendExpectedItem appends the canonical text of an expected item on
// keys (the whole item without keys), then its type's (empty without a
// type key); typeAt is where the type starts.
func appendExpectedItem(b []byte, keys []string, typeKey string, it any) (out []byte, typeAt int) {
	obj, _ := it.(map[string]any)
	if len(keys) == 0 {
		b = schema.AppendCanonicalJSON(b, it)
	} else {
		b = appendItem(b, keys, func(k string) any { return obj[k] })
	}
	typeAt = len(b)
	if t, ok := obj[typeKey]; ok && typeKey != "" && !isEmpty(t) {
		b = schema.AppendCanonicalJSON(b, t)
	}
	return b, typeAt
}

// appendDocItem is appendItem of an object on the tape: each key's value
// (absent or empty: null) appended from the tape, with no value boxed.
func appendDocItem(b []byte, keys []string, doc *jsondoc.Doc, it jsondoc.Ref) []byte {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = schema.AppendCanonicalString(b, k)
		b = append(b, ':')
		if f, ok := doc.Get(it, k); ok && !doc.Empty(f) {
			b = doc.AppendCanonical(b, f)
		} else {
			b = schema.AppendCanonicalJSON(b, nil)
		}
	}
	return append(b, '}')
}

// inScope reports whether a response item's type is in the dimension's
// scope (always, without a scope or a type key).
func inScope(dim *spec.Dimension, doc *jsondoc.Doc, it jsondoc.Ref) bool {
	if dim.Scope == nil || dim.TypeKey == "" {
		return true
	}
	t, ok := doc.Get(it, dim.TypeKey)
	if !ok || doc.Kind(t) != jsondoc.String {
		return false
	}
	for _, s := range dim.Scope {
		if doc.EqualString(t, s) {
			return true
		}
	}
	return slices.Contains(dim.Scope, nfc.String(doc.Str(t)))
}

// eachItem calls fn for every object the collection holds in the response
// (array elements, or object member values as [*] selects them); for a
// dimension without keys, every value that is not empty.
func eachItem(doc *jsondoc.Doc, dim *spec.Dimension, fn func(it jsondoc.Ref)) {
	r, ok := lookup(doc, dim.Collection.Expr)
	if !ok {
		return
	}
	visit := func(it jsondoc.Ref) {
		if doc.Kind(it) == jsondoc.Object || len(dim.Keys) == 0 && !doc.Empty(it) {
			fn(it)
		}
	}
	doc.Elems(r, func(_ int, it jsondoc.Ref) bool { visit(it); return true })
	doc.Each(r, func(_, it jsondoc.Ref) bool { visit(it); return true })
}

// appendResponseItem appends the canonical text of a response item on
// keys, then its type's; typeAt is where the type starts.
func appendResponseItem(b []byte, keys []string, typeKey string, doc *jsondoc.Doc, it jsondoc.Ref) (out []byte, typeAt int) {
	if len(keys) == 0 {
		b = doc.AppendCanonical(b, it)
	} else {
		b = appendDocItem(b, keys, doc, it)
	}
	typeAt = len(b)
	if typeKey != "" {
		if t, ok := doc.Get(it, typeKey); ok && !doc.Empty(t) {
			b = doc.AppendCanonical(b, t)
		}
	}
	return b, typeAt
}

// collectionExpectation checks an expectation on a collection path (see
// above); f is its failure, filled and added to r when it is not met.
func (e *Evaluator) collectionExpectation(r *schema.Result, rs *response, c *compiled, want any, f schema.Failure) bool {
	dim := e.suite.Schema.Dimensions[c.dim]
	list := want.([]any) // c.listsItems(want) holds
	keys := collectionKeys(nil, e.dims.itemKeys[c.dim], want)
	var exp, rec []string
	for _, it := range list {
		b, _ := appendExpectedItem(nil, keys, "", it)
		exp = append(exp, norm.NFC.String(string(b)))
	}
	var actual []any
	eachItem(rs.doc, dim, func(it jsondoc.Ref) {
		if !inScope(dim, rs.doc, it) {
			return
		}
		b, _ := appendResponseItem(nil, keys, "", rs.doc, it)
		rec = append(rec, norm.NFC.String(string(b)))
		actual = append(actual, rs.doc.Value(it))
	})
	missing, extra := multisetDiff(exp, rec)
	if len(missing) == 0 && len(extra) == 0 {
		return true
	}
	if actual == nil {
		actual = []any{}
	}
	f.Actual = actual
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "unexpected "+strings.Join(extra, ", "))
	}
	on := "on " + strings.Join(keys, ", ")
	if len(keys) == 0 {
		on = "whole"
	}
	f.Message = fmt.Sprintf("items compared in any order %s: %s", on, strings.Join(parts, "; "))
	r.Failures = append(r.Failures, f)
	return false
}

// multisetDiff returns the elements of a not matched in b and those of b
// not matched in a (each element matches once).
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && x == y {
				used[j], found = true, true
				break
			}
		}
		if !found {
			onlyA = append(onlyA, x)
		}
	}
	for j, y := range b {
		if !used[j] {
			onlyB = append(onlyB, y)
		}
	}
	return onlyA, onlyB
}

// expectCollection records the expected items of a collection expectation
// of dimension di for the analysis (rendered once every expectation is
// known, by collectionItems).
func (a *analysis) expectCollection(di int, value any) {
	a.wanted[di] = true
	a.colls = append(a.colls, collExpect{dim: di, value: value})
}

type collExpect struct {
	dim   int
	value any
}

// collectionItems adds the expected items of collection expectations as
// units, and the response's items of their dimensions (in scope) as
// recognised units, both on the same keys.
func (w *walker) collectionItems(rs *response) {
	a, idx := &w.a, w.idx
	for _, ce := range a.colls {
		dim := idx.sc.Dimensions[ce.dim]
		a.keys = collectionKeys(a.keys, idx.itemKeys[ce.dim], ce.value)
		list, _ := ce.value.([]any)
		for _, it := range list {
			start := len(a.arena)
			var typeAt int
			a.arena, typeAt = appendExpectedItem(a.arena, a.keys, dim.TypeKey, it)
			a.addTyped(ce.dim, false, start, typeAt)
		}
		w.collectionResponse(ce.dim, dim, rs)
		a.done[ce.dim] = true
	}
}

// collectionResponse adds the response's items of dimension di in scope,
// rendered on a.keys, and counts those out of scope.
func (w *walker) collectionResponse(di int, dim *spec.Dimension, rs *response) {
	a := &w.a
	eachItem(rs.doc, dim, func(it jsondoc.Ref) {
		if !inScope(dim, rs.doc, it) {
			a.outOfScope[di]++
			return
		}
		start := len(a.arena)
		var typeAt int
		a.arena, typeAt = appendResponseItem(a.arena, a.keys, dim.TypeKey, rs.doc, it)
		a.addTyped(di, true, start, typeAt)
	})
}
