package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// driftNLU answers 查天气 for every text but a share of them, chosen by a
// hash of the text and the run: errPerMille[run] of 1,000. The test sets
// run before each run.
type driftNLU struct {
	run         atomic.Int64
	errPerMille func(run int) uint32
}

func (d *driftNLU) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		run := int(d.run.Load())
		h := fnv.New32a()
		fmt.Fprintf(h, "%d/%s", run, req.Text)
		intent := "查天气"
		if h.Sum32()%1000 < d.errPerMille(run) {
			intent = "订机票"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"text": req.Text, "intent": map[string]any{"name": intent, "confidence": 0.9}, "entities": []any{}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// driftSuite is a suite of 400 weather questions against target 线上,
// gated on accuracy's lower bound, with a drift gate.
func driftSuite(t *testing.T, gate string) string {
	var cities []string
	for i := range 400 {
		cities = append(cities, strconv.Quote("城"+strconv.Itoa(i)))
	}
	return writeSuite(t, `suite "出行助手" { schema = "rasa" }
variable "url" {}
target "线上" {
  http {
    url  = "${var.url}/model/parse"
    body = jsonencode({ text = case.text })
  }
  concurrency = 4
}
materials "城市" { values = [`+strings.Join(cities, ", ")+`] }
template "查天气" {
  text   = "{城市}天气怎么样"
  expect = { "$.intent.name" = "查天气" }
}
threshold "准确率" {
  condition = metrics.accuracy.ci_low >= 0.6
`+gate+`
}
`)
}

// historyApp runs the CLI in-process with a clock that moves an hour a
// call, so runs finish in order.
func historyApp(t *testing.T, dir string, clock *time.Time, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &App{
		Stdout: &out, Stderr: &errb, Getwd: dir,
		Env:       func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Now:       func() time.Time { *clock = clock.Add(time.Minute); return *clock },
		ConfigDir: func() (string, error) { return filepath.Join(dir, ".userconfig"), nil },
	}
	code := app.Run(context.Background(), args)
	if s := errb.String() + out.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
		t.Fatalf("output holds a Go stack trace:\n%s", s)
	}
	return code, out.String(), errb.String()
}

// TestDriftGateEndToEnd is the acceptance: twelve runs of a
// suite against a service whose error rate goes from 8 % to 20 % at run
// 9. With run --history, runs 1–8 pass and runs 9–12 fail on the drift
// gate (their accuracy's lower bound still meets the threshold), the
// last naming run 9 and its label; the same twelve runs recorded
// afterwards with history add, then eval of run 12 with --history, fail
// the same way. history show prints the series with the change at run
// 9, list and remove work, and the HTML report draws the trend.
func TestDriftGateEndToEnd(t *testing.T) {
	nlu := &driftNLU{errPerMille: func(run int) uint32 {
		if run >= 9 {
			return 200
		}
		return 80
	}}
	srv := nlu.serve(t)
	dir := driftSuite(t, `  history {
    window   = 10
    max_drop = 0.02
  }`)
	env := map[string]string{"GITHUB_SHA": "0123456789abcdef0123"}
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var last string
	for run := 1; run <= 12; run++ {
		nlu.run.Store(int64(run))
		out := filepath.Join(dir, "runs", strconv.Itoa(run))
		args := []string{"run", dir, "--var", "url=" + srv.URL, "--out", out, "--history", "h.db", "--label", "v1." + strconv.Itoa(run), "--quiet"}
		if run == 12 {
			args = append(args, "--report-html", filepath.Join(dir, "r.html"))
		}
		code, stdout, stderr := historyApp(t, dir, &clock, env, args...)
		want := ExitPass
		if run >= 9 {
			want = ExitFail
		}
		if code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s%s", run, code, want, stdout, stderr)
		}
		if !strings.Contains(stderr, "history: recorded run "+strconv.Itoa(run)+" (v1."+strconv.Itoa(run)+`) of suite "出行助手", target "线上" in h.db: `+strconv.Itoa(run)+" run") {
			t.Errorf("run %d: stderr %s", run, stderr)
		}
		last = stdout
	}
	wantDrift := "drift: accuracy fell from 0.9"
	wantAt := "to 0.79"
	wantRun := "at run 9 (label v1.9, commit 0123456789ab), the run where it changed, and has stayed there to run 12"
	if !strings.Contains(last, wantDrift) || !strings.Contains(last, wantAt) || !strings.Contains(last, wantRun) || !strings.Contains(last, `threshold "准确率": drift:`) {
		t.Errorf("run 12's verdict does not name run 9:\n%s", last)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "runs", "12", "report.json"))
	var rep struct {
		Thresholds []struct {
			History []struct {
				Points []struct{ Label string }
				Drift  struct{ Outcome, Text string }
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Thresholds) != 1 || len(rep.Thresholds[0].History) != 1 {
		t.Fatalf("report.json: %v %+v", err, rep)
	}
	if h := rep.Thresholds[0].History[0]; h.Drift.Outcome != "fail" || len(h.Points) != 12 || h.Points[8].Label != "v1.9" || !strings.Contains(h.Drift.Text, wantRun) {
		t.Errorf("report.json's drift: %+v", h)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	if !bytes.Contains(html, []byte(`class="trend"`)) || !bytes.Contains(html, []byte("v1.9")) {
		t.Errorf("the HTML report has no trend chart")
	}

	// The same runs recorded afterwards, then run 12 evaluated again.
	for run := 1; run <= 12; run++ {
		code, _, stderr := historyApp(t, dir, &clock, nil, "history", "add", filepath.Join(dir, "runs", strconv.Itoa(run)), "--history", "h2.db", "--label", "发布-"+strconv.Itoa(run))
		if code != ExitPass {
			t.Fatalf("history add %d: exit %d: %s", run, code, stderr)
		}
	}
	code, stdout, stderr := historyApp(t, dir, &clock, nil, "eval", filepath.Join(dir, "runs", "12"), "--var", "url="+srv.URL, "--history", "h2.db", "--label", "发布-12", "--quiet")
	if code != ExitFail || !strings.Contains(stdout, "at run 9 (label 发布-9), the run where it changed") {
		t.Errorf("eval with the added history: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "history: replaced run 12 (发布-12)") {
		t.Errorf("eval did not replace run 12's record: %s", stderr)
	}

	code, stdout, stderr = historyApp(t, dir, &clock, nil, "history", "show", "--history", "h.db")
	if code != ExitPass || !strings.Contains(stdout, "metrics.accuracy") || !strings.Contains(stdout, "change of level at run 9 (v1.9, 0123456789ab") ||
		!strings.Contains(stdout, "slope over the last 12 runs") || !strings.Contains(stdout, "gated by threshold 准确率") && !strings.Contains(stdout, "出行助手 · 线上") {
		t.Errorf("history show: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = historyApp(t, dir, &clock, nil, "history", "show", "--history", "h.db", "--format", "json", "--last", "5", "--metric", "metrics.error_rate")
	var shown struct {
		Series []struct {
			Suite, Target string
			Metrics       []struct {
				Metric string
				Points []struct{ Run int }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &shown); code != ExitPass || err != nil || len(shown.Series) != 1 || shown.Series[0].Target != "线上" ||
		len(shown.Series[0].Metrics) != 1 || shown.Series[0].Metrics[0].Metric != "metrics.error_rate" || len(shown.Series[0].Metrics[0].Points) != 5 || shown.Series[0].Metrics[0].Points[0].Run != 8 {
		t.Errorf("history show --format json: exit %d %v\n%s", code, err, stdout)
	}
	code, stdout, _ = historyApp(t, dir, &clock, nil, "history", "list", "--history", "h.db", "--suite", "出行助手")
	if code != ExitPass || !strings.Contains(stdout, `suite "出行助手" target "线上": 12 runs`) || !strings.Contains(stdout, "label v1.12  commit 0123456789abcdef0123") {
		t.Errorf("history list: exit %d\n%s", code, stdout)
	}
	code, _, stderr = historyApp(t, dir, &clock, nil, "history", "remove", "--history", "h.db", "--run", "v1.12", "--run", "11")
	if code != ExitPass || !strings.Contains(stderr, "removed 2 runs") {
		t.Errorf("history remove: exit %d: %s", code, stderr)
	}
	code, _, stderr = historyApp(t, dir, &clock, nil, "history", "show", "--history", "h.db", "--target", "线下")
	if code != ExitInvalid || !strings.Contains(stderr, `no run of suite "" target "线下"; it holds suite "出行助手" target "线上"`) {
		t.Errorf("show of an unknown target: exit %d: %s", code, stderr)
	}
}

// TestDriftGateWithoutHistory: a run of a suite with a history block but
// without --history passes on its condition, and every report says the
// drift gate had no data.
func TestDriftGateWithoutHistory(t *testing.T) {
	nlu := &driftNLU{errPerMille: func(int) uint32 { return 50 }}
	srv := nlu.serve(t)
	dir := driftSuite(t, "  history { max_drop = 0.02 }")
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	md := filepath.Join(dir, "r.md")
	code, stdout, stderr := historyApp(t, dir, &clock, nil, "run", dir, "--var", "url="+srv.URL, "--out", filepath.Join(dir, "run"), "--report-markdown", md)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	m, _ := os.ReadFile(md)
	for name, s := range map[string]string{"console": stdout, "markdown": string(m)} {
		if !strings.Contains(s, "drift: no data: no history file") {
			t.Errorf("%s report does not say the drift gate had no data:\n%s", name, s)
		}
	}
}

// TestHistoryBadFiles: a history file that is not one (text, another
// program's data), or a directory, stops run before any call with exit
// 2 and the file's name; show of a missing file and history add of a
// directory without a report are exit 2 with what to do.
func TestHistoryBadFiles(t *testing.T) {
	calls := atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	t.Cleanup(srv.Close)
	dir := driftSuite(t, "")
	if err := os.WriteFile(filepath.Join(dir, "bad.db"), []byte("run,accuracy\n1,0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", dir, "--var", "url=" + srv.URL, "--history", "bad.db"}, "bad.db: not an nlutest history file"},
		{[]string{"run", dir, "--var", "url=" + srv.URL, "--history", "runs"}, "is a directory"},
		{[]string{"history", "show", "--history", "bad.db"}, "not an nlutest history file"},
		{[]string{"history", "show"}, "no such history file: record runs into it with nlutest history add"},
		{[]string{"history", "add", dir}, "report.json does not exist"},
		{[]string{"history", "add"}, "history add takes one or more run directories"},
		{[]string{"history", "show", "--format", "html"}, "--format takes text, markdown or json"},
		{[]string{"history", "show", "--metric", "accuracy"}, "starts with metrics."},
		{[]string{"history", "shwo"}, `unknown history command "shwo"`},
	} {
		if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := historyApp(t, dir, &clock, nil, c.args...)
		if code != ExitInvalid || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d; want 2 saying %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d calls made with a bad history file", n)
	}
}

// TestREADMEHistoryBlock: the README's drift gate, verbatim, validates in
// a suite, and so does the one in docs/language.md.
func TestREADMEHistoryBlock(t *testing.T) {
	for _, c := range []struct{ file, after string }{
		{"../../README.md", "**History and drift.**"},
		{"../../docs/language.md", "#### history"},
	} {
		raw, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(raw), c.after)
		if !ok {
			t.Fatalf("%s has no %q", c.file, c.after)
		}
		_, block, _ := strings.Cut(rest, "```hcl\n")
		block, _, _ = strings.Cut(block, "```\n")
		dir := writeSuite(t, `suite "s" { schema = "rasa" }
template "t" {
  text   = "北京天气"
  expect = { "$.intent.name" = "weather" }
}
`+block)
		if code, _, stderr := runCLI(t, dir, nil, "validate", dir); code != ExitPass {
			t.Errorf("%s's history block does not validate:\n%s\n%s", c.file, block, stderr)
		}
	}
}
