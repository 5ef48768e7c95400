package assert

import (
	"slices"

	"github.com/nlutest/nlutest/jsondoc"
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
// of only empty values — are skipped, as the IAO corpus-factory write-up's annotation skips them.
// skip, when set, drops a path and everything below it.
func Flatten(data any, skip func(jp.Expr) bool) []Leaf {
	var out []Leaf
	walkLeaves(data, skip, func(p jp.Expr, v any) {
		out = append(out, Leaf{Path: append(jp.Expr(nil), p...), Value: v})
	})
	return out
}

func walkLeaves(data any, skip func(jp.Expr) bool, fn func(path jp.Expr, v any)) {
	stack := make(jp.Expr, 1, 16)
	stack[0] = jp.Root('$')
	var walk func(v any)
	walk = func(v any) {
		if skip != nil && len(stack) > 1 && skip(stack) {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				stack = append(stack, jp.Child(k))
				walk(t[k])
				stack = stack[:len(stack)-1]
			}
		case []any:
			if isEmpty(t) {
				return
			}
			if !hasContainer(t) {
				fn(stack, t)
				return
			}
			for i, e := range t {
				stack = append(stack, jp.Nth(i))
				walk(e)
				stack = stack[:len(stack)-1]
			}
		default:
			if isEmpty(v) {
				return
			}
			fn(stack, v)
		}
	}
	walk(data)
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

// isEmpty is jsondoc.Empty, nlutest's one definition of an empty value.
var isEmpty = jsondoc.Empty
