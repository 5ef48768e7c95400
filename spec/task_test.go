package spec

import (
	"testing"

	"github.com/nlutest/nlutest/spec/jsonpath"
)

// CompileValueSource: a path error's offsets count from the start of the
// source as written, prefix included.
func TestCompileValueSourceOffsets(t *testing.T) {
	for _, tc := range []struct {
		src  string
		from int
	}{{"$.a[", 3}, {"state:$.a[", 9}, {"final:$.a[", 9}, {"tool:x:$.a[", 10}} {
		_, err := CompileValueSource(tc.src)
		pe, ok := err.(*jsonpath.Error)
		if !ok || pe.Path != tc.src || pe.From != tc.from {
			t.Errorf("%q: %#v, want a jsonpath.Error from %d", tc.src, err, tc.from)
		}
	}
}
