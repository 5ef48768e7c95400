package sheet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// An agreement sheet as people fill it in a spreadsheet: a byte-order
// mark, headers in any case with spaces, a rubric column, rows not rated
// yet. The rating column is the first of those asked for that the header
// has; Keep drops the rows of other rubrics (rows naming no rubric stay).
func TestReadVerdicts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "人工评分.csv")
	src := "\ufeff ID ,Rubric,Score,备注\n问候/1,礼貌,4,很好\n问候/2,礼貌,,\n退订/1,准确,2,\n退订/2,,5\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := ReadVerdicts(path, []string{"verdict", "score"}, "rubric")
	if err != nil {
		t.Fatal(err)
	}
	if v.Column != "score" || v.Path != path {
		t.Errorf("column %q, path %q", v.Column, v.Path)
	}
	want := []VerdictRow{
		{ID: "问候/1", Rubric: "礼貌", Value: "4", Line: 2, Col: 9},
		{ID: "退订/1", Rubric: "准确", Value: "2", Line: 4, Col: 9},
		{ID: "退订/2", Value: "5", Line: 5, Col: 7},
	}
	if !reflect.DeepEqual(v.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", v.Rows, want)
	}
	v.Keep("礼貌")
	if len(v.Rows) != 2 || v.Rows[0].ID != "问候/1" || v.Rows[1].ID != "退订/2" {
		t.Errorf("Keep(礼貌) left %+v", v.Rows)
	}
}

// Every mistake names the file, line and column and says what to write.
func TestReadVerdictsMistakes(t *testing.T) {
	for _, c := range []struct{ sheet, want string }{
		{"编号,判定\n", `:1:1: the header row needs the columns id and verdict; it has ["编号" "判定"]`},
		{"", `:1:1: cannot read the header row (want the columns id and verdict)`},
		{"id,verdict\n,pass\n", `:2:1: the row has no id or no verdict`},
		{"id,verdict\nq1\n", `:2:1: the row has no id or no verdict`},
		{"id,verdict\nq1,pa\"ss\n", `:2:6: bare " in non-quoted-field; fix the row`},
		{"id,verdict\n问候/1,通\"过\n", `:2:7: bare " in non-quoted-field; fix the row`},
		{"id,verdict\n\"q1,pass\n", `: extraneous or missing " in quoted-field; fix the row`},
	} {
		path := filepath.Join(t.TempDir(), "判定.csv")
		if err := os.WriteFile(path, []byte(c.sheet), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadVerdicts(path, []string{"verdict"}, "")
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.sheet, err, c.want)
		}
	}
	if _, err := ReadVerdicts(filepath.Join(t.TempDir(), "无.csv"), []string{"verdict"}, ""); err == nil || !strings.Contains(err.Error(), "无.csv") {
		t.Errorf("a missing sheet: %v", err)
	}
}
