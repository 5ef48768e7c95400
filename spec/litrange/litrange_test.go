package litrange_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec/litrange"
)

// Sub finds the source characters that spell part of a literal's value
// (Chinese text, escapes, $${ and a JSON surrogate pair before or in
// it), with HCL's columns, and gives up on what is not a plain one-line
// literal of that value.
func TestSub(t *testing.T) {
	tests := []struct {
		name, literal, part string
		ok                  bool
		spelled             string // the source under the range
		col                 int    // its start column; the literal starts at 5
	}{
		{"after a Chinese key", `"$.槽位['城市"`, "[", true, "[", 10},
		{"a Chinese character", `"$.槽位['城市"`, "城市", true, "城市", 12},
		{"after escaped quotes", `"$.槽位[\"城市\"]x"`, "x", true, "x", 18},
		{"a \\u escape", `"$.\u69fd位]"`, "槽", true, `\u69fd`, 8},
		{"after a \\u escape", `"$.\u69fd位]"`, "]", true, "]", 15},
		{"an escaped template sequence", `"原文 $${x}"`, "${", true, "$${", 9},
		{"an emoji with a skin tone, one cluster", `"👍🏽]"`, "]", true, "]", 7},
		{"text cty changed to NFC", "\"e\u0301]\"", "]", false, "", 0},
		{"an interpolation", `"${"a"}]"`, "]", false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte("k = " + tt.literal + "\n")
			expr, diags := hclsyntax.ParseExpression(src[4:len(src)-1], "f", hcl.Pos{Line: 1, Column: 5, Byte: 4})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := expr.Value(nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			value := v.AsString()
			from := strings.Index(value, tt.part)
			if from < 0 {
				t.Fatalf("%q not in %q", tt.part, value)
			}
			sub, ok := litrange.Sub(src, expr.Range(), value, from, from+len(tt.part))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				if sub != expr.Range() {
					t.Errorf("fallback %v, want the whole literal %v", sub, expr.Range())
				}
				return
			}
			if got := string(src[sub.Start.Byte:sub.End.Byte]); got != tt.spelled {
				t.Errorf("range spells %q, want %q", got, tt.spelled)
			}
			if sub.Start.Line != 1 || sub.Start.Column != tt.col {
				t.Errorf("starts at %d:%d, want 1:%d", sub.Start.Line, sub.Start.Column, tt.col)
			}
		})
	}
}

// A JSON-syntax literal: a rune beyond the BMP written as a surrogate
// pair maps to both escapes; text after it to itself. An empty span is
// widened to the character at it; a value the literal does not decode
// to (cty's NFC changed it) and a multi-line range fall back.
func TestSubJSON(t *testing.T) {
	src := []byte(`{"k": "\ud83d\ude00中]"}`)
	start := bytes.IndexByte(src[5:], '"') + 5
	r := hcl.Range{Filename: "f.json", Start: hcl.Pos{Line: 1, Column: start + 1, Byte: start}, End: hcl.Pos{Line: 1, Column: len(src), Byte: len(src) - 1}}
	value := "😀中]"
	for _, tt := range []struct {
		from, to int
		spelled  string
		col      int
	}{
		{0, 4, `\ud83d\ude00`, 8},
		{4, 7, "中", 20},
		{7, 7, "]", 21},
	} {
		sub, ok := litrange.Sub(src, r, value, tt.from, tt.to)
		if !ok {
			t.Fatalf("[%d:%d]: no range", tt.from, tt.to)
		}
		if got := string(src[sub.Start.Byte:sub.End.Byte]); got != tt.spelled || sub.Start.Column != tt.col {
			t.Errorf("[%d:%d]: %q at column %d, want %q at %d", tt.from, tt.to, got, sub.Start.Column, tt.spelled, tt.col)
		}
	}
	if _, ok := litrange.Sub(src, r, "😀中}", 0, 1); ok {
		t.Error("a value the literal does not spell got a range")
	}
	two := []byte("k = \"a\nb\"")
	if _, ok := litrange.Sub(two, hcl.Range{Start: hcl.Pos{Line: 1, Column: 5, Byte: 4}, End: hcl.Pos{Line: 2, Column: 3, Byte: len(two)}}, "a\nb", 0, 1); ok {
		t.Error("a multi-line range got a sub-range")
	}
}
