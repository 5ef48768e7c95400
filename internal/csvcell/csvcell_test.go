package csvcell

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNeutralRestore: every cell beginning with = + - @ TAB CR LF (the
// payloads of the 2026-12-01 audit among them) gets a leading quote, no
// other cell changes, and Restore gives back exactly what was written.
func TestNeutralRestore(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`=HYPERLINK("http://127.0.0.1:9/?x="&A1,"click")`, `'=HYPERLINK("http://127.0.0.1:9/?x="&A1,"click")`},
		{`=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`},
		{`+1+cmd|' /C calc'!A0`, `'+1+cmd|' /C calc'!A0`},
		{`-2+3+cmd|' /C calc'!A0`, `'-2+3+cmd|' /C calc'!A0`},
		{`@SUM(1+1)*cmd|' /C calc'!A0`, `'@SUM(1+1)*cmd|' /C calc'!A0`},
		{"\t=1+1", "'\t=1+1"},
		{"\r=1+1", "'\r=1+1"},
		{"\n=1+1", "'\n=1+1"},
		{"=SUM(1)", "'=SUM(1)"},
		{"-3", "'-3"},
		{"=北京到上海", "'=北京到上海"},
		// Already quoted before a risky character: one more quote.
		{"'=SUM(1)", "''=SUM(1)"},
		{"''-1", "'''-1"},
		// Left alone: OWASP's rule is the first character.
		{"", ""},
		{"帮我订一张明天去北京的机票", "帮我订一张明天去北京的机票"},
		{" =1+1", " =1+1"},
		{"a=1+1", "a=1+1"},
		{"'quoted", "'quoted"},
		{"'", "'"},
		{"4", "4"},
		{"7dacbe6019c74cae", "7dacbe6019c74cae"},
	} {
		got := Neutral(tc.in)
		if got != tc.want {
			t.Errorf("Neutral(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := Restore(got); back != tc.in {
			t.Errorf("Restore(%q) = %q, want %q", got, back, tc.in)
		}
	}
}

// TestClean: cells read back from a sheet are trimmed and restored; a
// negative number keeps its sign (a score of -2 stays out of the scale).
func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"'-2":      "-2",
		"-2":       "-2",
		" '=4 ":    "=4",
		"'\t4":     "4",
		" 4 ":      "4",
		"'4":       "'4",
		"'+4":      "+4",
		"'@满意度":    "@满意度",
		"sha256:1": "sha256:1",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCut: a cell over the limit keeps its beginning and ends with the
// marker, the whole within the limit in UTF-16 code units (a character
// outside the BMP counts two, as in Excel); a cell within it is kept.
func TestCut(t *testing.T) {
	long := strings.Repeat("好", 40000)
	got := Cut(long, MaxCell)
	if !strings.HasSuffix(got, Marker) || utf16Len(got) != MaxCell || !strings.HasPrefix(got, "好好好") {
		t.Errorf("Cut of 40000 好: %d code units, suffix %q", utf16Len(got), got[len(got)-12:])
	}
	exact := strings.Repeat("好", MaxCell)
	if Cut(exact, MaxCell) != exact {
		t.Errorf("a cell of exactly MaxCell code units was cut")
	}
	emoji := strings.Repeat("😀", 10) // 20 code units
	if got := Cut(emoji, 20); got != emoji {
		t.Errorf("Cut(10 emoji, 20) = %q", got)
	}
	if got := Cut(emoji, 19); got != strings.Repeat("😀", 6)+Marker || utf16Len(got) > 19 || !utf8.ValidString(got) {
		t.Errorf("Cut(10 emoji, 19) = %q (%d code units)", got, utf16Len(got))
	}
	if got := Cut(long, 0); got != long {
		t.Errorf("Cut(s, 0) changed s")
	}
	// Cell counts the neutralising quote in the limit.
	formula := "=" + strings.Repeat("x", 100)
	if c := Cell(formula, 50); !strings.HasPrefix(c, "'=") || utf16Len(c) != 50 || !strings.HasSuffix(c, Marker) {
		t.Errorf("Cell(formula, 50) = %q (%d)", c, utf16Len(c))
	}
}
