package litrange_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/litrange"
)

// FuzzSub: a character of a string written as an HCL quoted
// literal (escapes, $${ and %%{ as needed) maps to the source bytes that
// spell it, on the literal's line, columns counting from the literal's
// (the literal written by spec.QuoteString, as nlutest fmt and annotate write them).
func FuzzSub(f *testing.F) {
	for _, s := range []string{"$.槽位['城市", `$.a["b"]`, "a\\b\nc", "${x}%{y}", "e\u0301", "\t中文 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 256 {
			return // every character is mapped: keep a run short
		}
		src := []byte("k = " + spec.QuoteString(s) + "\n")
		expr, diags := hclsyntax.ParseExpression(src[4:len(src)-1], "f", hcl.Pos{Line: 1, Column: 5, Byte: 4})
		if diags.HasErrors() {
			t.Fatalf("%q: %s", src, diags)
		}
		v, diags := expr.Value(nil)
		if diags.HasErrors() || v.AsString() != s {
			return // cty's NFC changed it: callers fall back to the whole literal
		}
		r := expr.Range()
		for i, c := range s {
			to := i + utf8.RuneLen(c)
			sub, ok := litrange.Sub(src, r, s, i, to)
			if !ok {
				t.Fatalf("%q: no range for %q", src, s[i:to])
			}
			if sub.Start.Byte < r.Start.Byte+1 || sub.End.Byte > r.End.Byte-1 || sub.Start.Byte >= sub.End.Byte || sub.Start.Line != 1 || sub.Start.Column <= r.Start.Column {
				t.Fatalf("%q: %q maps to %v outside the literal %v", src, s[i:to], sub, r)
			}
			if got := string(src[sub.Start.Byte:sub.End.Byte]); got != s[i:to] && !strings.HasPrefix(got, "\\") && got != "$$" && got != "%%" {
				t.Fatalf("%q: %q maps to %q", src, s[i:to], got)
			}
		}
	})
}
