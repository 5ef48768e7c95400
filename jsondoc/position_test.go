package jsondoc

import (
	"errors"
	"testing"
)

// LineColumn counts lines from 1 and columns in characters: after Chinese
// keys and values a syntax error and a value land on the columns a reader
// counts, not on their byte offsets.
func TestLineColumn(t *testing.T) {
	src := []byte("{\"城市\": \"北京\",\n \"值\": tru}")
	var d Doc
	err := d.Parse(src)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want a syntax error, got %v", err)
	}
	if se.Reason() != "invalid character '}' in literal true (expecting 'e')" {
		t.Errorf("Reason() = %q", se.Reason())
	}
	if l, c := LineColumn(src, se.Offset); l != 2 || c != 10 {
		t.Errorf("error at %d:%d, want 2:10", l, c)
	}
	for _, tc := range []struct {
		off, line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {5, 1, 4}, {9, 1, 6}, {19, 1, 12}, {20, 1, 13}, {21, 2, 1},
		{-3, 1, 1}, {len(src), 2, 11}, {len(src) + 5, 2, 11},
	} {
		if l, c := LineColumn(src, tc.off); l != tc.line || c != tc.col {
			t.Errorf("LineColumn(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
	// A value's Offset and LineColumn: "北京" starts at column 8.
	if err := d.Parse([]byte(`{"城市": "北京"}`)); err != nil {
		t.Fatal(err)
	}
	v := d.Root() + 2
	if l, c := LineColumn([]byte(`{"城市": "北京"}`), d.Offset(v)); l != 1 || c != 8 || d.Str(v) != "北京" {
		t.Errorf("value %q at %d:%d, want 北京 at 1:8", d.Str(v), l, c)
	}
}
