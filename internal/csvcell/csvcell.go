// Package csvcell makes text safe to put in a CSV cell that people open
// in a spreadsheet program, and takes it back.
//
// A spreadsheet (Excel, LibreOffice Calc, Google Sheets) reads a cell
// that begins with = + - @ as a formula, and a TAB, CR or LF there lets
// one through too. OWASP's "CSV Injection" page says to make sure no cell
// begins with any of those seven characters; Neutral does so by putting a
// single quote before such a cell, which spreadsheets take as "this is
// text". Nothing else is changed: a cell that begins with a space, or that
// holds = further in, is left as is (OWASP's rule is the first character;
// the CSV writer quotes a cell holding a comma, a quote or a line break,
// so no text starts a new cell). Restore undoes Neutral exactly, so what
// a sheet gives back compares equal to what was written.
//
// Cut bounds a cell: Excel keeps at most MaxCell characters in a cell.
package csvcell

import "strings"

// MaxCell is the most characters (UTF-16 code units, as Excel counts
// them) a spreadsheet cell holds: Excel's limit, "Total number of
// characters that a cell can contain: 32,767".
const MaxCell = 32767

// Marker ends a cell Cut shortened.
const Marker = "…[cut]"

// risky reports whether c makes a spreadsheet read a cell beginning with
// it as a formula (OWASP, CSV Injection: = + - @ TAB CR LF).
func risky(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r', '\n':
		return true
	}
	return false
}

// quoted reports whether s is zero or more single quotes followed by a
// risky character, and how many quotes lead.
func quoted(s string) (bool, int) {
	n := 0
	for n < len(s) && s[n] == '\'' {
		n++
	}
	return n < len(s) && risky(s[n]), n
}

// Neutral returns s with a single quote before it when it begins with =,
// +, -, @, TAB, CR or LF, so a spreadsheet shows it as text. A cell that
// already begins with quotes before one of those gets one more, so
// Restore gives it back unchanged.
func Neutral(s string) string {
	if ok, _ := quoted(s); ok {
		return "'" + s
	}
	return s
}

// Restore undoes Neutral: a cell of one or more single quotes followed by
// =, +, -, @, TAB, CR or LF loses its first quote ("'=SUM(1)" is
// "=SUM(1)" again). Any other cell is returned as is.
func Restore(s string) string {
	if ok, n := quoted(s); ok && n > 0 {
		return s[1:]
	}
	return s
}

// Cut returns s when it has at most max UTF-16 code units, else its
// beginning followed by Marker, max code units in all. max ≤ 0 means no
// limit.
func Cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s // a string of n bytes has at most n code units
	}
	keep := max - utf16Len(Marker)
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > keep {
			if utf16Len(s[i:])+units <= max {
				return s
			}
			return s[:i] + Marker
		}
		units += w
	}
	return s
}

// Cell is s as a sheet cell: cut to at most max code units, the
// neutralising quote included, then neutralised.
func Cell(s string, max int) string {
	if ok, _ := quoted(s); ok && max > 0 {
		return Neutral(Cut(s, max-1))
	}
	return Neutral(Cut(s, max))
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Clean is s as read back from a sheet: surrounding spaces trimmed and
// Neutral undone (then trimmed again, for a cell such as "'\t4").
func Clean(s string) string {
	return strings.TrimSpace(Restore(strings.TrimSpace(s)))
}
