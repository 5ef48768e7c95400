package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxLayers is how many layers of escaping the redactor takes off a text
// to look for secrets under them: JSON escapes (\uXXXX in either hex case,
// \/, \", \\, \n …) and %XX escapes, decoded together, one layer at a
// time. A reply whose text is JSON quoting JSON (a service serialising
// its headers into an answer) needs two; four is beyond any seen. Each
// layer is no longer than the one before, so the work is bounded by
// MaxLayers times the text.
const MaxLayers = 4

// unit decodes the unit of s at i — an escape, or one byte as it is —
// appending its bytes to out, and returns out and the index past the unit.
// pct: %XX escapes are decoded too (a JSON string's own decoding leaves
// them).
func unit(out []byte, s string, i int, pct bool) ([]byte, int) {
	c := s[i]
	switch {
	case c == '\\' && i+1 < len(s):
		if e := jsonEscape(s[i+1]); e != 0 {
			return append(out, e), i + 2
		}
		if s[i+1] == 'u' {
			if r, n := unicodeEscape(s, i); n > 0 {
				return utf8.AppendRune(out, r), i + n
			}
		}
	case c == '%' && pct && i+2 < len(s):
		h, ok1 := unhex(s[i+1])
		l, ok2 := unhex(s[i+2])
		if ok1 && ok2 {
			return append(out, h<<4|l), i + 3
		}
	}
	return append(out, c), i + 1
}

// jsonEscape is the byte a one-letter JSON escape \e stands for; 0 if e
// is not one.
func jsonEscape(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// unicodeEscape decodes the \uXXXX escape at s[i] (a surrogate pair
// written as two of them included) and returns the rune and the length
// of its text; 0 if there is none. A lone surrogate is U+FFFD.
func unicodeEscape(s string, i int) (rune, int) {
	r, ok := hex4(s, i+2)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) && i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
		if r2, ok := hex4(s, i+8); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
	}
	return r, 6
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		h, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hasEscape reports whether s may hold an escape.
func hasEscape(s string) bool {
	return strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '%') >= 0
}

// unescape takes one layer of escaping off s (unit's escapes; pct: %XX
// too) and reports whether anything was decoded; it allocates only then.
func unescape(s string, pct bool) (string, bool) {
	esc := "\\"
	if pct {
		esc = "\\%"
	}
	i := firstEscape(s, esc, pct)
	if i < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	var buf [utf8.UTFMax]byte
	last := 0
	for i >= 0 {
		b.WriteString(s[last:i])
		var u []byte
		u, last = unit(buf[:0], s, i, pct)
		b.Write(u)
		if i = strings.IndexAny(s[last:], esc); i >= 0 {
			i += last
		}
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// firstEscape returns the index of the first escape of s that decodes to
// something else, or -1.
func firstEscape(s, esc string, pct bool) int {
	var buf [utf8.UTFMax]byte
	for i := 0; ; i++ {
		k := strings.IndexAny(s[i:], esc)
		if k < 0 {
			return -1
		}
		i += k
		if _, next := unit(buf[:0], s, i, pct); next-i > 1 {
			return i
		}
	}
}

// mapSpans maps spans of unescape(src, true) (sorted, not overlapping)
// back to src: each becomes the whole units that produced its bytes.
func mapSpans(src string, sp []span) []span {
	out := make([]span, 0, len(sp))
	var buf [utf8.UTFMax]byte
	o, i, k, from := 0, 0, 0, -1
	for i < len(src) && k < len(sp) {
		u, next := unit(buf[:0], src, i, true)
		end := o + len(u)
		if from < 0 && end > sp[k].from {
			from = i
		}
		if from >= 0 && end >= sp[k].to {
			out = append(out, span{from, next})
			k, from = k+1, -1
			continue // the same unit may start the next span
		}
		o, i = end, next
	}
	for ; k < len(sp); k++ { // past the end: cannot happen for spans of the view
		if from < 0 {
			from = len(src)
		}
		out = append(out, span{from, len(src)})
		from = -1
	}
	return out
}
