package dataset

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
)

// TestCheckDataEveryDataset: the rows of every dataset are read; a problem
// many rows share is one diagnostic naming them; a load with other errors
// reports the rows' problems too.
func TestCheckDataEveryDataset(t *testing.T) {
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
`,
		"qa.jsonl": `{"id": "1", "question": "你好"}
{"id": "2"}
[1]
{"id": "4"}
{"id": "1", "question": "又是一"}
{"id": "6"}
`,
		"more.csv": "id,question\n7,好\n8,坏,多\n",
	}
	want := []string{"Bad dataset row@qa.jsonl:2", "Dataset row is not an object@qa.jsonl:3", "Duplicate case id@qa.jsonl:5", "Invalid CSV row@more.csv:3"}
	s, diags := load(kindtest.WriteFiles(t, files))
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	got := s.CheckData()
	if strings.Join(kindtest.ErrorPlaces(got), " ") != strings.Join(want, " ") {
		t.Fatalf("CheckData: %v, want %v", kindtest.ErrorPlaces(got), want)
	}
	if d := got[0].Detail; !strings.Contains(d, `the row has no member "question"`) || !strings.HasSuffix(d, "2 more rows of "+s.CaseSources[0].(*datasetSource).path+" have the same problem (lines 4, 6).") {
		t.Errorf("the shared problem: %s", d)
	}
	files["s.nlutest.hcl"] += "threshold \"t\" { condition = metrics.accuracyy > 0 }\n"
	_, diags = load(kindtest.WriteFiles(t, files))
	if got := kindtest.ErrorPlaces(diags); strings.Join(got, " ") != strings.Join(append([]string{"Unknown metric@s.nlutest.hcl:12"}, want...), " ") {
		t.Errorf("load with another error: %v", got)
	}
}

// TestDatasetMistakesInOneBlock: a dataset whose file cannot be read is
// still checked for the rest of its mistakes, each reported once.
func TestDatasetMistakesInOneBlock(t *testing.T) {
	_, diags := load(kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": `materials "城市" { values = ["北京"] }

dataset "问答" {
  source = "无.jsonl"
  text   = row.q
  expect = { "$.intent[" = row.intent }
}`}))
	want := []string{"Cannot read dataset file@s.nlutest.hcl:4", "Invalid JSONPath@s.nlutest.hcl:6"}
	if got := kindtest.ErrorPlaces(diags); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("errors %v, want %v\n%v", got, want, diags)
	}
}
