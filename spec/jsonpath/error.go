package jsonpath

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a JSONPath that does not compile: what is wrong, in plain
// words with what to do, and the bytes of the path as written
// (Path[From:To]) a diagnostic points at.
type Error struct {
	Path     string
	From, To int
	Reason   string
}

// Error is the reason and the character it is at.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (at character %d)", e.Reason, utf8.RuneCountInString(e.Path[:e.From])+1)
}

// explain turns ojg's parse error for p (as written) into an *Error. ojg says "not terminated at 32" with a byte offset into the
// normalised path that is often past the mistake; brackets, parentheses
// and quotes are checked first, since most bad paths leave one open.
func explain(p string, err error) *Error {
	n, offs := normalize(p, true)
	from, to, reason := unbalancedPath(n)
	if reason == "" {
		from, to, reason = ojgReason(n, err)
	}
	from, to = min(max(from, 0), len(n)), min(max(to, 0), len(n))
	e := &Error{Path: p, From: offs[from], To: offs[to], Reason: reason}
	if e.To <= e.From && e.From < len(p) {
		_, size := utf8.DecodeRuneInString(p[e.From:])
		e.To = e.From + size
	}
	return e
}

// unbalancedPath finds an unclosed quote, bracket or parenthesis in n, or
// a closing one with nothing open: its byte range and what to do.
func unbalancedPath(n string) (int, int, string) {
	type open struct {
		c  byte
		at int
	}
	var stack []open
	var q byte
	qAt := 0
	for i := 0; i < len(n); i++ {
		c := n[i]
		if q != 0 {
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			q, qAt = c, i
		case '[', '(':
			stack = append(stack, open{c, i})
		case ']', ')':
			want := byte('[')
			if c == ')' {
				want = '('
			}
			if len(stack) == 0 {
				return i, i + 1, fmt.Sprintf("unexpected '%c' with no '%c' before it: remove it or add the '%c'", c, want, want)
			}
			top := stack[len(stack)-1]
			if top.c != want {
				if top.c == '(' {
					return i, i + 1, "unclosed parenthesis: the filter's '(' is still open here; add ')' before ']'"
				}
				return i, i + 1, "unexpected ')': the '[' before it is still open; add ']' or remove the ')'"
			}
			stack = stack[:len(stack)-1]
		}
	}
	if q != 0 {
		return qAt, len(n), fmt.Sprintf("unterminated quoted key: add the closing %c", q)
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		if top.c == '(' {
			return top.at, top.at + 1, "unclosed parenthesis: add ')'"
		}
		return top.at, top.at + 1, "unclosed bracket: add ']'"
	}
	return 0, 0, ""
}

var ojgAt = regexp.MustCompile(`^(.*) at (\d+) in `)

// ojgReason reads ojg's message and offset (1-based, into n) for a path
// whose brackets and quotes balance.
func ojgReason(n string, err error) (int, int, string) {
	m := ojgAt.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, len(n), err.Error()
	}
	msg := m[1]
	pos, _ := strconv.Atoi(m[2])
	pos = min(max(pos-1, 0), len(n))
	if tok, ok := quotedToken(msg); ok {
		i := strings.LastIndex(n[:min(pos+len(tok), len(n))], tok)
		if i < 0 {
			i = strings.Index(n, tok)
		}
		if i >= 0 {
			return i, i + len(tok), notOperator(msg, tok)
		}
	}
	switch msg {
	case "expected a number":
		from, to := lastToken(n, pos)
		return from, to, fmt.Sprintf("expected a number, found '%s': an index is written [0] or [-1], a slice [1:3]", n[from:to])
	case "invalid union syntax":
		from, to := lastToken(n, pos)
		return from, to, "a bracket listing several keys or indexes separates them with ',' and has one after each ',', as [0,2] or ['a','b']"
	case "invalid slice syntax":
		from, to := lastToken(n, pos)
		return from, to, "a slice is written [start:end] or [start:end:step] with numbers, as [1:3]"
	}
	if pos >= len(n) {
		_, size := utf8.DecodeLastRuneInString(n)
		r := n[len(n)-size:]
		return len(n) - size, len(n), fmt.Sprintf("the path ends too early, after %s: add what follows (a key after '.', such as $.intent.name) or remove it", quoteChar(r))
	}
	r, size := utf8.DecodeRuneInString(n[pos:])
	return pos, pos + size, unexpected(n, pos, r)
}

// lastToken is the bracket item ojg stopped after at pos: back to the
// '[', ':' or ',' before it, without the ']' or spaces after it.
func lastToken(n string, pos int) (int, int) {
	pos = min(pos, len(n))
	from := pos
	for from > 0 && !strings.ContainsRune("[:,", rune(n[from-1])) {
		from--
	}
	to := pos
	for to > from && (n[to-1] == ']' || n[to-1] == ' ') {
		to--
	}
	if to == from {
		// Nothing between the separators: point at the ']' after them.
		to = min(from+1, len(n))
	}
	return from, to
}

// quotedToken is the 'token' in an ojg message such as "'~' is not a
// valid operation".
func quotedToken(msg string) (string, bool) {
	if !strings.HasPrefix(msg, "'") {
		return "", false
	}
	end := strings.Index(msg[1:], "'")
	if end <= 0 {
		return "", false
	}
	return msg[1 : 1+end], true
}

func notOperator(msg, tok string) string {
	if strings.Contains(msg, "operation") {
		return fmt.Sprintf("'%s' is not a filter operator: use ==, !=, <, <=, >, >=, =~ (a regular expression), in, has, &&, ||", tok)
	}
	return fmt.Sprintf("'%s' is not a value in a filter: compare with a quoted string ('%s'), a number, true, false, null or a path such as @.name", tok, tok)
}

// unexpected says what is wrong with rune r at n[pos] and what to write.
func unexpected(n string, pos int, r rune) string {
	c := quoteChar(string(r))
	switch {
	case r == ' ':
		return "unexpected space: a key holding spaces is written in quotes, as ['my key']"
	case pos == 1 && (n[0] == '$' || n[0] == '@'):
		return fmt.Sprintf("unexpected %s after '%c': a key follows a '.', as %c.%s", c, n[0], n[0], n[1:])
	case insideBrackets(n, pos):
		return fmt.Sprintf("unexpected %s inside brackets: a key there is quoted, as ['name'], an index is a number, as [0]", c)
	}
	return fmt.Sprintf("unexpected character %s: a key holding it is written in quotes, as ['key']", c)
}

// insideBrackets reports whether n[pos] is inside [...] (quotes skipped).
func insideBrackets(n string, pos int) bool {
	depth := 0
	var q byte
	for i := 0; i < pos; i++ {
		switch c := n[i]; {
		case q != 0:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		}
	}
	return depth > 0
}

func quoteChar(s string) string {
	if s == "'" {
		return `"'"`
	}
	return "'" + s + "'"
}

// Examples ends a bad-path diagnostic: what paths look like.
const Examples = "Paths look like $.data[0].content.ont, $..ont or $.entities[?(@.entity == 'city')].value."
