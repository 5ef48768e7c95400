package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/nlutest/nlutest/internal/csvcell"
)

// chatBot is a chat bot on 127.0.0.1 for the rating-sheet tests: it
// answers {"text": …} with {"answer": …}, the answer set for the text, else
// the text itself (so a formula sent is a formula answered).
type chatBot struct {
	mu      sync.Mutex
	answers map[string]string
}

func (b *chatBot) set(text, answer string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.answers[text] = answer
}

func startChatBot(t *testing.T) (*chatBot, *httptest.Server) {
	t.Helper()
	b := &chatBot{answers: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		answer, ok := b.answers[req.Text]
		b.mu.Unlock()
		if !ok {
			answer = req.Text
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"answer": answer})
	}))
	t.Cleanup(srv.Close)
	return b, srv
}

// The audit's formula payloads (2026-12-01, D), a Chinese utterance and
// ids that begin with formula characters.
const sheetData = `{"id": "=SUM(1)", "q": "=HYPERLINK(\"http://127.0.0.1:9/?x=\"&A1,\"click\")"}
{"id": "-1", "q": "=cmd|' /C calc'!A0"}
{"id": "@用户", "q": "+1+cmd|' /C calc'!A0"}
{"id": "q4", "q": "-2+3+cmd|' /C calc'!A0"}
{"id": "q5", "q": "@SUM(1+1)*cmd|' /C calc'!A0"}
{"id": "q6", "q": "\t=1+1"}
{"id": "q7", "q": "\r=1+1"}
{"id": "q8", "q": "帮我订一张明天去北京的机票"}
`

const sheetSuite = `suite "评分表" {}

variable "url" {
  default = "http://127.0.0.1:1"
}

target "bot" {
  http {
    url   = "${var.url}/chat"
    body  = jsonencode({ text = case.text })
    reply = response.answer
  }
}

dataset "问题" {
  source = "data.jsonl"
  id     = row.id
  text   = row.q
}

ratings "人工" {
  source     = "sheet.csv"
  dimensions = ["满意度", "专业性"]
  raters     = 2
}
`

// sheetRun writes the rating-sheet suite (with extra appended), runs it
// against bot with args and returns the directory and the run.
func sheetRun(t *testing.T, url, extra string, args ...string) (dir, run string) {
	t.Helper()
	dir = writeSuite(t, sheetSuite+extra)
	if err := os.WriteFile(filepath.Join(dir, "data.jsonl"), []byte(sheetData), 0o644); err != nil {
		t.Fatal(err)
	}
	run = filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, append([]string{"run", dir, "--var", "url=" + url, "--out", run}, args...)...)
	if code != ExitPass {
		t.Fatalf("run: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	return dir, run
}

// exportSheet exports run's sheet to dir/name and returns its rows.
func exportSheet(t *testing.T, dir, run, name string) [][]string {
	t.Helper()
	sheet := filepath.Join(dir, name)
	if code, out, errs := runCLI(t, dir, nil, "ratings", "export", run, "-o", sheet); code != ExitPass {
		t.Fatalf("ratings export: exit %d\n%s\n%s", code, out, errs)
	}
	return readCSVFile(t, sheet)
}

// fillSheet gives every row of an exported sheet the scores 4 and 5 (the
// exported cells kept as written) and writes it to dir/sheet.csv.
func fillSheet(t *testing.T, dir string, rows [][]string, edit func(row []string)) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\ufeff")
	w := csv.NewWriter(&b)
	for i, r := range rows {
		r = slices.Clone(r)
		if i > 0 {
			r[4], r[5] = "4", "5"
			if edit != nil {
				edit(r)
			}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := os.WriteFile(filepath.Join(dir, "sheet.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var formulaStart = []string{"=", "+", "-", "@", "\t", "\r", "\n"}

// TestRatingsSheetNeutralisesFormulas (2026-12-01 audit, D): no cell of
// the exported sheet, its rubric or generate --format csv begins with = +
// - @ TAB CR LF; such cells get a leading quote, and importing the filled
// sheet reads them back as written: ids beginning with = - @ join their
// cases, and a score '-2 is still a score outside the scale, at its line
// and column.
func TestRatingsSheetNeutralisesFormulas(t *testing.T) {
	_, srv := startChatBot(t)
	dir, run := sheetRun(t, srv.URL, "")
	rows := exportSheet(t, dir, run, "blank.csv")
	if len(rows) != 17 || strings.Join(rows[0], ",") != "case,rater,text,reply,满意度,专业性,reply_sha" {
		t.Fatalf("sheet: %d rows, header %q", len(rows), rows[0])
	}
	byID := map[string][]string{}
	for _, r := range rows[1:] {
		byID[r[0]] = r
	}
	for id, want := range map[string][2]string{
		"'=SUM(1)": {`'=HYPERLINK("http://127.0.0.1:9/?x="&A1,"click")`, `'=HYPERLINK("http://127.0.0.1:9/?x="&A1,"click")`},
		"'-1":      {`'=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`},
		"'@用户":     {`'+1+cmd|' /C calc'!A0`, `'+1+cmd|' /C calc'!A0`},
		"q4":       {`'-2+3+cmd|' /C calc'!A0`, `'-2+3+cmd|' /C calc'!A0`},
		"q5":       {`'@SUM(1+1)*cmd|' /C calc'!A0`, `'@SUM(1+1)*cmd|' /C calc'!A0`},
		"q6":       {"'\t=1+1", "'\t=1+1"},
		"q7":       {"'\r=1+1", "'\r=1+1"},
		"q8":       {"帮我订一张明天去北京的机票", "帮我订一张明天去北京的机票"},
	} {
		r := byID[id]
		if r == nil || r[2] != want[0] || r[3] != want[1] || !strings.HasPrefix(r[6], "sha256:") || len(r[6]) != 23 {
			t.Errorf("row of %q: %q, want text %q and reply %q", id, r, want[0], want[1])
		}
	}
	gen := filepath.Join(dir, "gen.csv")
	if code, _, errs := runCLI(t, dir, nil, "generate", dir, "--var", "url=x", "--format", "csv", "-o", gen); code != ExitPass {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	for _, f := range []string{filepath.Join(dir, "blank.csv"), filepath.Join(dir, "blank.rubric.csv"), gen} {
		b, _ := os.ReadFile(f)
		all, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range all {
			for _, c := range r {
				if c != "" && slices.Contains(formulaStart, c[:1]) {
					t.Errorf("%s: cell %q begins with a formula character", filepath.Base(f), c)
				}
				if strings.HasPrefix(c, "'") {
					n++
				}
			}
		}
		if f == gen && n != 10 { // 7 texts and the ids =SUM(1), -1, @用户
			t.Errorf("generate --format csv: %d neutralised cells, want 10", n)
		}
	}

	// Filled in as exported: the neutralised ids join their cases.
	fillSheet(t, dir, rows, nil)
	rep := filepath.Join(dir, "report.json")
	code, out, errs := runCLI(t, dir, nil, "eval", run, "--report-json", rep)
	if code != ExitPass || !strings.Contains(out, `metrics.ratings["人工"]`) {
		t.Fatalf("eval with the filled sheet: exit %d\n%s\n%s", code, out, errs)
	}
	if r := readRatings(t, rep); r.Items != 8 || len(r.Warnings) != 0 {
		t.Errorf("items %d, warnings %q; want 8 and none", r.Items, r.Warnings)
	}

	// '-2 in a score column reads back as -2: outside the scale, located.
	fillSheet(t, dir, rows, func(r []string) {
		if r[0] == "q8" && r[1] == "R2" {
			r[4] = "'-2"
		}
	})
	code, _, errs = runCLI(t, dir, nil, "eval", run)
	line := slices.IndexFunc(rows, func(r []string) bool { return r[0] == "q8" && r[1] == "R2" }) + 1
	if code != ExitInvalid || !strings.Contains(errs, "Score outside the scale") || !strings.Contains(errs, `满意度 = "-2" of case q8`) ||
		!strings.Contains(errs, "sheet.csv:"+strconv.Itoa(line)+":") {
		t.Errorf("score '-2: exit %d, want 2 with a located error at line %d\n%s", code, line, errs)
	}
}

// ratingsReport is what the tests read of a JSON report.
type ratingsReport struct {
	Items, Raters int
	Warnings      []string
}

func readRatings(t *testing.T, path string) ratingsReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Metrics struct {
			Ratings map[string]struct{ Items, Raters int } `json:"ratings"`
		} `json:"metrics"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	g := r.Metrics.Ratings["人工"]
	return ratingsReport{Items: g.Items, Raters: g.Raters, Warnings: r.Warnings}
}

// TestRatingsSheetOfAnotherRun (issue 24, item 12): a sheet records the
// digest of the replies it rated (reply_sha). Applied to a later run, the
// rows of cases whose reply is the same text are accepted; a row of a case
// whose reply changed is refused at its line and column, and past ten
// such rows the rest are counted in one more diagnostic.
func TestRatingsSheetOfAnotherRun(t *testing.T) {
	bot, srv := startChatBot(t)
	dir, run := sheetRun(t, srv.URL, "")
	rows := exportSheet(t, dir, run, "blank.csv")
	fillSheet(t, dir, rows, nil)

	// A later run, the same replies: the sheet applies.
	later := filepath.Join(dir, "later")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", later)
	if code != ExitPass || !strings.Contains(out, `metrics.ratings["人工"]`) {
		t.Fatalf("a later run with the same replies: exit %d\n%s\n%s", code, out, errs)
	}

	// The bot now answers 帮我订… otherwise: that case's rows are refused.
	bot.set("帮我订一张明天去北京的机票", "好的，已为您预订明天去北京的机票。")
	changed := filepath.Join(dir, "changed")
	code, out, errs = runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", changed)
	line := slices.IndexFunc(rows, func(r []string) bool { return r[0] == "q8" }) + 1
	b, _ := os.ReadFile(filepath.Join(dir, "sheet.csv"))
	lines := strings.Split(string(bytes.TrimPrefix(b, []byte("\ufeff"))), "\n")
	col := len([]rune(lines[line-1])) - len("sha256:0123456789abcdef") + 1
	where := "sheet.csv:" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ":"
	if code != ExitInvalid || !strings.Contains(errs, "Rated another reply") || !strings.Contains(errs, where) || strings.Count(errs, "Error: Rated another reply") != 2 ||
		!strings.Contains(errs, "nlutest eval "+shellQuote(changed)) {
		t.Errorf("a run whose reply to q8 changed: exit %d, want 2 with two errors, the first at %s\n%s\n%s", code, where, out, errs)
	}
	if code, _, errs := runCLI(t, dir, nil, "eval", run); code != ExitPass {
		t.Errorf("the sheet's own run no longer evaluates: exit %d\n%s", code, errs)
	}

	// Every reply changed: ten rows one by one, then one diagnostic for the rest.
	for _, r := range rows[1:] {
		bot.set(strings.TrimPrefix(r[2], "'"), "换了")
	}
	other := filepath.Join(dir, "other")
	code, _, errs = runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", other)
	if code != ExitInvalid || strings.Count(errs, "Error: Rated another reply") != 11 || !strings.Contains(errs, "6 more rows (16 in all") {
		t.Errorf("a run whose every reply changed: exit %d, want 2 with 11 errors\n%s", code, errs)
	}
}

// TestRatingsSubsetRun (issue 24, item 12): a --shard, --filter or
// --only-failed run rates the cases it has; the sheet's rows of the
// suite's other cases are left out and counted in the report's warnings,
// instead of calling the bot and then exiting 2 without a report.
func TestRatingsSubsetRun(t *testing.T) {
	bot, srv := startChatBot(t)
	extra := `
threshold "不是" {
  condition = metrics.accuracy >= 0
}
`
	dir, run := sheetRun(t, srv.URL, extra)
	fillSheet(t, dir, exportSheet(t, dir, run, "blank.csv"), nil)
	for _, tc := range []struct {
		name  string
		args  []string
		items int
		want  string
	}{
		{"shard 1/2", []string{"--shard", "1/2"}, 7, "2 rows rate 1 case the suite has but this run did not call"},
		{"shard 2/2", []string{"--shard", "2/2"}, 1, "14 rows rate 7 cases the suite has but this run did not call"},
		{"filter", []string{"--filter", "北京"}, 1, "14 rows rate 7 cases the suite has but this run did not call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			rep := filepath.Join(t.TempDir(), "report.json")
			code, stdout, errs := runCLI(t, dir, nil, append([]string{"run", dir, "--var", "url=" + srv.URL, "--out", out, "--report-json", rep}, tc.args...)...)
			if code != ExitPass || !strings.Contains(stdout, tc.want) {
				t.Fatalf("exit %d, want 0 and %q\n%s\n%s", code, tc.want, stdout, errs)
			}
			if r := readRatings(t, rep); r.Items != tc.items || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], tc.want) {
				t.Errorf("items %d, want %d; warnings %q", r.Items, tc.items, r.Warnings)
			}
		})
	}

	// --only-failed: the failing case of a run, run again, is rated alone.
	failing := strings.Replace(sheetSuite, `  text   = row.q
}`, `  text   = row.q
  assert { condition = reply != "坏" }
}`, 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(failing+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	bot.set("帮我订一张明天去北京的机票", "坏")
	if err := os.Remove(filepath.Join(dir, "sheet.csv")); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "first")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", first); code != ExitFail && code != ExitPass {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errs)
	}
	fillSheet(t, dir, exportSheet(t, dir, first, "blank2.csv"), nil)
	again := filepath.Join(dir, "again")
	rep := filepath.Join(dir, "again.json")
	code, out, errs := runCLI(t, dir, nil, "run", "--only-failed", first, "--var", "url="+srv.URL, "--out", again, "--report-json", rep)
	if code == ExitInvalid || code == ExitCannotRun {
		t.Fatalf("--only-failed: exit %d\n%s\n%s", code, out, errs)
	}
	if r := readRatings(t, rep); r.Items != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "14 rows rate 7 cases") {
		t.Errorf("--only-failed: items %d, warnings %q", r.Items, r.Warnings)
	}
}

// TestRatingsPartialSheets (2026-12-01 audit, minor 3): a sheet rating
// some of the run's cases warns in every report how many were rated and
// how many not; a sheet without reply_sha warns that nothing checks it; a
// header-only sheet, a row with an extra field and a duplicated column
// are errors at their line and column.
func TestRatingsPartialSheets(t *testing.T) {
	_, srv := startChatBot(t)
	dir, run := sheetRun(t, srv.URL, "")
	rows := exportSheet(t, dir, run, "blank.csv")
	// Cases q4 and q5 only (rows 4 sorted ids: -1, =SUM(1), @用户, q4, q5, …).
	var part [][]string
	for i, r := range rows {
		if i == 0 || r[0] == "q4" || r[0] == "q5" {
			part = append(part, r)
		}
	}
	fillSheet(t, dir, part, nil)
	reports := map[string]string{"--report-json": "r.json", "--report-markdown": "r.md", "--report-html": "r.html", "--report-junit": "r.xml"}
	args := []string{"eval", run}
	for flag, f := range reports {
		args = append(args, flag, filepath.Join(dir, f))
	}
	code, out, errs := runCLI(t, dir, nil, args...)
	const want = `rates 2 of the run's 8 cases; 6 are not rated (-1, =SUM(1), @用户, …), so metrics.ratings["人工"] covers the 2 cases rated only`
	if code != ExitPass || !strings.Contains(out, want) {
		t.Fatalf("eval of a partial sheet: exit %d, console lacks %q\n%s\n%s", code, want, out, errs)
	}
	for _, f := range reports {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		s := strings.NewReplacer("&#39;", "'", "&#x27;", "'", "&apos;", "'", "&#34;", `"`, "&quot;", `"`, "&amp;", "&", "&#61;", "=", `\u0026`, "&", `\"`, `"`, `\u003d`, "=").Replace(string(b))
		if !strings.Contains(s, "rates 2 of the run's 8 cases; 6 are not rated") {
			t.Errorf("%s does not warn of the 6 cases not rated", f)
		}
	}

	// Without reply_sha: a warning that nothing checks which replies were rated.
	noDigest := make([][]string, len(rows))
	for i, r := range rows {
		noDigest[i] = r[:6]
	}
	fillSheet(t, dir, noDigest, nil)
	rep := filepath.Join(dir, "r.json")
	if code, _, errs := runCLI(t, dir, nil, "eval", run, "--report-json", rep); code != ExitPass {
		t.Fatalf("eval without reply_sha: exit %d\n%s", code, errs)
	}
	if r := readRatings(t, rep); r.Items != 8 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "16 of its 16 rows of this run's cases do not say which reply they rated (no reply_sha column)") {
		t.Errorf("without reply_sha: items %d, warnings %q", r.Items, r.Warnings)
	}

	sheet := filepath.Join(dir, "sheet.csv")
	filled, _ := os.ReadFile(sheet)
	header, _, _ := strings.Cut(string(filled), "\n")
	for _, tc := range []struct {
		name, sheet string
		want        []string
	}{
		{"header only", header + "\n", []string{"sheet.csv:1:1:", "Empty rating sheet", "holds no ratings"}},
		{"header only, trailing empty rows", header + "\n,,,,,\n,,,,,\n", []string{"sheet.csv:1:1:", "Empty rating sheet"}},
		{"extra field", strings.Replace(string(filled), ",4,5\n", ",4,5,多余\n", 1), []string{"sheet.csv:2:", "Extra field", "The row has 7 fields and the header 6"}},
		{"duplicate column", strings.Replace(string(filled), "满意度,专业性", "满意度,专业性,专业性", 1), []string{"sheet.csv:1:31:", "Duplicate column", `column "专业性" twice (fields 6 and 7)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(sheet, []byte(tc.sheet), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, dir, nil, "eval", run)
			if code != ExitInvalid {
				t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Contains(errs, "Missing score") {
				t.Errorf("reported as a missing score:\n%s", errs)
			}
		})
	}
}

// TestRatingsExportPaths (2026-12-01 audit, minor 2): -o or --rubric naming
// a file of the run directory, or --rubric naming the sheet, is refused
// before anything is written; the sheet is written atomically, so an
// export that fails leaves the file it would have replaced as it was.
func TestRatingsExportPaths(t *testing.T) {
	_, srv := startChatBot(t)
	dir, run := sheetRun(t, srv.URL, "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"results", []string{"-o", filepath.Join(run, "results.jsonl")}, "sheet path " + filepath.Join(run, "results.jsonl") + " is a file of the run directory"},
		{"run.json", []string{"-o", filepath.Join(run, "run.json")}, "is a file of the run directory"},
		{"report.json", []string{"-o", filepath.Join(run, "report.json")}, "is a file of the run directory"},
		{"rubric over the results", []string{"-o", filepath.Join(dir, "s.csv"), "--rubric", filepath.Join(run, "results.jsonl")}, "is a file of the run directory"},
		{"rubric is the sheet", []string{"-o", filepath.Join(dir, "s.csv"), "--rubric", filepath.Join(dir, ".", "s.csv")}, "is the sheet -o"},
		{"a directory", []string{"-o", run}, "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, run)
			code, out, errs := runCLI(t, dir, nil, append([]string{"ratings", "export", run}, tc.args...)...)
			if code != ExitInvalid || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 2 with %q\n%s\n%s", code, tc.want, out, errs)
			}
			if after := snapshot(t, run); after != before {
				t.Errorf("the run directory changed")
			}
			if fileExists(filepath.Join(dir, "s.csv")) {
				t.Errorf("a sheet was written")
			}
		})
	}

	// A results file that does not read: the old sheet stays, no temporary file is left.
	sheet := filepath.Join(dir, "old.csv")
	if err := os.WriteFile(sheet, []byte("已填好的评分\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := os.ReadFile(filepath.Join(run, "run.json"))
	_ = os.WriteFile(filepath.Join(bad, "run.json"), meta, 0o644)
	_ = os.WriteFile(filepath.Join(bad, "results.jsonl"), []byte("{\"id\": \"a\"}\nnot json\n"), 0o644)
	code, _, errs := runCLI(t, dir, nil, "ratings", "export", bad, "-o", sheet)
	if code == ExitPass || !strings.Contains(errs, "results.jsonl:2") {
		t.Errorf("export of a bad results file: exit %d\n%s", code, errs)
	}
	if b, _ := os.ReadFile(sheet); string(b) != "已填好的评分\n" {
		t.Errorf("the old sheet was replaced: %q", b)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".old.csv.*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// snapshot is the names and contents of the files of dir.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		c, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "\x00" + string(c) + "\x00")
	}
	return b.String()
}

// TestRatingsExportBoundsCells (issue 24, item 10): a reply longer than a
// spreadsheet cell is cut to csvcell.MaxCell UTF-16 code units (an emoji
// counts two) ending with the marker, in every rater's row, and the
// digest still covers the whole reply: the sheet imports.
func TestRatingsExportBoundsCells(t *testing.T) {
	bot, srv := startChatBot(t)
	long := strings.Repeat("很长的回复😀", 20000) // 120,000 code units
	bot.set("帮我订一张明天去北京的机票", long)
	dir, run := sheetRun(t, srv.URL, "")
	rows := exportSheet(t, dir, run, "blank.csv")
	n := 0
	for _, r := range rows[1:] {
		if r[0] != "q8" {
			continue
		}
		n++
		if u := len(utf16.Encode([]rune(r[3]))); u != csvcell.MaxCell || !strings.HasSuffix(r[3], csvcell.Marker) || !strings.HasPrefix(r[3], "很长的回复😀很长") {
			t.Errorf("reply cell: %d code units, ends %q", u, r[3][len(r[3])-20:])
		}
	}
	if n != 2 {
		t.Fatalf("%d rows of q8, want 2", n)
	}
	fillSheet(t, dir, rows, nil)
	if code, out, errs := runCLI(t, dir, nil, "eval", run); code != ExitPass {
		t.Errorf("eval with the sheet of the cut reply: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestRatingsSheetConversation: a conversation is one item, keyed by its
// script id, its transcript in turn order; its reply_sha covers every
// turn, so a later run whose first turn is answered otherwise is refused.
func TestRatingsSheetConversation(t *testing.T) {
	bot, srv := startChatBot(t)
	conv := `
conversation "订票" {
  turn { user = "=1+1 你好" }
  turn { user = "订明天去上海的票" }
}
`
	dir, run := sheetRun(t, srv.URL, conv)
	rows := exportSheet(t, dir, run, "blank.csv")
	var c []string
	for _, r := range rows[1:] {
		if strings.Contains(r[2], "用户") {
			c = r
		}
	}
	if c == nil || c[2] != "1 用户: =1+1 你好\n1 助手: =1+1 你好\n2 用户: 订明天去上海的票\n2 助手: 订明天去上海的票" || c[3] != "订明天去上海的票" {
		t.Fatalf("conversation row: %q", c)
	}
	fillSheet(t, dir, rows, nil)
	if code, out, errs := runCLI(t, dir, nil, "eval", run); code != ExitPass {
		t.Fatalf("eval: exit %d\n%s\n%s", code, out, errs)
	}
	// The first turn's answer changes: the conversation's rows are refused.
	bot.set("=1+1 你好", "你好！")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", filepath.Join(dir, "later"))
	if code != ExitInvalid || strings.Count(errs, "Error: Rated another reply") != 2 || !strings.Contains(errs, "Case "+c[0]) {
		t.Errorf("a later run whose first turn changed: exit %d\n%s", code, errs)
	}
}
