package jsonpath

import (
	"strings"
	"testing"
)

// Compile's error maps ojg's offset in the normalised path back to
// the path as written (an added "$." and dropped ".[" dots do not shift
// it) and counts characters, not bytes, in its message.
func TestErrorOffsets(t *testing.T) {
	tests := []struct {
		path, under, msg string
	}{
		{"槽位.城市 名", " ", "unexpected space: a key holding spaces is written in quotes, as ['my key'] (at character 6)"},
		{"  $.槽位.城市 名", " ", "(at character 10)"},
		{"data.[0", "[", "unclosed bracket: add ']' (at character 6)"},
		{"$.a[0,]", "]", "a bracket listing several keys or indexes separates them with ','"},
		{"$a", "a", "unexpected 'a' after '$': a key follows a '.', as $.a"},
		{"$.a[x]", "x", "unexpected 'x' inside brackets: a key there is quoted, as ['name']"},
		{"$.a[?(foo(@.x))]", "foo", "'foo' is not a value in a filter"},
	}
	for _, tt := range tests {
		_, _, err := Compile(tt.path)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: %v is not a *Error", tt.path, err)
			continue
		}
		if got := tt.path[pe.From:pe.To]; got != tt.under {
			t.Errorf("%q: points at %q, want %q", tt.path, got, tt.under)
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: %q lacks %q", tt.path, err, tt.msg)
		}
	}
}
