package assert

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"

	"github.com/nlutest/nlutest/internal/nfc"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/ohler55/ojg/jp"
)

// Equal compares two generic JSON values the way expectations do: numbers
// as numbers (200 = 200.0), strings exactly (after Unicode NFC, since HCL
// normalises suite strings), arrays element-wise in order, objects by keys.
func Equal(expected, actual any) bool {
	switch e := expected.(type) {
	case nil:
		return actual == nil
	case bool:
		a, ok := actual.(bool)
		return ok && a == e
	case string:
		a, ok := actual.(string)
		return ok && (a == e || nfc.String(a) == nfc.String(e))
	case []any:
		a, ok := actual.([]any)
		return ok && equalLists(e, a)
	case map[string]any:
		a, ok := actual.(map[string]any)
		return ok && equalObjects(e, a)
	}
	return equalNumbers(expected, actual)
}

func equalLists(e, a []any) bool {
	if len(a) != len(e) {
		return false
	}
	for i := range e {
		if !Equal(e[i], a[i]) {
			return false
		}
	}
	return true
}

func equalObjects(e, a map[string]any) bool {
	if len(a) != len(e) {
		return false
	}
	for k, ev := range e {
		av, ok := a[k]
		if !ok || !Equal(ev, av) {
			return false
		}
	}
	return true
}

// equalNumbers compares numbers: of the same type directly, of mixed
// types exactly, as big.Float.
func equalNumbers(expected, actual any) bool {
	switch e := expected.(type) {
	case int64:
		if a, ok := actual.(int64); ok {
			return a == e
		}
	case float64:
		if a, ok := actual.(float64); ok {
			return a == e
		}
	}
	ef, eok := number(expected)
	af, aok := number(actual)
	if eok && aok {
		return ef.Cmp(af) == 0
	}
	// A number beyond big.Float's exponent range still equals itself.
	en, e1 := expected.(json.Number)
	an, a1 := actual.(json.Number)
	return e1 && a1 && en == an
}

func number(v any) (*big.Float, bool) {
	switch n := v.(type) {
	case int64:
		return new(big.Float).SetInt64(n), true
	case int:
		return new(big.Float).SetInt64(int64(n)), true
	case float64:
		return big.NewFloat(n), true
	case json.Number:
		f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
		return f, err == nil
	}
	return nil, false
}

// multiNode reports whether a path can select several nodes (wildcards,
// descent, filters, unions, slices); such paths compare the list of matches.
func multiNode(x jp.Expr) bool {
	for _, f := range x {
		switch f.(type) {
		case jp.Wildcard, jp.Descent, *jp.Filter, jp.Union, jp.Slice:
			return true
		}
	}
	return false
}

// matches returns the nodes x selects in data. Several matches come in
// document order for arrays and in key order for object members (JSON
// objects have no order of their own), so results never depend on map order.
func matches(x jp.Expr, data any, multi bool) ([]any, bool) {
	if !multi {
		v, ok := firstFound(x, data)
		if !ok {
			return nil, false
		}
		return []any{v}, true
	}
	locs := x.Locate(data, 0)
	if len(locs) == 0 {
		return nil, false
	}
	sort.SliceStable(locs, func(i, j int) bool { return locLess(locs[i], locs[j]) })
	out := make([]any, 0, len(locs))
	for _, l := range locs {
		v, _ := firstFound(l, data)
		out = append(out, v)
	}
	return out, true
}

func locLess(a, b jp.Expr) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		ka, kb := fragKey(a[i]), fragKey(b[i])
		if ka.num != kb.num {
			return ka.num
		}
		if ka.num && ka.n != kb.n {
			return ka.n < kb.n
		}
		if !ka.num && ka.s != kb.s {
			return ka.s < kb.s
		}
	}
	return len(a) < len(b)
}

type fkey struct {
	num bool
	n   int
	s   string
}

func fragKey(f jp.Frag) fkey {
	switch t := f.(type) {
	case jp.Nth:
		return fkey{num: true, n: int(t)}
	case jp.Child:
		return fkey{s: string(t)}
	case jp.Bracket:
		return fkey{s: ""}
	}
	return fkey{s: strconv.Quote(jp.Expr{f}.String())}
}

// firstFound is x.FirstFound(data) without allocating for the common
// simple paths ($ followed by .name and [n] steps).
func firstFound(x jp.Expr, data any) (any, bool) {
	v := data
	for i, f := range x {
		switch t := f.(type) {
		case jp.Root:
			if i > 0 {
				return x.FirstFound(data)
			}
		case jp.Bracket: // marks bracket notation; not a step
		case jp.Child:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[string(t)]; !ok {
				return nil, false
			}
		case jp.Nth:
			a, ok := v.([]any)
			if !ok {
				return nil, false
			}
			n := int(t)
			if n < 0 {
				n += len(a)
			}
			if n < 0 || n >= len(a) {
				return nil, false
			}
			v = a[n]
		default:
			return x.FirstFound(data)
		}
	}
	return v, true
}

// lookup is firstFound on a parsed tape, for simple paths ($ followed by
// .name and [n] steps; see modeOf).
func lookup(d *jsondoc.Doc, x jp.Expr) (jsondoc.Ref, bool) {
	r := d.Root()
	for _, f := range x {
		var ok bool
		switch t := f.(type) {
		case jp.Child:
			if r, ok = d.Get(r, string(t)); !ok {
				return 0, false
			}
		case jp.Nth:
			if r, ok = d.Index(r, int(t)); !ok {
				return 0, false
			}
		}
	}
	return r, true
}

// locate returns the values a path of names, indices and wildcards selects
// on a parsed tape, in the order matches gives: arrays by index, objects by
// key.
func locate(d *jsondoc.Doc, x jp.Expr, out []jsondoc.Ref) []jsondoc.Ref {
	w := tapeWalk{d: d, x: x, out: out}
	w.walk(d.Root(), 0)
	return w.out
}

// equalDoc is Equal(expected, d.Value(r)) without building the value for
// strings, literals and containers of them.
func equalDoc(expected any, d *jsondoc.Doc, r jsondoc.Ref) bool {
	switch e := expected.(type) {
	case nil:
		return d.Kind(r) == jsondoc.Null
	case bool:
		k := d.Kind(r)
		return e && k == jsondoc.True || !e && k == jsondoc.False
	case string:
		if d.Kind(r) != jsondoc.String {
			return false
		}
		if d.EqualString(r, e) {
			return true
		}
		a := d.Str(r)
		return nfc.String(a) == nfc.String(e)
	case []any:
		if d.Kind(r) != jsondoc.Array || d.Len(r) != len(e) {
			return false
		}
		ok := true
		d.Elems(r, func(i int, v jsondoc.Ref) bool {
			ok = equalDoc(e[i], d, v)
			return ok
		})
		return ok
	case map[string]any:
		if d.Kind(r) != jsondoc.Object {
			return false
		}
		ok, n := true, 0
		d.Each(r, func(k, v jsondoc.Ref) bool {
			n++
			ev, has := e[d.Str(k)]
			ok = has && equalDoc(ev, d, v)
			return ok
		})
		return ok && n == len(e)
	}
	return Equal(expected, d.Value(r))
}
