package assert

import (
	"runtime"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// An excerpt ends on a whole UTF-8 character, and a string and its bytes
// give the same excerpt.
func TestExcerpt(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…"},
		{"天气很好", 12, "天气很好"},
		{"天气很好", 7, "天气…"}, // 7 is inside 很: cut before it
		{"天气很好", 6, "天气…"},
		{"a天气", 2, "a…"},
		{"天气", 0, "…"},
		{`{"reply":"北京晴"}`, 13, `{"reply":"北…`},
	} {
		if got := excerpt(c.in, c.n); got != c.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if got := excerpt([]byte(c.in), c.n); got != c.want {
			t.Errorf("excerpt([]byte(%q), %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A failing case's kept response is a MaxBody excerpt, and making it
// copies the excerpt only, not the response (eval of results with 8 MB
// answers copied each whole into a string to keep 4 KiB of it).
func TestKeptBodyCopiesOnlyTheExcerpt(t *testing.T) {
	big := `{"intent":{"name":"问候"},"pad":"` + strings.Repeat("晴转多云，", 8<<20/15) + `"}`
	c := &Collector{MaxBody: 4 << 10}
	for _, r := range []*schema.Result{
		{Response: []byte(big)},
		{Body: big}, // a body that is not JSON is kept the same way
	} {
		want := excerpt(big, c.MaxBody)
		if !strings.HasPrefix(big, strings.TrimSuffix(want, "…")) || len(want) > c.MaxBody+len("…") {
			t.Fatalf("excerpt of %d bytes: %.40q", len(want), want)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 5 {
			if got := c.keptBody(r); got != want {
				t.Fatalf("keptBody = %.40q… (%d bytes), want the %d-byte excerpt", got, len(got), len(want))
			}
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("keeping 5 excerpts of a %d-byte response allocated %d bytes", len(big), n)
		}
	}
}
