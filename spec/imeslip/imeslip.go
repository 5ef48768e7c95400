// Package imeslip owns the suite language's answer to a Chinese input
// method's slips: full-width or curly punctuation (，＝：；“”［］（）｛｝ and
// U+3000) typed outside a quoted string, where HCL needs its ASCII twin.
// HCL reports such a character as an "Invalid character" and then the
// parse errors it causes; Explain turns that into one diagnostic per
// line that names each character, its code point and the one to type.
//
// It does not parse suites (the loader and spec.CheckSyntax hand it the
// parser's diagnostics and the file's text) and does not deal with
// full-width braces in placeholders, which the placeholder syntax
// explains itself.
package imeslip

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// confusable is a character a Chinese input method types in place of an
// ASCII one HCL needs: its name, the character to type instead, and what
// to call it in a summary.
type confusable struct {
	name, use, what string
}

var confusables = map[rune]confusable{
	'\u3000': {"U+3000 IDEOGRAPHIC SPACE", " ", "full-width space"},
	'＝':      {"U+FF1D FULLWIDTH EQUALS SIGN", "=", "full-width equals sign"},
	'，':      {"U+FF0C FULLWIDTH COMMA", ",", "full-width comma"},
	'：':      {"U+FF1A FULLWIDTH COLON", "=", "full-width colon"},
	'；':      {"U+FF1B FULLWIDTH SEMICOLON", "a new line", "full-width semicolon"},
	'“':      {"U+201C LEFT DOUBLE QUOTATION MARK", `"`, "curly quote"},
	'”':      {"U+201D RIGHT DOUBLE QUOTATION MARK", `"`, "curly quote"},
	'‘':      {"U+2018 LEFT SINGLE QUOTATION MARK", `"`, "curly quote"},
	'’':      {"U+2019 RIGHT SINGLE QUOTATION MARK", `"`, "curly quote"},
	'｛':      {"U+FF5B FULLWIDTH LEFT CURLY BRACKET", "{", "full-width brace"},
	'｝':      {"U+FF5D FULLWIDTH RIGHT CURLY BRACKET", "}", "full-width brace"},
	'［':      {"U+FF3B FULLWIDTH LEFT SQUARE BRACKET", "[", "full-width bracket"},
	'］':      {"U+FF3D FULLWIDTH RIGHT SQUARE BRACKET", "]", "full-width bracket"},
	'（':      {"U+FF08 FULLWIDTH LEFT PARENTHESIS", "(", "full-width parenthesis"},
	'）':      {"U+FF09 FULLWIDTH RIGHT PARENTHESIS", ")", "full-width parenthesis"},
}

// Explain turns HCL's "Invalid character" errors for full-width
// punctuation (typed with a Chinese IME, it looks like its ASCII twin) into
// one diagnostic per line that names each character and the one to type,
// and drops the errors the parser reports after it on that line (a missing
// separator, an argument required…), which are the same slip seen again.
func Explain(diags hcl.Diagnostics, src []byte) hcl.Diagnostics {
	type slip struct {
		d     *hcl.Diagnostic
		chars []rune
		count []int
	}
	byLine := map[int]*slip{}
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Start.Byte >= len(src) {
			continue
		}
		clampToLine(d.Subject, src)
		r, _ := utf8.DecodeRune(src[d.Subject.Start.Byte:])
		if _, ok := confusables[r]; !ok || d.Summary != "Invalid character" {
			continue
		}
		if s := byLine[d.Subject.Start.Line]; s != nil {
			if i := strings.IndexRune(string(s.chars), r); i >= 0 {
				s.count[utf8.RuneCountInString(string(s.chars)[:i])]++
			} else {
				s.chars = append(s.chars, r)
				s.count = append(s.count, 1)
			}
			continue
		}
		byLine[d.Subject.Start.Line] = &slip{d: d, chars: []rune{r}, count: []int{1}}
	}
	if len(byLine) == 0 {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		if d.Subject == nil {
			out = append(out, d)
			continue
		}
		s := byLine[d.Subject.Start.Line]
		switch {
		case s == nil:
			out = append(out, d)
		case s.d == d:
			d.Summary, d.Detail = slipText(s.chars, s.count)
			out = append(out, d)
		}
	}
	return out
}

// slipText is the summary and detail of a line holding the full-width or
// curly punctuation chars, count[i] times chars[i].
func slipText(chars []rune, count []int) (string, string) {
	c := confusables[chars[0]]
	summary := fmt.Sprintf("%s %s — use %s", capitalize(c.what), quoteRune(chars[0]), quoteUse(c.use))
	if len(chars) == 2 && confusables[chars[1]].use == c.use {
		summary = fmt.Sprintf("%ss %s and %s — use %s", capitalize(c.what), quoteRune(chars[0]), quoteRune(chars[1]), quoteUse(c.use))
	} else if len(chars) > 1 {
		summary = "Full-width punctuation — use ASCII"
	}
	var parts []string
	for i, r := range chars {
		c := confusables[r]
		times := ""
		if count[i] > 1 {
			times = fmt.Sprintf(", %d on this line", count[i])
		}
		parts = append(parts, fmt.Sprintf("'%c' (%s%s): type %s", r, c.name, times, quoteUse(c.use)))
	}
	what := "this character"
	if len(chars) > 1 || count[0] > 1 {
		what = "these characters"
	}
	detail := fmt.Sprintf("A Chinese input method typed %s in place of ASCII punctuation, which the suite language needs outside quoted strings: %s. Inside a quoted string any character is fine.", what, strings.Join(parts, "; "))
	return summary, detail
}

// capitalize upper-cases the first letter of an ASCII summary.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func quoteRune(r rune) string {
	if r == '\u3000' {
		return "'\u3000' (U+3000)"
	}
	return "'" + string(r) + "'"
}

func quoteUse(s string) string {
	switch s {
	case " ":
		return "an ordinary space"
	case "a new line":
		return s
	}
	return "'" + s + "'"
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
