package spec

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

var confusables = map[rune]string{
	'\u3000': "U+3000 IDEOGRAPHIC SPACE (a full-width space); use an ordinary space",
	'＝':      "U+FF1D FULLWIDTH EQUALS SIGN; use =",
	'，':      "U+FF0C FULLWIDTH COMMA; use , outside strings",
	'：':      "U+FF1A FULLWIDTH COLON; use = for attributes",
	'“':      "U+201C LEFT DOUBLE QUOTATION MARK; use straight quotes \"",
	'”':      "U+201D RIGHT DOUBLE QUOTATION MARK; use straight quotes \"",
	'｛':      "U+FF5B FULLWIDTH LEFT CURLY BRACKET; use {",
	'｝':      "U+FF5D FULLWIDTH RIGHT CURLY BRACKET; use }",
	'［':      "U+FF3B FULLWIDTH LEFT SQUARE BRACKET; use [",
	'］':      "U+FF3D FULLWIDTH RIGHT SQUARE BRACKET; use ]",
	'（':      "U+FF08 FULLWIDTH LEFT PARENTHESIS; use (",
	'）':      "U+FF09 FULLWIDTH RIGHT PARENTHESIS; use )",
}

// improveSyntaxDiags adds to "Invalid character" errors the name of the
// character, since full-width characters typed with a Chinese IME look like
// their ASCII twins.
func improveSyntaxDiags(diags hcl.Diagnostics, src []byte) hcl.Diagnostics {
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Start.Byte >= len(src) {
			continue
		}
		clampToLine(d.Subject, src)
		r, _ := utf8.DecodeRune(src[d.Subject.Start.Byte:])
		if hint, ok := confusables[r]; ok {
			d.Detail = fmt.Sprintf("%s This character is %s.", d.Detail, hint)
		}
	}
	return diags
}

// clampToLine ends a one-line range at the end of its line: HCL's lexer
// reads an invalid UTF-8 byte with the bytes after it, newline included,
// and gave ranges whose end byte is on the next line.
func clampToLine(r *hcl.Range, src []byte) {
	if r.End.Line != r.Start.Line || r.End.Byte <= r.Start.Byte || r.End.Byte > len(src) {
		return
	}
	nl := bytes.IndexByte(src[r.Start.Byte:r.End.Byte], '\n')
	if nl < 0 {
		return
	}
	r.End.Byte = r.Start.Byte + nl
	r.End.Column = r.Start.Column + utf8.RuneCount(src[r.Start.Byte:r.End.Byte])
}
