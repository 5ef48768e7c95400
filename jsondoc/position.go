package jsondoc

import (
	"bytes"
	"unicode/utf8"
)

// Where a value or a syntax error is, for a diagnostic that names a line
// and column (a material row's "at column 12"): Offset gives a value's
// byte offset, SyntaxError.Offset an error's, and LineColumn turns either
// into the line and column a reader counts.

// Reason is the problem a SyntaxError describes, without its offset
// ("invalid character 'x' after top-level value"), for a caller that
// states the place in its own terms.
func (e *SyntaxError) Reason() string { return e.msg }

// LineColumn is the 1-based line and column of byte offset off in src, the
// column counted in characters as hcl counts them (中 is one column, as
// is a byte that is not UTF-8); an offset past the end is the place just
// after the last character.
func LineColumn(src []byte, off int) (line, column int) {
	off = min(max(off, 0), len(src))
	before := src[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCount(before) + 1
}
