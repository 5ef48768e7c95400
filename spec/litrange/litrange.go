// Package litrange owns where a part of a string's value is written in
// the suite source: given the range of a one-line quoted string literal
// (HCL native syntax or JSON) and its decoded value, Sub maps a byte span
// of the value back to the source characters that spell it, escapes
// (\n, \", \u69fd, JSON surrogate pairs), $${ and %%{ and multi-byte text
// accounted for, columns counted in grapheme clusters as HCL counts them.
// A diagnostic about part of a value (a JSONPath's bad bracket) puts its
// caret there instead of under the whole literal.
//
// It does not parse or evaluate expressions, and it gives up (reports
// false) on anything but a plain one-line literal whose text decodes to
// the value: a template with ${…}, a heredoc, an expression, or text cty
// changed to NFC; callers then point at the whole range.
package litrange

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2"
)

// Sub is the source range of value[from:to] inside the quoted string
// literal at r in src (native syntax or JSON), escapes and multi-byte text
// accounted for. It reports false when r is not a one-line quoted literal
// whose text decodes to value (an expression, a template with ${…}, a
// heredoc, or text cty changed to NFC), so callers fall back to r.
func Sub(src []byte, r hcl.Range, value string, from, to int) (hcl.Range, bool) {
	if r.Start.Byte < 0 || r.End.Byte > len(src) || r.End.Byte-r.Start.Byte < 2 || from < 0 || to < from || to > len(value) {
		return r, false
	}
	lit := src[r.Start.Byte:r.End.Byte]
	if lit[0] != '"' || lit[len(lit)-1] != '"' || bytes.IndexByte(lit, '\n') >= 0 {
		return r, false
	}
	offs, ok := decodeLiteral(lit[1:len(lit)-1], value)
	if !ok {
		return r, false
	}
	start, end := 1+offs[from], 1+offs[to]
	if end <= start {
		_, size := utf8.DecodeRune(lit[start:])
		end = start + size
	}
	out := r
	out.Start = shiftPos(r.Start, lit[:start])
	out.End = shiftPos(r.Start, lit[:end])
	return out, true
}

// shiftPos is p moved over the one-line text skipped: columns count
// grapheme clusters, as HCL's do.
func shiftPos(p hcl.Pos, skipped []byte) hcl.Pos {
	n, _ := textseg.TokenCount(skipped, textseg.ScanGraphemeClusters)
	return hcl.Pos{Line: p.Line, Column: p.Column + n, Byte: p.Byte + len(skipped)}
}

// decodeLiteral decodes the body of a quoted literal (HCL native escapes,
// $${ and %%{, or JSON's) and returns, for each byte of the decoded text
// and for its end, the offset in body it came from. It reports false when
// the decoded text is not value or holds a template sequence.
func decodeLiteral(body []byte, value string) ([]int, bool) {
	out := make([]byte, 0, len(value))
	offs := make([]int, 0, len(value)+1)
	for i := 0; i < len(body); {
		at := i
		var dec []byte
		switch {
		case body[i] == '\\' && i+1 < len(body):
			var ok bool
			dec, i, ok = decodeEscape(body, i)
			if !ok {
				return nil, false
			}
		case (body[i] == '$' || body[i] == '%') && i+2 < len(body) && body[i+1] == body[i] && body[i+2] == '{':
			// $${ is a literal ${: the '$' is spelt $$, the '{' as itself.
			offs = append(offs, at)
			out = append(out, body[i])
			at, dec, i = i+2, body[i+2:i+3], i+3
		case (body[i] == '$' || body[i] == '%') && i+1 < len(body) && body[i+1] == '{':
			return nil, false
		default:
			dec, i = body[i:i+1], i+1
		}
		for range dec {
			offs = append(offs, at)
		}
		out = append(out, dec...)
	}
	offs = append(offs, len(body))
	return offs, string(out) == value
}

// decodeEscape decodes the escape at body[i] ('\\'): its bytes, the
// offset after it, and whether it is one.
func decodeEscape(body []byte, i int) ([]byte, int, bool) {
	switch c := body[i+1]; c {
	case 'n':
		return []byte{'\n'}, i + 2, true
	case 'r':
		return []byte{'\r'}, i + 2, true
	case 't':
		return []byte{'\t'}, i + 2, true
	case 'b':
		return []byte{'\b'}, i + 2, true
	case 'f':
		return []byte{'\f'}, i + 2, true
	case '"', '\\', '/':
		return []byte{c}, i + 2, true
	case 'u', 'U':
		size := 4
		if c == 'U' {
			size = 8
		}
		if i+2+size > len(body) {
			return nil, 0, false
		}
		v, err := strconv.ParseUint(string(body[i+2:i+2+size]), 16, 32)
		if err != nil {
			return nil, 0, false
		}
		r, end := rune(v), i+2+size
		// JSON writes a rune beyond the BMP as a surrogate pair.
		if utf16.IsSurrogate(r) && end+6 <= len(body) && body[end] == '\\' && body[end+1] == 'u' {
			if lo, err := strconv.ParseUint(string(body[end+2:end+6]), 16, 32); err == nil {
				r, end = utf16.DecodeRune(r, rune(lo)), end+6
			}
		}
		return utf8.AppendRune(nil, r), end, true
	}
	return nil, 0, false
}
