package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ratingsRun runs testdata/ratings/suite.nlutest.hcl against the echo
// target in a fresh directory and returns the directory and the run.
func ratingsRun(t *testing.T) (dir, run string) {
	t.Helper()
	b, err := os.ReadFile("testdata/ratings/suite.nlutest.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir = writeSuite(t, string(b))
	run = filepath.Join(dir, "run")
	// No sheet yet: the run reports, the ratings thresholds cannot be checked.
	if code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "run", dir, "--out", run); code != ExitFail {
		t.Fatalf("run without sheets: exit %d, want 1\n%s\n%s", code, out, errs)
	}
	return dir, run
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\ufeff")) {
		t.Errorf("%s does not start with a UTF-8 byte order mark", path)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestRatingsRoundTrip: export a sheet from a run, fill it (the committed
// testdata/ratings/filled.csv and three.jsonl), import it with eval: the
// means and kappas are in the report and thresholds gate on them.
// Expected values are worked out by hand from the fixture: block 第一轮
// keeps 3 of 4 cases (the second's 拟人性 scores 2 and 4 differ by 2);
// 满意度 over the kept cases, R1 = 4 5 4 and R2 = 4 5 3: mean 25/6,
// Cohen's kappa 0.5, linear 0.5714, quadratic 0.6667 (scikit-learn's
// definitions); block 三人 (three raters): Fleiss' kappa 0.3077.
func TestRatingsRoundTrip(t *testing.T) {
	dir, run := ratingsRun(t)
	checkExport(t, dir, run)
	copyFile(t, "testdata/ratings/filled.csv", filepath.Join(dir, "sheet.csv"))
	copyFile(t, "testdata/ratings/three.jsonl", filepath.Join(dir, "three.jsonl"))
	rep := filepath.Join(dir, "report.json")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run, "--report-json", rep)
	if code != ExitPass {
		t.Fatalf("eval with filled sheets: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, `metrics.ratings["第一轮"].dimension[…]`) || !strings.Contains(out, "0.308") {
		t.Errorf("console report does not show the ratings:\n%s", out)
	}
	checkRatingsReport(t, rep)

	// A stricter threshold fails the verdict on the same sheets.
	suite := filepath.Join(dir, "suite.nlutest.hcl")
	src, _ := os.ReadFile(suite)
	if err := os.WriteFile(suite, bytes.Replace(src, []byte("cohen_kappa >= 0.3"), []byte("cohen_kappa >= 0.6"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run); code != ExitFail {
		t.Errorf("eval with cohen_kappa >= 0.6: exit %d, want 1\n%s\n%s", code, out, errs)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRatingsBadSheets: an unknown case id, a score outside the scale and
// a missing rater are diagnostics at the sheet's file and line (exit 2).
func TestRatingsBadSheets(t *testing.T) {
	dir, run := ratingsRun(t)
	copyFile(t, "testdata/ratings/three.jsonl", filepath.Join(dir, "three.jsonl"))
	good, err := os.ReadFile("testdata/ratings/filled.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	for _, tc := range []struct {
		name string
		edit func([]string) []string
		want []string
	}{
		{"unknown case", func(l []string) []string {
			l[3] = strings.Replace(l[3], "7dacbe6019c74cae", "0000000000000000", 1)
			return l
		},
			[]string{"sheet.csv:4:1:", "Unknown case id", "0000000000000000"}},
		{"outside the scale", func(l []string) []string { l[1] = strings.Replace(l[1], ",4,5,", ",6,5,", 1); return l },
			[]string{"sheet.csv:2:", "Score outside the scale", "满意度 = \"6\""}},
		{"missing rater", func(l []string) []string { return append(l[:4], l[5:]...) },
			[]string{"sheet.csv:4:1:", "Missing rater", "\"R2\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.edit(slicesClone(lines))
			if err := os.WriteFile(filepath.Join(dir, "sheet.csv"), []byte(strings.Join(l, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run)
			if code != ExitInvalid {
				t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// checkExport exports the run's sheet and checks it and its rubric
// against the committed filled sheet.
func checkExport(t *testing.T, dir, run string) {
	t.Helper()
	sheet := filepath.Join(dir, "sheet-export.csv")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "ratings", "export", run, "-o", sheet)
	if code != ExitPass || !strings.Contains(out, "4 cases × 2 raters") {
		t.Fatalf("ratings export: exit %d\n%s\n%s", code, out, errs)
	}
	exported := readCSVFile(t, sheet)
	filled := readCSVFile(t, "testdata/ratings/filled.csv")
	if len(exported) != 9 || strings.Join(exported[0], ",") != "case,rater,text,reply,满意度,拟人性,reply_sha" {
		t.Fatalf("exported sheet: %d rows, header %v", len(exported), exported[0])
	}
	// The fixture is the exported sheet with its score columns filled.
	for i := range exported {
		if strings.Join(exported[i][:4], "|") != strings.Join(filled[i][:4], "|") || exported[i][6] != filled[i][6] || (i > 0 && exported[i][4]+exported[i][5] != "") {
			t.Errorf("row %d: exported %v, fixture %v", i, exported[i], filled[i])
		}
	}
	rubric := readCSVFile(t, filepath.Join(dir, "sheet-export.rubric.csv"))
	if len(rubric) != 11 || rubric[1][0] != "满意度" || rubric[1][1] != "5" || !strings.Contains(rubric[1][2], "完美") || !strings.Contains(rubric[1][3], "Perfect") || !strings.Contains(rubric[6][4], "YD/T 4394.2-2023 表4") {
		t.Errorf("rubric: %v", rubric)
	}

}

// checkRatingsReport checks the figures of the JSON report at rep.
func checkRatingsReport(t *testing.T, rep string) {
	t.Helper()
	var r struct {
		Metrics struct {
			Ratings map[string]struct {
				Items, Raters, Kept int
				Dimension           map[string]map[string]*float64
			} `json:"ratings"`
		} `json:"metrics"`
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	first, three := r.Metrics.Ratings["第一轮"], r.Metrics.Ratings["三人"]
	if first.Items != 4 || first.Raters != 2 || first.Kept != 3 || three.Items != 4 || three.Raters != 3 || three.Kept != 4 {
		t.Fatalf("ratings counts: %+v %+v", first, three)
	}
	sat := first.Dimension["满意度"]
	for name, want := range map[string]float64{"mean": 25.0 / 6, "cohen_kappa": 0.5, "cohen_kappa_linear": 0.5714, "cohen_kappa_quadratic": 0.6667} {
		if sat[name] == nil || math.Abs(*sat[name]-want) > 5e-5 {
			t.Errorf("第一轮 满意度 %s = %v, want %.4f", name, sat[name], want)
		}
	}
	if sat["fleiss_kappa"] != nil {
		t.Errorf("two raters: fleiss_kappa = %v, want null", *sat["fleiss_kappa"])
	}
	if f := three.Dimension["满意度"]["fleiss_kappa"]; f == nil || math.Abs(*f-0.3077) > 5e-5 || three.Dimension["满意度"]["cohen_kappa"] != nil {
		t.Errorf("三人 满意度: %v", three.Dimension["满意度"])
	}

}

// TestChitchatRankingSuite runs suites/chitchat-ranking (replayed scores):
// at N = 4, MAP = (1 + 1 + 0.8333 + 1 + 1) / 5 — the third question ranks
// its grade-5 candidate third, behind the grade-4 and grade-3 ones; at
// N = 5 the two questions without a grade-5 candidate are dropped and
// counted, as Li, Zhang and Song's paper does.
func TestChitchatRankingSuite(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "run", filepath.Join("..", "..", "suites", "chitchat-ranking"), "--out", filepath.Join(dir, "run"), "--report-json", rep, "--quiet")
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errs)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	type figs struct {
		Questions, Dropped int
		MAP                struct{ Num, Den float64 } `json:"map"`
	}
	var r struct {
		Metrics struct {
			Ranking struct {
				figs
				PositiveGrade map[string]figs `json:"positive_grade"`
			} `json:"ranking"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	rk := r.Metrics.Ranking
	if rk.Questions != 5 || rk.Dropped != 0 || math.Abs(rk.MAP.Num-(4+5.0/6)) > 1e-9 || rk.MAP.Den != 5 {
		t.Errorf("N = 4: %+v", rk.figs)
	}
	if g := rk.PositiveGrade["5"]; g.Questions != 3 || g.Dropped != 2 {
		t.Errorf("N = 5: %+v", g)
	}
}

// TestRatingsUndefinedKappaGate: when both raters give every kept case the
// same 满意度 score, Cohen's kappa is not defined (scikit-learn's
// cohen_kappa_score returns nan: 1 − pₑ = 0) and is null in the report; a
// threshold on it is an error saying it has no data, not a pass on 0
// (before, "cohen_kappa >= 0" read 0 and passed: exit 0).
func TestRatingsUndefinedKappaGate(t *testing.T) {
	dir, run := ratingsRun(t)
	copyFile(t, "testdata/ratings/three.jsonl", filepath.Join(dir, "three.jsonl"))
	good, err := os.ReadFile("testdata/ratings/filled.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(good, []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "满意度")
	for _, r := range rows[1:] {
		r[col] = "4"
	}
	var sheet bytes.Buffer
	sheet.WriteString("\ufeff")
	w := csv.NewWriter(&sheet)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sheet.csv"), sheet.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "suite.nlutest.hcl")
	src, _ := os.ReadFile(suite)
	if err := os.WriteFile(suite, bytes.Replace(src, []byte("cohen_kappa >= 0.3"), []byte("cohen_kappa >= 0"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "report.json")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run, "--report-json", rep)
	if code != ExitFail || !strings.Contains(out+errs, "metrics.ratings.第一轮.dimension.满意度.cohen_kappa has no data") {
		t.Errorf("eval with an undefined kappa: exit %d, want 1 with \"… cohen_kappa has no data …\"\n%s\n%s", code, out, errs)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cohen_kappa":null`) && !strings.Contains(string(b), `"cohen_kappa": null`) {
		t.Errorf("report.json does not hold cohen_kappa null")
	}
}
