package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wrong answer in a text dataset is seen and can fail its case:
// suites/dataset-qa with min_f1 = 0.5 on its question-answering dataset
// fails the two cases below it — "Sydney" for Canberra (F1 0) and "There
// are seven continents." for seven (F1 0.4, SQuAD's rule) — each with a
// failure naming the score, the minimum and the attribute's line; every
// report lists the lowest-scoring cases (the console, Markdown and HTML
// from the same view, the JSON report in metrics.text.lowest). min_f1 on
// a dataset without references, and an unknown lowest_by, are
// diagnostics at file:line:col with exit 2.
func TestTextMinimumsAndLowestCases(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "dataset-qa"), dir)
	suite := filepath.Join(dir, "dataset-qa.nlutest.hcl")
	src, _ := os.ReadFile(suite)
	withMin := strings.Replace(string(src), "  references = row.answers\n", "  references = row.answers\n  min_f1     = 0.5\n", 1)
	if withMin == string(src) {
		t.Fatal("the suite's references line changed; update this test")
	}
	if err := os.WriteFile(suite, []byte(withMin), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	md := filepath.Join(dir, "report.md")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-markdown", md)
	if code != ExitPass {
		t.Fatalf("run: exit %d, want 0 (the thresholds decide)\n%s\n%s", code, out, errs)
	}
	r := readReportDoc(t, run)
	for id, want := range map[string]string{"en-05": "fail", "en-04": "fail", "en-03": "pass", "zh-02": "pass"} {
		if got := r.outcome(id); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	for _, want := range []string{"text: f1 0.0000 is below min_f1 = 0.5", "text: f1 0.4000 is below min_f1 = 0.5", "Lowest-scoring cases (by f1)", "en-05", "Canberra"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console report lacks %q", want)
		}
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "Lowest-scoring cases: the 10 cases with the lowest f1") || !strings.Contains(string(b), "Sydney") {
		t.Error("the Markdown report lists no lowest-scoring cases")
	}
	var text struct {
		LowestBy string `json:"lowest_by"`
		Lowest   []struct {
			ID    string
			Score float64
		}
	}
	reportFamily(t, run, "text", &text)
	if text.LowestBy != "f1" || len(text.Lowest) != 10 || text.Lowest[0].ID != "en-05" || text.Lowest[1].ID != "en-04" {
		t.Errorf("metrics.text.lowest: %+v", text)
	}

	noRefs := strings.Replace(string(src), "  expect = { \"$.intent.name\" = row.intent }\n", "  expect = { \"$.intent.name\" = row.intent }\n  min_f1 = 0.5\n", 1)
	if noRefs == string(src) {
		t.Fatal("the intent dataset changed; update this test")
	}
	if err := os.WriteFile(suite, []byte(noRefs), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, dir, nil, "validate", dir); code != ExitInvalid || !strings.Contains(errs, "Minimum without references") || !strings.Contains(errs, "dataset-qa.nlutest.hcl:") {
		t.Errorf("min_f1 without references: exit %d, want %d at file:line:col\n%s", code, ExitInvalid, errs)
	}
	tm := strings.Replace(string(src), "  smooth = \"exp\"\n", "  smooth = \"exp\"\n  lowest_by = \"rogueL\"\n", 1)
	if err := os.WriteFile(suite, []byte(tm), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, dir, nil, "validate", dir); code != ExitInvalid || !strings.Contains(errs, `Did you mean "rougeL"?`) {
		t.Errorf("lowest_by = \"rogueL\": exit %d\n%s", code, errs)
	}
}
