package spec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mattn/go-runewidth"
)

// WriteDiagnostics prints diagnostics the way a person reads them: a
// severity and summary, file:line:col, the source line with a caret line
// under the subject (sized by display width, so it lines up under Chinese
// text), and the detail. It never relies on colour to show where the
// problem is.
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, sources map[string][]byte, color bool) {
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

// caret returns the source line of r's start and a line of ^ under r.
func caret(src []byte, r hcl.Range) (string, string, bool) {
	if src == nil || r.Start.Line < 1 {
		return "", "", false
	}
	sc := hcl.NewRangeScanner(src, r.Filename, bufio.ScanLines)
	for sc.Scan() {
		lr := sc.Range()
		if lr.Start.Line != r.Start.Line {
			continue
		}
		text := string(bytes.TrimRight(sc.Bytes(), "\r"))
		from := r.Start.Byte - lr.Start.Byte
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
		text = strings.ReplaceAll(text, "\t", " ")
		n := max(runewidth.StringWidth(text[from:to]), 1)
		return text, strings.Repeat(" ", runewidth.StringWidth(text[:from])) + strings.Repeat("^", n), true
	}
	return "", "", false
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
