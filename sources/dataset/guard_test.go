package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// datasetErr generates the suite's cases and returns the diagnostic that
// stops them (nil when none does).
func datasetErr(t *testing.T, s *spec.Suite) *spec.DiagnosticError {
	t.Helper()
	err := s.Generate(spec.GenOptions{}, func(*schema.Case) error { return nil })
	if err == nil {
		return nil
	}
	var de *spec.DiagnosticError
	if !errors.As(err, &de) {
		t.Fatalf("error %v, want a DiagnosticError", err)
	}
	return de
}

// Issue 35 (audit 2026-12-05 m9): a dataset row that is not UTF-8, has a
// JSON object naming a member twice, nests Rasa annotations or repeats a
// CSV column is a diagnostic at its line and column naming the problem,
// never read as something else (a bad byte became U+FFFD, the last of two
// members won, [[nested](x)](y) became "[nested](y)").
func TestDatasetRowsRefusedWhereTheyAre(t *testing.T) {
	const jsonlSuite = `dataset "d" {
  source = "d.jsonl"
  text   = row.text
  expect = { "$.intent.name" = row.intent }
}`
	const csvSuite = `dataset "d" {
  source = "d.csv"
  text   = row.text
}`
	const rasaSuite = `dataset "d" { source = "nlu.yml" }`
	chinese := strings.Repeat("订一张明天去北京的机票，", 3000) // 108 KB of 3-byte characters: reads cut them
	for _, tc := range []struct {
		name, suite, file, data string
		summary                 string
		line, col               int
		detail                  []string
	}{
		{"JSONL byte not UTF-8 between Chinese", jsonlSuite, "d.jsonl",
			"{\"id\": \"q1\", \"text\": \"订一张去北京的机票\", \"intent\": \"book\"}\n{\"id\": \"q2\", \"text\": \"明天\xff\xfe天气\", \"intent\": \"ask\"}\n",
			"Not UTF-8 text", 2, 25, []string{"Line 2", "(0xff) at column 25", "byte offset 28 in the line, 98 in the file", `"text\": \"明天"`}},
		{"JSONL Chinese character cut short", jsonlSuite, "d.jsonl",
			"{\"text\": \"北\xe4\xba\", \"intent\": \"x\"}\n", "Not UTF-8 text", 1, 12, []string{"(0xe4) at column 12", "byte offset 13"}},
		{"CSV byte not UTF-8 after a record of two lines", csvSuite, "d.csv",
			"text,intent\n\"第一行\n第二行\",a\n上海\xff天气,b\n", "Not UTF-8 text", 4, 3, []string{"(0xff) at column 3", "byte offset 6 in the line, 42 in the file", `after "上海"`}},
		{"CSV byte not UTF-8 far into a file of Chinese", csvSuite, "d.csv",
			"text\n" + chinese + "\n" + chinese + "\n" + chinese[:300] + "\x80" + chinese[300:] + "\n", "Not UTF-8 text", 4, 101, []string{"(0x80) at column 101", "byte offset 300 in the line"}},
		{"CSV header not UTF-8 (UTF-16)", csvSuite, "d.csv", "\xff\xfet\x00e\x00x\x00t\x00\n\x00", "Not UTF-8 text", 1, 1, []string{"(0xff) at column 1"}},
		{"Rasa example not UTF-8", rasaSuite, "nlu.yml",
			"nlu:\n- intent: 订票\n  examples: |\n    - 去[北京](city)\n    - 去上\xc3海\n", "Not UTF-8 text", 5, 9, []string{"(0xc3) at column 9", `after "    - 去上"`}},
		{"duplicate member", jsonlSuite, "d.jsonl",
			"{\"text\": \"你好\", \"intent\": \"greet\"}\n{\"text\": \"一\", \"intent\": \"a\", \"text\": \"二\"}\n",
			"Duplicate member in dataset row", 2, 30, []string{`names the member "text" twice`}},
		{"duplicate member of a nested object", jsonlSuite, "d.jsonl",
			"{\"text\": \"你好\", \"intent\": \"greet\", \"meta\": [{\"城市\": \"北京\", \"城市\": \"上海\"}]}\n",
			"Duplicate member in dataset row", 1, 57, []string{`"城市" twice`}},
		{"nested Rasa annotation", rasaSuite, "nlu.yml",
			"nlu:\n- intent: x\n  examples: |\n    - [a](b)[c](d)[[nested](x)](y)\n", "Invalid entity annotation", 4, 1,
			[]string{`The annotation "[[nested](x)" holds another [`, `read "[nested" as the entity`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": tc.suite, tc.file: tc.data})
			s, diags := load(dir)
			var d = kindtest.FindDiag(diags, tc.summary)
			if s != nil && !diags.HasErrors() {
				de := datasetErr(t, s)
				if de == nil {
					cases, _ := genCases(t, s, spec.GenOptions{})
					t.Fatalf("no diagnostic; %d cases, the first %+v", len(cases), cases[0])
				}
				d = de.Diags[0]
			}
			if d == nil {
				t.Fatalf("diagnostics %v, want %q", diags, tc.summary)
			}
			if d.Summary != tc.summary || !strings.HasSuffix(d.Subject.Filename, tc.file) || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
				t.Errorf("%s:%d:%d %s, want %s:%d:%d %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, tc.file, tc.line, tc.col, tc.summary)
			}
			for _, want := range tc.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail lacks %q:\n%s", want, d.Detail)
				}
			}
		})
	}
	// Chinese text cut across reads, and Rasa annotations side by side,
	// are fine.
	s := genSuite(t, csvSuite, "d.csv", "text\n"+chinese+"\n\""+chinese+"\n"+chinese+"\"\n")
	if cases, _ := genCases(t, s, spec.GenOptions{}); len(cases) != 2 || cases[1].Text != chinese+"\n"+chinese {
		t.Errorf("%d cases of a file of Chinese text", len(cases))
	}
	s = genSuite(t, rasaSuite, "nlu.yml", "nlu:\n- intent: x\n  examples: |\n    - [a](b)[c](d) 和 [北京](city)\n")
	if cases, _ := genCases(t, s, spec.GenOptions{}); len(cases) != 1 || cases[0].Text != "ac 和 北京" {
		t.Errorf("annotations side by side: %+v", cases)
	}
}

// A CSV header naming a column twice is a diagnostic when the suite loads.
func TestDatasetCSVDuplicateColumn(t *testing.T) {
	dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": `dataset "d" {
  source = "d.csv"
  text   = row.问题
}`, "d.csv": "问题,意图,问题\n你好,greet,再见\n"})
	_, diags := load(dir)
	d := kindtest.FindDiag(diags, "Duplicate column")
	if d == nil || d.Subject.Start.Line != 1 || !strings.Contains(d.Detail, `the column "问题" twice (fields 1 and 3)`) {
		t.Errorf("diagnostics %v", diags)
	}
}

// A row longer than MaxDataRowBytes is refused at its line as soon as the
// reader has read that much of it, not after holding the whole line (a
// 200 MB line took 1 GB); a row just under the cap is read.
func TestDatasetRowTooLong(t *testing.T) {
	long := strings.Repeat("长", MaxDataRowBytes/3+10)
	for _, tc := range []struct {
		name, file, data string
		line             int
		what             string
	}{
		{"JSONL line", "d.jsonl", "{\"text\": \"短\"}\n{\"text\": \"" + long + long + "\"}\n", 2, "The line starting at line 2"},
		{"CSV quoted field over many lines", "d.csv", "text\n短\n\"" + strings.Repeat("长长长长长长长长\n", MaxDataRowBytes/25+10) + "\"\n", 3, "The CSV record starting at line 3"},
		{"Rasa line", "nlu.yml", "nlu:\n- intent: x\n  examples: |\n    - " + long + "\n", 4, "The line starting at line 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			suite := `dataset "d" {
  source = "` + tc.file + `"
  text   = row.text
}`
			if tc.file == "nlu.yml" {
				suite = `dataset "d" { source = "nlu.yml" }`
			}
			dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": suite, tc.file: tc.data})
			s, diags := load(dir)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			de := datasetErr(t, s)
			if de == nil || de.Diags[0].Summary != "Dataset row too long" || de.Diags[0].Subject.Start.Line != tc.line || !strings.Contains(de.Diags[0].Detail, tc.what) {
				t.Fatalf("error %v, want Dataset row too long at line %d", de, tc.line)
			}
		})
	}
	// The JSONL reader stops within the cap (and a read) of the line.
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte("{\"text\": \""+strings.Repeat(long, 3)+"\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds := &datasetSource{s: &spec.Suite{Access: spec.FileAccess{Dir: filepath.Dir(path)}}, path: path, format: "jsonl"}
	rd, err := ds.open()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.close()
	if _, err := rd.next(); err == nil || !strings.Contains(err.Error(), "Dataset row too long") {
		t.Fatalf("next: %v", err)
	}
	if r := rd.(*jsonlReader); r.off > MaxDataRowBytes+1<<17 || cap(r.buf) > 2*MaxDataRowBytes {
		t.Errorf("read %d bytes (buffer %d) of a %d-byte line before refusing it", r.off, cap(r.buf), 3*len(long))
	}
	// just under the cap is a row
	s := genSuite(t, `dataset "d" {
  source = "d.jsonl"
  text   = row.text
}`, "d.jsonl", "{\"text\": \""+long[:(MaxDataRowBytes-20)/3*3]+"\"}\n")
	if cases, _ := genCases(t, s, spec.GenOptions{}); len(cases) != 1 {
		t.Errorf("%d cases of a row under the cap", len(cases))
	}
}

// The rows refused for what they are (not UTF-8, too long, a member twice)
// are found with the other rows' problems in one pass (Suite.CheckData,
// docs/language.md "one pass"): the reading goes on after each, at the
// right line — after a JSONL line over the cap, after a CSV record with a
// bad byte anywhere in the file (one far past the reader's first buffer
// made the CSV reader fail again forever), and a bad byte in a row does
// not make the CSV header unreadable.
func TestDatasetGuardsInOnePass(t *testing.T) {
	long := strings.Repeat("长", MaxDataRowBytes/3+10)
	var csvRows strings.Builder
	csvRows.WriteString("id,question\n")
	for i := range 5000 { // 120 KB before the bad byte: past the first reads
		fmt.Fprintf(&csvRows, "c%d,订一张明天去北京的机票\n", i)
	}
	csvRows.WriteString("bad1,上海\xff天气\nc-ok,好\nbad2,\"两行\n第二\xe4行\"\nc-ok2,好的\nbad3,坏,多\n")
	files := map[string]string{
		"s.nlutest.hcl": `
dataset "问答" {
  source = "qa.jsonl"
  id     = row.id
  text   = row.question
}
dataset "更多" {
  source = "more.csv"
  id     = row.id
  text   = row.question
}
dataset "短" {
  source = "short.csv"
  id     = row.id
  text   = row.question
}
`,
		"qa.jsonl": `{"id": "1", "question": "你好"}
{"id": "2", "question": "` + long + `"}
{"id": "3", "question": "明天` + "\xff" + `"}
{"id": "4", "question": "一", "question": "二"}
{"id": "5"}
{"id": "6", "question": "` + long + `"}
{"id": "7", "question": "最后"}
`,
		"more.csv":  csvRows.String(),
		"short.csv": "id,question\ns1,北京\ns2,南\xff京\ns3,上海\n",
	}
	want := []string{
		"Dataset row too long@qa.jsonl:2", "Not UTF-8 text@qa.jsonl:3", "Duplicate member in dataset row@qa.jsonl:4", "Bad dataset row@qa.jsonl:5",
		"Not UTF-8 text@more.csv:5002", "Invalid CSV row@more.csv:5007",
		"Not UTF-8 text@short.csv:3",
	}
	dir := kindtest.WriteFiles(t, files)
	type loaded struct{ load, data hcl.Diagnostics }
	done := make(chan loaded, 1)
	go func() {
		s, diags := load(dir)
		if diags.HasErrors() {
			done <- loaded{load: diags}
			return
		}
		done <- loaded{data: s.CheckData()}
	}()
	var got hcl.Diagnostics
	select {
	case l := <-done:
		if l.load.HasErrors() {
			t.Fatalf("load: %v", l.load)
		}
		got = l.data
	case <-time.After(60 * time.Second):
		t.Fatal("the load or CheckData did not end")
	}
	if strings.Join(kindtest.ErrorPlaces(got), " ") != strings.Join(want, " ") {
		t.Fatalf("CheckData: %v, want %v", kindtest.ErrorPlaces(got), want)
	}
	for i, more := range map[int]string{0: "(line 6).", 4: "(line 5005)."} {
		if !strings.HasSuffix(got[i].Detail, more) {
			t.Errorf("%s: %s, want the other row %s", got[i].Summary, got[i].Detail, more)
		}
	}
	if d := got[4].Detail; !strings.Contains(d, `(0xff) at column 8 (byte offset 11 in the line, 198913 in the file), after "bad1,上海"`) {
		t.Errorf("the CSV row's byte: %s", d)
	}
}
