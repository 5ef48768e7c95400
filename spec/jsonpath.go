package spec

import (
	"strings"

	"github.com/ohler55/ojg/jp"
)

// NormalizePath rewrites the IAO corpus-factory write-up's `$.data.[0].content` spelling into
// standard JSONPath by dropping a '.' that directly precedes '[' outside
// quotes (`..[` descent is kept), and adds a leading `$` when missing.
func NormalizePath(p string) string {
	p = strings.TrimSpace(p)
	if !strings.HasPrefix(p, "$") && !strings.HasPrefix(p, "@") {
		if strings.HasPrefix(p, "[") || strings.HasPrefix(p, ".") {
			p = "$" + p
		} else {
			p = "$." + p
		}
	}
	var b strings.Builder
	b.Grow(len(p))
	var q byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case q != 0:
			if c == '\\' && i+1 < len(p) {
				b.WriteByte(c)
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
		b.WriteByte(c)
	}
	return b.String()
}

// CompilePath normalises and compiles a JSONPath once, at load time.
func CompilePath(p string) (jp.Expr, string, error) {
	n := NormalizePath(p)
	x, err := jp.ParseString(n)
	if err != nil {
		return nil, n, err
	}
	return x, n, nil
}
