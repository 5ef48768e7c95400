// Package jsonpath owns the JSONPath keys of a suite: it normalises and
// compiles them (with github.com/ohler55/ojg), explains a path that does
// not compile as an Error that says in words what is wrong and where,
// matches a concrete path against a pattern (Match, MatchPrefix: the
// generation and evaluation hot path), and gives JSON objects the key
// order JSONPath visits their members in (Ordered).
//
// It does not read suites, evaluate expectations or place diagnostics in
// a source file: spec's loader turns an Error into an hcl diagnostic on
// the characters of the string literal it came from.
package jsonpath

import (
	"strings"

	"github.com/ohler55/ojg/jp"
)

// Normalize rewrites the IAO corpus-factory write-up's `$.data.[0].content` spelling into
// standard JSONPath by dropping a '.' that directly precedes '[' outside
// quotes (`..[` descent is kept), and adds a leading `$` when missing.
func Normalize(p string) string {
	n, _ := normalize(p, false)
	return n
}

// normalize is Normalize; with offsets it also returns, for each
// byte of the result and for its end, the offset in p it came from (an
// added `$` or `$.` maps to where the path starts).
func normalize(p string, offsets bool) (string, []int) {
	lead := len(p) - len(strings.TrimLeft(p, " \t\n\v\f\r"))
	p = strings.TrimSpace(p)
	var b strings.Builder
	var offs []int
	b.Grow(len(p) + 2)
	emit := func(c byte, at int) {
		b.WriteByte(c)
		if offsets {
			offs = append(offs, lead+at)
		}
	}
	if !strings.HasPrefix(p, "$") && !strings.HasPrefix(p, "@") {
		emit('$', 0)
		if !strings.HasPrefix(p, "[") && !strings.HasPrefix(p, ".") {
			emit('.', 0)
		}
	}
	var q byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case q != 0:
			if c == '\\' && i+1 < len(p) {
				emit(c, i)
				i++
				c = p[i]
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '.' && i+1 < len(p) && p[i+1] == '[' && (i == 0 || p[i-1] != '.'):
			continue
		}
		emit(c, i)
	}
	if offsets {
		offs = append(offs, lead+len(p))
	}
	return b.String(), offs
}

// Compile normalises and compiles a JSONPath once, at load time: the
// compiled path and the normalised text. A path that does not compile
// gives an *Error: what is wrong in plain words, and where in p.
func Compile(p string) (jp.Expr, string, error) {
	n := Normalize(p)
	x, err := jp.ParseString(n)
	if err != nil {
		return nil, n, explain(p, err)
	}
	return x, n, nil
}

// StatePrefix starts an expectation key that addresses the turn's
// dialogue state (schema.Result.State) instead of its response:
// "state:$.slots.city".
const StatePrefix = "state:"

// CompileExpect is Compile for an expectation key, which may start with
// StatePrefix: state reports it, x is the JSONPath after the prefix, and
// norm keeps the prefix ("state:$.slots.city"). An *Error's offsets count
// from the start of p.
func CompileExpect(p string) (x jp.Expr, norm string, state bool, err error) {
	t := strings.TrimLeft(p, " \t\n\v\f\r")
	if !strings.HasPrefix(t, StatePrefix) {
		x, norm, err = Compile(p)
		return x, norm, false, err
	}
	skip := len(p) - len(t) + len(StatePrefix)
	x, norm, err = Compile(p[skip:])
	if pe, ok := err.(*Error); ok {
		pe.Path, pe.From, pe.To = p, pe.From+skip, pe.To+skip
	}
	return x, StatePrefix + norm, true, err
}
