package jsonpath

import "github.com/ohler55/ojg/jp"

// Match reports whether pattern (a JSONPath that may use *, .., unions,
// slices and filters) matches the whole of path, a normalised path of
// children and indexes such as $.data[0].content.ont. Filters match any
// element, since there is no document to test them against.
func Match(pattern, path jp.Expr) bool {
	return matchFrom(strip(pattern), strip(path))
}

// MatchPrefix returns the length of the shortest prefix of path that
// pattern matches whole, and false when none does.
func MatchPrefix(pattern, path jp.Expr) (int, bool) {
	pat, p := strip(pattern), strip(path)
	off := len(path) - len(p)
	for n := 0; n <= len(p); n++ {
		if matchFrom(pat, p[:n]) {
			return n + off, true
		}
	}
	return 0, false
}

func strip(x jp.Expr) jp.Expr {
	if len(x) > 0 {
		switch x[0].(type) {
		case jp.Root, jp.At:
			return x[1:]
		}
	}
	return x
}

func matchFrom(pat, path jp.Expr) bool {
	for i, f := range pat {
		if _, ok := f.(jp.Bracket); ok {
			continue
		}
		if d, ok := f.(jp.Descent); ok {
			_ = d
			rest := pat[i+1:]
			for k := 0; k <= len(path); k++ {
				if matchFrom(rest, path[k:]) {
					return true
				}
			}
			return false
		}
		if len(path) == 0 || !stepMatches(f, path[0]) {
			return false
		}
		path = path[1:]
	}
	return len(path) == 0
}

func stepMatches(f jp.Frag, step jp.Frag) bool {
	switch tf := f.(type) {
	case jp.Child:
		return tf == step
	case jp.Nth:
		n, ok := step.(jp.Nth)
		return ok && (tf == n || tf < 0)
	case jp.Wildcard:
		return true
	case jp.Union:
		for _, u := range tf {
			switch tu := u.(type) {
			case string:
				if jp.Child(tu) == step {
					return true
				}
			case int64:
				if jp.Nth(tu) == step {
					return true
				}
			}
		}
		return false
	case jp.Slice:
		_, ok := step.(jp.Nth)
		return ok
	case *jp.Filter:
		_, ok := step.(jp.Nth)
		return ok
	}
	return false
}
