// Package diagfmt owns how nlutest prints hcl diagnostics for a person
// to read: severity and summary, file:line:col, the source line quoted
// with a caret line under the subject (sized by display width, so it
// lines up under Chinese text, and cut around long lines), a second
// place (the diagnostic's context) when it is elsewhere, and the detail.
// Colour is optional and never the only marker; control characters and
// invalid UTF-8 in a quoted line are escaped, so a hostile file cannot
// drive the terminal.
//
// It does not make diagnostics, decide when to use colour (the command
// does, per stream) or redact secrets (spec.RedactDiags does, first).
package diagfmt

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/mattn/go-runewidth"
)

// Write prints diagnostics the way a person reads them: a
// severity and summary, file:line:col, the source line with a caret line
// under the subject (sized by display width, so it lines up under Chinese
// text), and the detail. It never relies on colour to show where the
// problem is.
func Write(w io.Writer, diags hcl.Diagnostics, sources map[string][]byte, color bool) {
	red, yellow, bold, reset := "", "", "", ""
	if color {
		red, yellow, bold, reset = "\x1b[31m", "\x1b[33m", "\x1b[1m", "\x1b[0m"
	}
	for _, d := range diags {
		sev, col := "Error", red
		if d.Severity == hcl.DiagWarning {
			sev, col = "Warning", yellow
		}
		fmt.Fprintf(w, "%s%s%s:%s %s%s%s\n", bold, col, sev, reset, bold, d.Summary, reset)
		if d.Subject != nil {
			r := *d.Subject
			if r.Start.Line > 0 {
				fmt.Fprintf(w, "\n  on %s:%d:%d:\n", r.Filename, r.Start.Line, r.Start.Column)
			} else {
				fmt.Fprintf(w, "\n  in %s:\n", r.Filename)
			}
			if line, marks, ok := caret(sources[r.Filename], r); ok {
				num := fmt.Sprintf("%d", r.Start.Line)
				fmt.Fprintf(w, "  %s | %s\n", num, line)
				fmt.Fprintf(w, "  %s | %s%s%s\n", strings.Repeat(" ", len(num)), col, marks, reset)
			}
		}
		if c := d.Context; c != nil && d.Subject != nil && (c.Filename != d.Subject.Filename || c.Start.Line != d.Subject.Start.Line) {
			fmt.Fprintf(w, "\n  also at %s:%d:%d:\n", c.Filename, c.Start.Line, c.Start.Column)
			if line, marks, ok := caret(sources[c.Filename], *c); ok {
				num := fmt.Sprintf("%d", c.Start.Line)
				fmt.Fprintf(w, "  %s | %s\n", num, line)
				fmt.Fprintf(w, "  %s | %s%s%s\n", strings.Repeat(" ", len(num)), col, marks, reset)
			}
		}
		if d.Detail != "" {
			fmt.Fprintf(w, "\n%s\n", d.Detail)
		}
		fmt.Fprintln(w)
	}
}

// lineAt returns the offset of the line r starts on: found from r's byte
// offset when it agrees with r's line, else by counting lines.
func lineAt(src []byte, r hcl.Range) (int, bool) {
	if b := r.Start.Byte; b > 0 && b <= len(src) {
		start := bytes.LastIndexByte(src[:b], '\n') + 1
		if start == 0 && r.Start.Line == 1 || start > 0 && r.Start.Line == 1+bytes.Count(src[:start], []byte{'\n'}) {
			return start, true
		}
	}
	start := 0
	for line := 1; line < r.Start.Line; line++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return 0, false
		}
		start += i + 1
	}
	if start >= len(src) && r.Start.Line > 1 {
		return 0, false
	}
	return start, true
}

// caret returns the source line of r's start and a line of ^ under r.
func caret(src []byte, r hcl.Range) (string, string, bool) {
	if src == nil || r.Start.Line < 1 {
		return "", "", false
	}
	lineStart, ok := lineAt(src, r)
	if !ok {
		return "", "", false
	}
	end := bytes.IndexByte(src[lineStart:], '\n')
	if end < 0 {
		end = len(src) - lineStart
	}
	text := string(bytes.TrimRight(src[lineStart:lineStart+end], "\r"))
	from := r.Start.Byte - lineStart
	if r.Start.Byte == 0 && r.Start.Line > 1 || from < 0 || from > len(text) {
		// A range built from line/column only (material files).
		from = byteOfColumn(text, r.Start.Column)
	}
	to := len(text)
	if r.End.Line == r.Start.Line && r.End.Byte > r.Start.Byte {
		to = min(from+(r.End.Byte-r.Start.Byte), len(text))
	}
	if to <= from {
		to = min(from+1, len(text))
	}
	line, marks := excerpt(text, from, to)
	return line, marks, true
}

// maxExcerpt is the most display columns of a source line a diagnostic
// quotes on each side of its subject.
const maxExcerpt = 60

// excerpt returns the part of text around text[from:to] a diagnostic
// quotes (at most maxExcerpt columns each side of the subject, whose own
// quote is cut to maxExcerpt, with "…" where text was cut) and its caret
// line. Control characters and invalid UTF-8 are shown escaped (\x00), so
// a hostile file cannot drive the terminal.
func excerpt(text string, from, to int) (string, string) {
	to = min(to, from+4*maxExcerpt)
	before := escapeTail(text[:from], maxExcerpt)
	subject := escapeHead(text[from:to], maxExcerpt)
	after := escapeHead(text[to:], maxExcerpt)
	n := max(runewidth.StringWidth(subject), 1)
	return before + subject + after, strings.Repeat(" ", runewidth.StringWidth(before)) + strings.Repeat("^", n)
}

// escapeRune is r as shown in an excerpt: a tab as a space, a control
// character or an invalid byte as \xNN.
func escapeRune(r rune, b byte) string {
	switch {
	case r == '\t':
		return " "
	case r == utf8.RuneError:
		return fmt.Sprintf("\\x%02x", b)
	case unicode.IsControl(r) || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Bidi_Control, r):
		return fmt.Sprintf("\\x%02x", r)
	}
	return string(r)
}

// escapeHead escapes s and keeps its first max columns, marking a cut.
func escapeHead(s string, max int) string {
	var b strings.Builder
	w := 0
	for i, r := range s {
		e := escapeRune(r, s[i])
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size > 1 {
				e = string(r)
			}
		}
		if w += runewidth.StringWidth(e); w > max {
			b.WriteString("…")
			break
		}
		b.WriteString(e)
	}
	return b.String()
}

// escapeTail escapes s and keeps its last max columns, marking a cut.
func escapeTail(s string, max int) string {
	var parts []string
	w := 0
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		e := escapeRune(r, s[len(s)-size])
		if r == utf8.RuneError && size > 1 {
			e = string(r)
		}
		if w += runewidth.StringWidth(e); w > max {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, e)
		s = s[:len(s)-size]
	}
	slices.Reverse(parts)
	return strings.Join(parts, "")
}

func byteOfColumn(text string, col int) int {
	c := 1
	for i := range text {
		if c == col {
			return i
		}
		c++
	}
	return 0
}

// Text is the errors among diags on one line: each summary and detail,
// joined by "; " — for messages recorded in results and errors, where a
// source snippet cannot go.
func Text(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			s := d.Summary
			if d.Detail != "" {
				s += ": " + d.Detail
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}
