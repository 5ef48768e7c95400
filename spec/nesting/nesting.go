package nesting

import "bytes"

// Precedence groups of the level counters: a conditional and HCL's six
// binary operator groups, loosest first.
const (
	precCond = iota // ? :
	precOr          // ||
	precAnd         // &&
	precEq          // == !=
	precCmp         // < <= > >=
	precAdd         // + -
	precMul         // * / %
	nPrec
)

// nestFrame is one open construct of the scan: its kind — 0 for the file,
// '(', '[', '{' in code, 'I' for an interpolation or a directive's
// expression, '"' for a quoted string, 'H' for a heredoc — and the levels
// counted inside it.
type nestFrame struct {
	kind byte
	// ops counts operators per precedence group in the expression so
	// far; term counts unary, index and splat levels of the current
	// operand; dirs counts open if/for directives of a template.
	ops  [nPrec]int
	term int
	dirs int
	// sum is ops + term + dirs.
	sum int
}

// nestScan is the state of TooDeep.
type nestScan struct {
	src     []byte
	stack   []nestFrame
	markers [][]byte
	// levels is the sum of every frame's sum: depth is levels plus the
	// open constructs.
	levels int
	// operand: the last token of code ended a value (a name, a number, a
	// string, a closing bracket), so `-` or `*` after it is binary and
	// `[` an index. closed: that token was `)` or `]`.
	operand, closed bool
}

// TooDeep returns the byte offset in src of the first token that opens a
// level deeper than max (the place to point a diagnostic at), or -1 when
// src nests no deeper than max. src is HCL native syntax; it need not be
// valid (unmatched closers, unterminated strings and heredocs are the
// parser's to report). Comments are skipped.
func TooDeep(src []byte, max int) int {
	sc := &nestScan{src: src, stack: []nestFrame{{}}}
	for i := 0; i < len(src); i++ {
		var next int
		switch sc.top().kind {
		case '"':
			next = sc.inString(i)
		case 'H':
			next = sc.inHeredoc(i)
		default:
			next = sc.inCode(i)
		}
		if sc.depth() > max {
			return i
		}
		i = next
	}
	return -1
}

func (sc *nestScan) depth() int      { return len(sc.stack) - 1 + sc.levels }
func (sc *nestScan) top() *nestFrame { return &sc.stack[len(sc.stack)-1] }
func (sc *nestScan) push(kind byte) {
	sc.stack = append(sc.stack, nestFrame{kind: kind})
	sc.operand = false
}
func (sc *nestScan) bump(n *int, d int) { *n += d; sc.top().sum += d; sc.levels += d }

func (sc *nestScan) pop() {
	if len(sc.stack) == 1 {
		return // an unmatched closer: the parser reports it
	}
	f := sc.top()
	if f.kind == 'H' {
		sc.markers = sc.markers[:len(sc.markers)-1]
	}
	sc.levels -= f.sum
	sc.stack = sc.stack[:len(sc.stack)-1]
}

// endChains ends the operator chains tighter than prec and the current
// operand's levels, when an operator of precedence prec (or an expression
// boundary, prec -1) comes.
func (sc *nestScan) endChains(prec int) {
	f := sc.top()
	for p := prec + 1; p < nPrec; p++ {
		sc.bump(&f.ops[p], -f.ops[p])
	}
	sc.bump(&f.term, -f.term)
}

// operator counts a binary operator or a conditional's `?`.
func (sc *nestScan) operator(prec int) {
	sc.endChains(prec)
	sc.bump(&sc.top().ops[prec], 1)
	sc.operand, sc.closed = false, false
}

// interp pushes an interpolation or directive at i when `${` or `%{` (not
// `$${`, `%%{`) starts there, and returns the offset of its brace. An if
// or for directive opens a level of the template, endif and endfor close
// one.
func (sc *nestScan) interp(i int) int {
	src := sc.src
	if (src[i] == '$' || src[i] == '%') && i+1 < len(src) && src[i+1] == '{' {
		if src[i] == '%' {
			sc.directive(i + 2)
		}
		sc.push('I')
		return i + 1
	}
	if (src[i] == '$' || src[i] == '%') && i+2 < len(src) && src[i+1] == src[i] && src[i+2] == '{' {
		return i + 2 // escaped: literal
	}
	return i
}

// directive counts the template level of the directive whose keyword
// starts at about i (after an optional ~ and spaces).
func (sc *nestScan) directive(i int) {
	src := sc.src
	for i < len(src) && (src[i] == '~' || src[i] == ' ' || src[i] == '\t') {
		i++
	}
	end := i
	for end < len(src) && src[end] >= 'a' && src[end] <= 'z' {
		end++
	}
	f := sc.top()
	switch string(src[i:end]) {
	case "if", "for":
		sc.bump(&f.dirs, 1)
	case "endif", "endfor":
		if f.dirs > 0 {
			sc.bump(&f.dirs, -1)
		}
	}
}

func (sc *nestScan) inString(i int) int {
	switch sc.src[i] {
	case '\\':
		return i + 1
	case '"':
		sc.pop()
		sc.operand, sc.closed = true, false
		return i
	case '\n':
		sc.pop() // unterminated: the parser reports it
		return i
	}
	return sc.interp(i)
}

func (sc *nestScan) inHeredoc(i int) int {
	src := sc.src
	if i == 0 || src[i-1] == '\n' {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src) - i
		}
		if bytes.Equal(bytes.TrimSpace(src[i:i+end]), sc.markers[len(sc.markers)-1]) {
			sc.pop()
			sc.operand, sc.closed = true, false
			return i + end - 1
		}
	}
	return sc.interp(i)
}

// inCode reads the token of code starting at i and returns the offset of
// its last byte.
func (sc *nestScan) inCode(i int) int {
	src := sc.src
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		return i
	case isNameStart(c):
		return sc.name(i)
	case c >= '0' && c <= '9':
		return sc.number(i)
	}
	if j, ok := sc.comment(i); ok {
		return j
	}
	if j, ok := sc.punct(i); ok {
		return j
	}
	return sc.op(i)
}

// punct handles what opens or closes a construct, and the ends of
// expressions; ok is false for anything else.
func (sc *nestScan) punct(i int) (int, bool) {
	src := sc.src
	switch c := src[i]; {
	case c == '"':
		sc.push('"')
	case c == '<' && i+1 < len(src) && src[i+1] == '<':
		return sc.heredoc(i), true
	case c == '[' && sc.operand:
		sc.bump(&sc.top().term, 1) // an index or a splat nests the value
		sc.push('[')
	case c == '(' || c == '[' || c == '{':
		sc.push(c)
	case c == ')' || c == ']' || c == '}':
		sc.pop()
		sc.operand, sc.closed = true, c != '}'
	case c == ',':
		sc.endChains(-1)
		sc.resetConds()
	case c == '=' && i+1 < len(src) && src[i+1] == '>':
		sc.endChains(-1)
		sc.resetConds()
		return i + 1, true
	case c == '=' && (i+1 >= len(src) || src[i+1] != '='):
		sc.endChains(-1)
		sc.resetConds()
	case c == ':':
		sc.endChains(precCond)
	default:
		return i, false
	}
	if src[i] != ')' && src[i] != ']' && src[i] != '}' && src[i] != '"' {
		sc.operand, sc.closed = false, false
	}
	return i, true
}

func (sc *nestScan) resetConds() {
	f := sc.top()
	sc.bump(&f.ops[precCond], -f.ops[precCond])
}

// op handles operators, splats and attribute steps.
func (sc *nestScan) op(i int) int {
	src := sc.src
	c := src[i]
	var n byte
	if i+1 < len(src) {
		n = src[i+1]
	}
	switch {
	case c == '?':
		sc.operator(precCond)
	case c == '|' && n == '|':
		sc.operator(precOr)
		return i + 1
	case c == '&' && n == '&':
		sc.operator(precAnd)
		return i + 1
	case (c == '=' || c == '!') && n == '=':
		sc.operator(precEq)
		return i + 1
	case c == '<' || c == '>':
		sc.operator(precCmp)
		if n == '=' {
			return i + 1
		}
	case (c == '-' || c == '!') && !sc.operand:
		sc.bump(&sc.top().term, 1) // a unary operator nests its operand
	case c == '+' || c == '-':
		sc.operator(precAdd)
	case (c == '*' || c == '/' || c == '%') && sc.operand:
		sc.operator(precMul)
	case c == '.':
		return sc.dot(i)
	}
	return i
}

// dot handles a `.`: a splat (.*) nests the value, and so does an
// attribute step after an index or a call (x[i].a, f(x).a); an attribute
// step after a name extends its traversal without nesting.
func (sc *nestScan) dot(i int) int {
	src := sc.src
	switch {
	case i+1 < len(src) && src[i+1] == '*':
		sc.bump(&sc.top().term, 1)
		sc.operand, sc.closed = true, false
		return i + 1
	case sc.closed:
		sc.bump(&sc.top().term, 1)
		sc.closed = false
	}
	return i
}

// isNameStart reports whether c starts a name: a letter, _ or a byte of a
// non-ASCII character (HCL names may be Chinese).
func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// name reads a name (HCL names may hold '-': X-Request-Id) and returns
// the offset of its last byte.
func (sc *nestScan) name(i int) int {
	src := sc.src
	j := i + 1
	for j < len(src) && (isNameStart(src[j]) || src[j] == '-' || src[j] >= '0' && src[j] <= '9') {
		j++
	}
	sc.operand, sc.closed = true, false
	return j - 1
}

// number reads a number (digits, a fraction, an exponent with its sign)
// and returns the offset of its last byte.
func (sc *nestScan) number(i int) int {
	src := sc.src
	j := i
	digits := func() {
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
	}
	digits()
	if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
		j++
		digits()
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && src[k] >= '0' && src[k] <= '9' {
			j = k
			digits()
		}
	}
	sc.operand, sc.closed = true, false
	return j - 1
}

// comment skips a comment starting at i, returning the offset of its last
// byte (before the newline of a line comment).
func (sc *nestScan) comment(i int) (int, bool) {
	src := sc.src
	c := src[i]
	switch {
	case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
		if end := bytes.IndexByte(src[i:], '\n'); end >= 0 {
			return i + end - 1, true
		}
		return len(src), true
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		if end := bytes.Index(src[i+2:], []byte("*/")); end >= 0 {
			return i + 2 + end + 1, true
		}
		return len(src), true
	}
	return i, false
}

// heredoc pushes a heredoc when `<<MARKER` or `<<-MARKER` and a newline
// start at i, and returns the offset of that newline.
func (sc *nestScan) heredoc(i int) int {
	src := sc.src
	j := i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && (src[k] == '_' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= '0' && src[k] <= '9') {
		k++
	}
	end := k
	for end < len(src) && src[end] == '\r' {
		end++
	}
	if k == j || end >= len(src) || src[end] != '\n' {
		return i + 1
	}
	sc.push('H')
	sc.markers = append(sc.markers, src[j:k])
	return end
}
