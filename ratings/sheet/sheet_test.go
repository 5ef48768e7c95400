package sheet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// sheetBlock is a ratings block of two Chinese dimensions reading the
// sheet text (CSV, or JSONL when name ends in .jsonl) from a temporary file.
func sheetBlock(t *testing.T, name, text string) *Ratings {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	format := "csv"
	if strings.HasSuffix(name, ".jsonl") {
		format = "jsonl"
	}
	return &Ratings{Name: "人工", Path: path, Format: format, Scale: 5, Dimensions: []string{"满意度", "专业性"}, KeepIfDiffAtMost: -1}
}

// testRun is a run of three cases (ids beginning with formula characters
// among them) whose replies have known digests; the suite also has 未跑.
var testRun = &Run{
	Replies: func() (map[string]string, error) {
		return map[string]string{"=SUM(1)": "sha256:aaaaaaaaaaaaaaaa", "-1": "sha256:bbbbbbbbbbbbbbbb", "你好": "sha256:cccccccccccccccc"}, nil
	},
	InSuite: func(id string) bool { return id == "未跑" },
}

// diagAt is a diagnostic as "line:col Summary".
func diagAt(d *hcl.Diagnostic) string {
	return fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
}

const sheetHead = "\ufeffcase,rater,text,reply,满意度,专业性,reply_sha\n"

// good rows of the three cases by two raters, as exported (neutralised
// cells), filled in.
const sheetRows = `'=SUM(1),R1,"'=HYPERLINK(""x"")",'=1+1,4,5,sha256:aaaaaaaaaaaaaaaa
'=SUM(1),R2,"'=HYPERLINK(""x"")",'=1+1,3,4,sha256:aaaaaaaaaaaaaaaa
'-1,R1,'@SUM(1+1),回复,5,5,sha256:bbbbbbbbbbbbbbbb
'-1,R2,'@SUM(1+1),回复,4,4,sha256:bbbbbbbbbbbbbbbb
你好,R1,你好,你好呀,3,3,sha256:cccccccccccccccc
你好,R2,你好,你好呀,3,2,sha256:cccccccccccccccc
`

// TestReadSheetErrors: each problem is an error at the sheet's line and
// (character) column, with a Title-Case summary.
func TestReadSheetErrors(t *testing.T) {
	lines := strings.Split(sheetRows, "\n")
	for _, tc := range []struct {
		name, sheet string
		want        []string
	}{
		{"header only", sheetHead, []string{"1:1 Empty rating sheet"}},
		{"header and empty rows", sheetHead + ",,,,,,\n , ,,,,,\n", []string{"1:1 Empty rating sheet"}},
		{"duplicate column", strings.Replace(sheetHead, "专业性", "专业性,专业性", 1) + strings.ReplaceAll(sheetRows, ",sha256", ",5,sha256"),
			[]string{"1:31 Duplicate column"}},
		{"missing column", strings.Replace(sheetHead, ",专业性", "", 1), []string{"1:1 Missing column"}},
		{"extra field", sheetHead + strings.Replace(sheetRows, "你好呀,3,2,sha256:cccccccccccccccc", "你好呀,3,2,sha256:cccccccccccccccc,多余", 1),
			[]string{"7:42 Extra field"}},
		{"score '-2", sheetHead + strings.Replace(sheetRows, "回复,4,4", "回复,'-2,4", 1), []string{"5:22 Score outside the scale"}},
		{"score -2", sheetHead + strings.Replace(sheetRows, "回复,4,4", "回复,-2,4", 1), []string{"5:22 Score outside the scale"}},
		{"score =4", sheetHead + strings.Replace(sheetRows, "回复,4,4", "回复,=4,4", 1), []string{"5:22 Score outside the scale"}},
		{"unknown case", sheetHead + strings.Replace(sheetRows, "你好,R2", "再见,R2", 1), []string{"7:1 Unknown case id"}},
		{"another reply", sheetHead + strings.ReplaceAll(sheetRows, "sha256:bbbbbbbbbbbbbbbb", "sha256:0000000000000000"),
			[]string{"4:26 Rated another reply", "5:26 Rated another reply"}},
		{"missing rater", sheetHead + lines[0] + "\n" + strings.Join(lines[2:], "\n"), []string{"2:1 Missing rater"}},
		{"duplicate rating", sheetHead + sheetRows + lines[4] + "\n", []string{"8:1 Duplicate rating"}},
		{"empty JSONL", "\n\n", []string{"1:1 Empty rating sheet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "sheet.csv"
			if strings.Contains(tc.name, "JSONL") {
				name = "sheet.jsonl"
			}
			rows, diags := Read(sheetBlock(t, name, tc.sheet), testRun)
			var got []string
			for _, d := range diags.Errs() {
				got = append(got, diagAt(d.(*hcl.Diagnostic)))
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("errors %q, want %q (rows %d)", got, tc.want, len(rows))
			}
			for _, d := range diags {
				if d.Subject == nil || !strings.HasSuffix(d.Subject.Filename, name) || d.Detail == "" || !strings.HasSuffix(d.Detail, ".") {
					t.Errorf("diagnostic %q: subject %v, detail %q", d.Summary, d.Subject, d.Detail)
				}
			}
		})
	}
}

// TestReadSheetRatedOtherReplies: past ten rows rating other replies, the
// rest are one diagnostic at the first row not listed.
func TestReadSheetRatedOtherReplies(t *testing.T) {
	var b strings.Builder
	b.WriteString(sheetHead)
	replies := map[string]string{}
	for i := range 14 {
		id := fmt.Sprintf("c%02d", i)
		replies[id] = "sha256:1111111111111111"
		fmt.Fprintf(&b, "%s,R1,t,r,4,4,sha256:2222222222222222\n", id)
	}
	run := &Run{Replies: func() (map[string]string, error) { return replies, nil }}
	_, diags := Read(sheetBlock(t, "sheet.csv", b.String()), run)
	errs := diags.Errs()
	if len(errs) != 11 || diagAt(errs[10].(*hcl.Diagnostic)) != "12:1 Rated another reply" || !strings.Contains(errs[10].(*hcl.Diagnostic).Detail, "4 more rows (14 in all") {
		t.Errorf("%d errors; last %v", len(errs), errs[len(errs)-1])
	}
}

// TestReadSheetJoinsTheRun: neutralised cells read back as exported; the
// run's cases not rated, rows of cases the suite has but the run did not
// call, and rows without reply_sha are warnings, the rows of the run kept.
func TestReadSheetJoinsTheRun(t *testing.T) {
	lines := strings.Split(sheetRows, "\n")
	for _, tc := range []struct {
		name, sheet string
		rows        int
		warnings    []string
	}{
		{"whole", sheetHead + sheetRows, 6, nil},
		{"one case", sheetHead + lines[4] + "\n" + lines[5] + "\n", 2,
			[]string{`ratings "人工" (PATH) rates 1 of the run's 3 cases; 2 are not rated (-1, =SUM(1)), so metrics.ratings["人工"] covers the 1 case rated only.`}},
		{"a case not run", sheetHead + sheetRows + "未跑,R1,t,r,4,4,sha256:dddddddddddddddd\n未跑,R2,t,r,4,4,sha256:dddddddddddddddd\n", 6,
			[]string{`ratings "人工" (PATH): 2 rows rate 1 case the suite has but this run did not call (a --shard, --filter, --split or --only-failed run, or one cut short); they are left out.`}},
		{"no reply_sha", strings.Replace(sheetHead, ",reply_sha", "", 1) + strings.NewReplacer(",sha256:aaaaaaaaaaaaaaaa", "", ",sha256:bbbbbbbbbbbbbbbb", "", ",sha256:cccccccccccccccc", "").Replace(sheetRows), 6,
			[]string{`ratings "人工" (PATH): 6 of its 6 rows of this run's cases do not say which reply they rated (no reply_sha column), so they are taken to rate this run's replies; the sheet nlutest ratings export writes records it in every row.`}},
		{"none of the run", sheetHead + "未跑,R1,t,r,4,4,\n", 0,
			[]string{`ratings "人工" (PATH) rates 0 of the run's 3 cases; 3 are not rated (-1, =SUM(1), 你好), so metrics.ratings["人工"] is absent.`,
				`ratings "人工" (PATH): 1 row rates 1 case the suite has but this run did not call (a --shard, --filter, --split or --only-failed run, or one cut short); they are left out.`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bl := sheetBlock(t, "sheet.csv", tc.sheet)
			rows, diags := Read(bl, testRun)
			if diags.HasErrors() {
				t.Fatalf("errors: %v", diags)
			}
			var warnings []string
			for _, d := range diags {
				warnings = append(warnings, strings.ReplaceAll(d.Detail, bl.Path, "PATH"))
			}
			if len(rows) != tc.rows || strings.Join(warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("%d rows, warnings:\n%s\nwant %d rows, warnings:\n%s", len(rows), strings.Join(warnings, "\n"), tc.rows, strings.Join(tc.warnings, "\n"))
			}
			if tc.name == "whole" && (rows[0].Case != "=SUM(1)" || rows[2].Case != "-1" || rows[0].Scores[0] != 4) {
				t.Errorf("rows %+v", rows)
			}
		})
	}
}

// TestReadSheetJSONLDigest: a JSONL sheet's reply_sha member is checked
// as the CSV column is.
func TestReadSheetJSONLDigest(t *testing.T) {
	sheet := `{"case": "你好", "rater": "甲", "scores": {"满意度": 4, "专业性": 4}, "reply_sha": "sha256:cccccccccccccccc"}
{"case": "-1", "rater": "甲", "scores": {"满意度": 4, "专业性": 4}, "reply_sha": "sha256:9999999999999999"}
`
	_, diags := Read(sheetBlock(t, "sheet.jsonl", sheet), testRun)
	errs := diags.Errs()
	if len(errs) != 1 || diagAt(errs[0].(*hcl.Diagnostic)) != "2:1 Rated another reply" {
		t.Errorf("errors %v", errs)
	}
}
