package imeslip

import (
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Explain turns HCL's errors for IME punctuation on a line into one
// diagnostic that names each character, its code point and the one to
// type, at the first one's line and column; errors on other lines and
// errors that are not slips are kept as they are.
func TestExplain(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // summary @ line:col, then detail, per diagnostic
	}{
		{"two commas on a line", "values = [\"北京\"，\"上海\"，\"广州\"]\n",
			[]string{"Full-width comma '，' — use ',' @ 1:15",
				"A Chinese input method typed these characters in place of ASCII punctuation, which the suite language needs outside quoted strings: '，' (U+FF0C FULLWIDTH COMMA, 2 on this line): type ','. Inside a quoted string any character is fine."}},
		{"curly quotes", "text = “查天气”\n",
			[]string{"Curly quotes '“' and '”' — use '\"' @ 1:8",
				"A Chinese input method typed these characters in place of ASCII punctuation, which the suite language needs outside quoted strings: '“' (U+201C LEFT DOUBLE QUOTATION MARK): type '\"'; '”' (U+201D RIGHT DOUBLE QUOTATION MARK): type '\"'. Inside a quoted string any character is fine."}},
		{"ideographic space, then a slip on another line", "ok\u3000= 1\nb： 2\n",
			[]string{"Full-width space '\u3000' (U+3000) — use an ordinary space @ 1:3",
				"A Chinese input method typed this character in place of ASCII punctuation, which the suite language needs outside quoted strings: '\u3000' (U+3000 IDEOGRAPHIC SPACE): type an ordinary space. Inside a quoted string any character is fine.",
				"Full-width colon '：' — use '=' @ 2:2",
				"A Chinese input method typed this character in place of ASCII punctuation, which the suite language needs outside quoted strings: '：' (U+FF1A FULLWIDTH COLON): type '='. Inside a quoted string any character is fine."}},
		{"mixed on a line", "text = format（\"%s\"，\"a\"）\n",
			[]string{"Full-width punctuation — use ASCII @ 1:14",
				"A Chinese input method typed these characters in place of ASCII punctuation, which the suite language needs outside quoted strings: '（' (U+FF08 FULLWIDTH LEFT PARENTHESIS): type '('; '，' (U+FF0C FULLWIDTH COMMA): type ','; '）' (U+FF09 FULLWIDTH RIGHT PARENTHESIS): type ')'. Inside a quoted string any character is fine."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			_, diags := hclsyntax.ParseConfig(src, "x.nlu.hcl", hcl.InitialPos)
			var got []string
			for _, d := range Explain(diags, src) {
				got = append(got, fmt.Sprintf("%s @ %d:%d", d.Summary, d.Subject.Start.Line, d.Subject.Start.Column), d.Detail)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// Diagnostics without a slip come back unchanged.
func TestExplainKeepsOthers(t *testing.T) {
	src := []byte("a = \n")
	_, diags := hclsyntax.ParseConfig(src, "x.nlu.hcl", hcl.InitialPos)
	if len(diags) == 0 {
		t.Fatal("no parse error")
	}
	got := Explain(diags, src)
	if len(got) != len(diags) || got[0] != diags[0] || got[0].Summary != diags[0].Summary {
		t.Errorf("got %v, want %v unchanged", got, diags)
	}
}
