package diagfmt

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func rng(file string, line, col, byteAt, endCol, endByte int) *hcl.Range {
	return &hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col, Byte: byteAt}, End: hcl.Pos{Line: line, Column: endCol, Byte: endByte}}
}

// Write quotes the subject's source line with a caret line under the
// subject, aligned by display width under Chinese text and a tab, and the
// context's line when it is another; colour only tints the marks; a range
// known by line and column only (material files) is placed by column;
// control characters are shown escaped and long lines cut around the
// subject; a diagnostic without a line, a source or a subject prints what
// it has.
func TestWrite(t *testing.T) {
	// Line 2 starts at byte 18, its "查询" at 27; line 3 at 38, its "+ 1" at 68.
	suite := []byte("suite \"天气\" {}\ntemplate \"查询\" {\n  text = \"查询北京天气\"\t+ 1\n}\n")
	long := []byte("# 注释\n" + strings.Repeat("长", 70) + "\x1b[31m" + strings.Repeat("x", 90) + "\n")
	tests := []struct {
		name    string
		diags   hcl.Diagnostics
		sources map[string][]byte
		color   bool
		want    string
	}{
		{name: "Chinese before the subject, a tab, context on another line",
			diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported Operator", Detail: "文本不能加数字。",
				Subject: rng("a.nlu.hcl", 3, 17, 68, 20, 71), Context: rng("a.nlu.hcl", 2, 10, 27, 14, 35)}},
			sources: map[string][]byte{"a.nlu.hcl": suite},
			want: "Error: Unsupported Operator\n" +
				"\n" +
				"  on a.nlu.hcl:3:17:\n" +
				"  3 |   text = \"查询北京天气\" + 1\n" +
				"    |                         ^^^\n" +
				"\n" +
				"  also at a.nlu.hcl:2:10:\n" +
				"  2 | template \"查询\" {\n" +
				"    |          ^^^^^^\n" +
				"\n" +
				"文本不能加数字。\n" +
				"\n"},
		{name: "warning in colour",
			diags:   hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Unused Variable", Subject: rng("a.nlu.hcl", 2, 10, 27, 14, 35)}},
			sources: map[string][]byte{"a.nlu.hcl": suite}, color: true,
			want: "\x1b[1m\x1b[33mWarning:\x1b[0m \x1b[1mUnused Variable\x1b[0m\n" +
				"\n" +
				"  on a.nlu.hcl:2:10:\n" +
				"  2 | template \"查询\" {\n" +
				"    | \x1b[33m         ^^^^^^\x1b[0m\n" +
				"\n"},
		{name: "line and column only, a bell escaped",
			diags:   hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad Row", Detail: "Remove the control character.", Subject: rng("城市.tsv", 2, 6, 0, 7, 0)}},
			sources: map[string][]byte{"城市.tsv": []byte("城市\n上海\t北京\x07\n")},
			want: "Error: Bad Row\n" +
				"\n" +
				"  on 城市.tsv:2:6:\n" +
				"  2 | 上海 北京\\x07\n" +
				"    |          ^^^^\n" +
				"\n" +
				"Remove the control character.\n" +
				"\n"},
		{name: "long line cut, an escape sequence shown escaped",
			diags:   hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad Row", Subject: rng("长.txt", 2, 71, 0, 72, 0)}},
			sources: map[string][]byte{"长.txt": long},
			want: "Error: Bad Row\n" +
				"\n" +
				"  on 长.txt:2:71:\n" +
				"  2 | …" + strings.Repeat("长", 30) + "\\x1b[31m" + strings.Repeat("x", 52) + "…\n" +
				"    | " + strings.Repeat(" ", 61) + strings.Repeat("^", 61) + "\n" +
				"\n"},
		{name: "no line, no source, no subject",
			diags: hcl.Diagnostics{
				{Severity: hcl.DiagError, Summary: "Unreadable File", Detail: "Check the path.", Subject: &hcl.Range{Filename: "gone.csv"}},
				{Severity: hcl.DiagError, Summary: "Missing Source", Subject: rng("nowhere.nlu.hcl", 4, 2, 40, 3, 41)},
				{Severity: hcl.DiagError, Summary: "No Suite", Detail: "Write a suite block."},
			},
			want: "Error: Unreadable File\n" +
				"\n" +
				"  in gone.csv:\n" +
				"\n" +
				"Check the path.\n" +
				"\n" +
				"Error: Missing Source\n" +
				"\n" +
				"  on nowhere.nlu.hcl:4:2:\n" +
				"\n" +
				"Error: No Suite\n" +
				"\n" +
				"Write a suite block.\n" +
				"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			Write(&b, tt.diags, tt.sources, tt.color)
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// Text keeps only the errors, each summary with its detail, in order.
func TestText(t *testing.T) {
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Unknown variable", Detail: "There is no variable named \"城市\"."},
		{Severity: hcl.DiagWarning, Summary: "Deprecated", Detail: "ignored"},
		{Severity: hcl.DiagError, Summary: "Invalid JSONPath"},
	}
	want := `Unknown variable: There is no variable named "城市".; Invalid JSONPath`
	if got := Text(diags); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := Text(nil); got != "" {
		t.Errorf("Text(nil) = %q", got)
	}
}
