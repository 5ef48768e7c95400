package spec

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A JSONPath that does not compile is a diagnostic whose caret is on the
// offending characters inside the string literal (CJK text and escapes
// before them accounted for), or on the whole expression when the path is
// not a plain literal, and whose detail says in words what is wrong and
// what to do — not ojg's "not terminated at 32" (issue 17, friction 11).
func TestBadJSONPathDiagnostic(t *testing.T) {
	const head = "suite \"x\" {}\nvariable \"p\" { default = \"$.槽位[0\" }\n"
	tmpl := func(key string) string {
		return head + "template \"t\" {\n  text = \"查天气\"\n  expect = {\n    " + key + " = \"北京\"\n  }\n}\n"
	}
	tests := []struct {
		name, src string
		line, col int    // the subject's start
		under     string // the source text under the caret
		reason    string // in the detail
	}{
		{"unclosed bracket after a Chinese key", tmpl(`"$.槽位['城市'"`), 6, 10, "[", "unclosed bracket: add ']'"},
		{"unterminated quoted Chinese key", tmpl(`"$.槽位['城市]"`), 6, 11, "'城市]", "unterminated quoted key: add the closing '"},
		{"filter parenthesis left open", tmpl(`"$.entities[?(@.entity == '城市'].value"`), 6, 35, "]", "unclosed parenthesis: the filter's '(' is still open here; add ')' before ']'"},
		{"space in a Chinese key", tmpl(`"$.意图 名称"`), 6, 10, " ", "unexpected space: a key holding spaces is written in quotes"},
		{"after escaped quotes", tmpl(`"$.槽位[\"城市\"]x"`), 6, 18, "x", "unexpected character 'x'"},
		{"\\u escape before the mistake", tmpl(`"$.\u69fd位]"`), 6, 15, "]", "unexpected ']' with no '[' before it"},
		{"not an operator", tmpl(`"$.实体[?(@.类型 ~ '城市')]"`), 6, 18, "~", "'~' is not a filter operator: use ==, !="},
		{"ends too early", tmpl(`"$.意图."`), 6, 10, ".", "the path ends too early, after '.'"},
		{"not a number", tmpl(`"$.槽位[1:x]"`), 6, 13, "x", "expected a number, found 'x'"},
		{"not a literal: whole expression", tmpl(`(var.p)`), 6, 5, "(var.p)", "unclosed bracket: add ']' (at character 5)"},
		{"capture in a conversation", head + "conversation \"c\" {\n  turn {\n    user    = \"订单\"\n    capture = { 订单 = \"$.订单号['号码\" }\n  }\n}\n",
			6, 29, "'号码", "unterminated quoted key: add the closing '"},
		{"schema ignore list element", head + "schema \"s\" {\n  ignore = [\"$..segs\", \"$.调试[\"]\n}\n",
			4, 29, "[", "unclosed bracket: add ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"x" + FileSuffix: tt.src})
			s, diags := testLoad(dir, Options{})
			var bad []*hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Invalid JSONPath" {
					bad = append(bad, d)
				}
			}
			if len(bad) != 1 {
				t.Fatalf("want one Invalid JSONPath, got %v", diags)
			}
			d := bad[0]
			r := d.Subject
			if r.Start.Line != tt.line || r.Start.Column != tt.col {
				t.Errorf("at %d:%d, want %d:%d", r.Start.Line, r.Start.Column, tt.line, tt.col)
			}
			var src []byte
			if s != nil {
				src = s.Sources[r.Filename]
			}
			if src == nil {
				src = []byte(tt.src)
			}
			if got := string(src[r.Start.Byte:r.End.Byte]); got != tt.under {
				t.Errorf("caret under %q, want %q", got, tt.under)
			}
			if !strings.Contains(d.Detail, tt.reason) {
				t.Errorf("detail %q lacks %q", d.Detail, tt.reason)
			}
			if strings.Contains(d.Detail, " at ") && strings.Contains(d.Detail, " in $") {
				t.Errorf("detail repeats ojg's offset: %q", d.Detail)
			}
		})
	}
}
