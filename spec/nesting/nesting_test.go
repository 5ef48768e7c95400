package nesting

import (
	"strings"
	"testing"
)

// depth is the deepest level TooDeep counts in src: the least max it
// accepts.
func depth(src string) int {
	for max := 0; ; max++ {
		if TooDeep([]byte(src), max) < 0 {
			return max
		}
	}
}

// TestTooDeepCounts: what makes the parse tree deeper counts a level, and
// what does not (names, numbers, comments, brackets inside strings,
// escaped interpolations) does not.
func TestTooDeepCounts(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      int
	}{
		{"a plain attribute", `a = 1`, 0},
		{"a Chinese name", `城市 = 北京`, 0},
		{"brackets", `a = [[1]]`, 2},
		{"blocks", "b {\n  c {\n    d = 1\n  }\n}\n", 2},
		{"a string", `a = "北京"`, 1},
		{"brackets inside a string", `a = "((([[[{{{"`, 1},
		{"an interpolation", `a = "${b}"`, 2},
		{"an escaped interpolation", `a = "$${b} %%{ if x }"`, 1},
		{"an if directive until its endif", `a = "%{ if x }${y}%{ endif }"`, 3},
		{"a heredoc and its interpolation", "a = <<EOT\n  查${城市}\nEOT\n", 2},
		{"a line comment", "# (((((\na = 1 // [[[[[\n", 0},
		{"a block comment", "/* {{{{{ */ a = 1", 0},
		{"a chain of one operator", `a = 1 + 2 + 3 + 4`, 3},
		{"a looser operator ends the tighter chains", `a = x == 1 || y == 2`, 2},
		{"a comma ends an expression", `a = [1 + 2, 3 + 4]`, 2},
		{"unary operators", `a = !!!x`, 3},
		{"index steps", `a = x[0][1]`, 3},
		{"a splat", `a = x[*].名`, 2},
		{"an attribute step after a call", `a = f(x).b[0]`, 3},
		{"an attribute step after a name", `a = f.b[0]`, 2},
		{"a conditional", `a = x ? (1) : 2`, 2},
		{"a conditional in the true branch", `a = x ? y ? 1 : 2 : 3`, 2},
		{"unmatched closers", `a = ]]] )`, 0},
	} {
		if got := depth(c.src); got != c.want {
			t.Errorf("%s: %s nests %d deep, want %d", c.name, c.src, got, c.want)
		}
	}
}

// TestTooDeepOffset: the offset is the token that opens the first level
// past max; a million levels take one pass and no recursion.
func TestTooDeepOffset(t *testing.T) {
	for _, c := range []struct {
		src  string
		max  int
		want int
	}{
		{`a = [[[1]]]`, 2, 6},
		{`a = [[[1]]]`, 3, -1},
		{`名 = "查${城市}"`, 1, strings.Index(`名 = "查${城市}"`, "$")},
		{`a = 1 + 2 + 3`, 1, 10},
		{"a = " + strings.Repeat("(", 1_000_000) + strings.Repeat(")", 1_000_000), 100, 4 + 100},
		{"", 0, -1},
	} {
		if got := TooDeep([]byte(c.src), c.max); got != c.want {
			t.Errorf("TooDeep(%.40q, %d) = %d, want %d", c.src, c.max, got, c.want)
		}
	}
}
