package assert

import (
	"maps"
	"slices"

	"github.com/ohler55/ojg/jp"
)

// Leaf is one (path, value) pair of a flattened response.
type Leaf struct {
	Path  jp.Expr
	Value any
}

// Flatten turns a decoded JSON value into leaves (SPEC §6): objects recurse
// by key (in key order), arrays of objects by index, arrays of scalars and
// scalars are leaves as a whole. Empty values — null, "", [], {} and arrays
// of only empty values — are skipped, as seed 000's annotation skips them.
// skip, when set, drops a path and everything below it.
func Flatten(data any, skip func(jp.Expr) bool) []Leaf {
	var out []Leaf
	var walk func(p jp.Expr, v any)
	walk = func(p jp.Expr, v any) {
		if skip != nil && len(p) > 1 && skip(p) {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(append(p[:len(p):len(p)], jp.Child(k)), t[k])
			}
		case []any:
			if isEmpty(t) {
				return
			}
			if !hasContainer(t) {
				out = append(out, Leaf{Path: p, Value: t})
				return
			}
			for i, e := range t {
				walk(append(p[:len(p):len(p)], jp.Nth(i)), e)
			}
		default:
			if isEmpty(v) {
				return
			}
			out = append(out, Leaf{Path: p, Value: v})
		}
	}
	walk(jp.R(), data)
	return out
}

func hasContainer(a []any) bool {
	for _, e := range a {
		switch e.(type) {
		case map[string]any, []any:
			return true
		}
	}
	return false
}

// isEmpty reports whether v carries no information: null, "", [], {} or a
// list of such values.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		for _, e := range t {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range t {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	}
	return false
}
