package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// Tests for the frictions a newcomer hit (issue 17); the scenarios
// run-resume-without-path, run-quiet-fail, run-only-failed, diff-fail-on-
// worse, run-cache-marked and init-then-run cover the others.

func progressApp(tty bool, term string) (*App, *bytes.Buffer) {
	var errb bytes.Buffer
	return &App{Stderr: &errb, StderrTTY: tty, Env: func(k string) (string, bool) {
		if k == "TERM" && term != "" {
			return term, true
		}
		return "", false
	}}, &errb
}

// fixedCount is a run of total cases, recorded of them before this
// session, left of them per source, without scenarios.
type fixedCount struct {
	total, recorded int
	left            map[string]int
}

func (f fixedCount) Recorded() int                { return f.recorded }
func (f fixedCount) Cases() int                   { return f.total }
func (f fixedCount) Open() bool                   { return false }
func (f fixedCount) Left() map[string]int         { return f.left }
func (f fixedCount) CaseDelta(*schema.Result) int { return 0 }

func result(source string, o schema.Outcome) *schema.Result {
	r := &schema.Result{Outcome: o}
	r.Template = source
	return r
}

// TestProgressLines (friction 2): the live line has pass/fail/error
// counts; TERM=dumb gets no escape sequences; without a terminal a status
// line comes every heartbeat while a large template runs; a resumed run
// counts from what was recorded before.
func TestProgressLines(t *testing.T) {
	a, errb := progressApp(true, "xterm")
	p := newProgress(a, fixedCount{3, 0, map[string]int{"t": 3}})
	p.done(result("t", schema.Pass))
	p.done(result("t", schema.Fail))
	p.done(result("t", schema.Error))
	if got := errb.String(); !strings.Contains(got, "\x1b[K[3/3] 1 passed · 1 failed · 1 errored") {
		t.Errorf("live line: %q", got)
	}

	a, errb = progressApp(true, "dumb")
	p = newProgress(a, fixedCount{2, 0, map[string]int{"t": 2}})
	p.done(result("t", schema.Pass))
	p.done(result("t", schema.Pass))
	p.finish()
	if got := errb.String(); strings.Contains(got, "\x1b") || !strings.Contains(got, "template t: 2 cases, 2 passed, 0 failed, 0 errored · 2/2 cases done") {
		t.Errorf("TERM=dumb: %q", got)
	}

	a, errb = progressApp(false, "")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p = newProgress(a, fixedCount{100_010, 10, map[string]int{"big": 100_000}})
	p.clock = func() time.Time { return now }
	p.start, p.last = now, now
	for i := 0; i < 30; i++ {
		now = now.Add(time.Second) // one case a second
		p.done(result("big", schema.Pass))
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("30 s of a large template gave %d status lines, want 3 (one each 10 s):\n%s", len(lines), errb.String())
	}
	if want := "[20/100010] 10 passed · 0 failed · 0 errored · 1.0/s · ETA 27h46m30s (resumed: 10 recorded before)"; lines[0] != want {
		t.Errorf("heartbeat line\n got %q\nwant %q", lines[0], want)
	}
}

// TestVerdictLineIsLast (friction 4): with stdout and stderr on one
// terminal, the verdict line is the last line, after the report paths.
func TestVerdictLineIsLast(t *testing.T) {
	dir := t.TempDir()
	var both bytes.Buffer
	app := &App{Stdout: &both, Stderr: &both, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
	code := app.Run(context.Background(), []string{"run", quickstartSuite(t),
		"--out", filepath.Join(dir, "run"), "--report-markdown", filepath.Join(dir, "s.md")})
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, both.String())
	}
	lines := strings.Split(strings.TrimRight(both.String(), "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS  quickstart: 3/3 thresholds met") {
		t.Errorf("the last line is %q, not the verdict line", last)
	}
}

// TestStepSummaryAppends (friction 6): --report-markdown "$GITHUB_STEP_SUMMARY"
// adds to what earlier steps wrote; other Markdown files are replaced.
// A PASS summary in a suite whose thresholds decide shows no ❌ (friction 5).
func TestStepSummaryAppends(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "step_summary.md")
	other := filepath.Join(dir, "other.md")
	for _, f := range []string{summary, other} {
		if err := os.WriteFile(f, []byte("# Earlier step\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
	code, _, errs := runCLI(t, dir, env, "run", quickstartSuite(t), "--out", filepath.Join(dir, "run"),
		"--report-markdown", summary, "--report-markdown", other, "--quiet")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	got, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(got), "# Earlier step\n## ✅ PASS") {
		t.Errorf("the step summary was not appended to:\n%.200s", got)
	}
	if strings.Contains(string(got), "❌") {
		t.Errorf("a PASS summary shows ❌ though the thresholds decide")
	}
	if !strings.Contains(errs, "markdown (appended) → "+summary) {
		t.Errorf("the report line does not say the summary was appended to: %s", errs)
	}
	if o, _ := os.ReadFile(other); strings.HasPrefix(string(o), "# Earlier step") {
		t.Errorf("a Markdown file other than the step summary was appended to")
	}
}

// TestCachedResultsMarked (friction 8): a run answered from the response
// cache says so in its reports, marks the cached cases, and leaves them out
// of the latency metrics (which then have no data).
func TestCachedResultsMarked(t *testing.T) {
	srv := fakeNLU(t)
	dir := writeSuite(t, suiteHeader)
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", first, "--cache", "--quiet")
	_, out, _ := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", second, "--cache",
		"--report-markdown", filepath.Join(dir, "s.md"), "--report-html", filepath.Join(dir, "s.html"))
	rep, err := pipeline.ReadReport(second)
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.Contains(w, "8 of 8 results came from the response cache")
	}
	if !warned {
		t.Errorf("no warning about cached results: %q", rep.Warnings)
	}
	if l := rep.Metrics.Latency; l != nil && l.Count > 0 {
		t.Errorf("cached results counted in latency: %+v", l.LatencyStats)
	}
	for _, c := range rep.Cases {
		if !c.Cached {
			t.Errorf("case %s is not marked cached", c.ID)
		}
	}
	for name, text := range map[string]string{"console": out, "markdown": readString(t, filepath.Join(dir, "s.md")), "html": readString(t, filepath.Join(dir, "s.html"))} {
		if !strings.Contains(text, "response cache") || !strings.Contains(text, "(cached)") {
			t.Errorf("the %s report does not mark the cached results", name)
		}
	}
	// The first run's report has no such warning.
	if rep, _ := pipeline.ReadReport(first); len(rep.Warnings) > 0 && strings.Contains(strings.Join(rep.Warnings, " "), "cache") {
		t.Errorf("the first run warns about the cache: %q", rep.Warnings)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeDemoAddrFile (friction 11): serve demo --addr 127.0.0.1:0
// --addr-file F writes the port it got, so a script can find the service.
func TestServeDemoAddrFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var out, errb bytes.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
	go func() { done <- app.Run(ctx, []string{"serve", "demo", "--addr", "127.0.0.1:0", "--addr-file", file}) }()
	var addr string
	for deadline := time.Now().Add(hangLimit); addr == "" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		if b, err := os.ReadFile(file); err == nil {
			addr = strings.TrimSpace(string(b))
		}
	}
	cancel()
	<-done
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("--addr-file holds %q, want 127.0.0.1:PORT", addr)
	}
}

// TestJUnitThresholdMessageAsWritten (friction 11): a failing threshold's
// JUnit message and the verdict's reason name the metric as the condition
// spells it — metrics.split.smoke.accuracy, not metrics.split["smoke"].
func TestJUnitThresholdMessageAsWritten(t *testing.T) {
	dir := writeSuite(t, `
suite "单" { schema = "rasa" }
target "demo" {
  demo {}
  concurrency = 1
}
materials "城市" { values = ["北京"] }
template "查天气" {
  text   = "{城市}明天天气怎么样"
  expect = { "$.intent.name" = "book_flight" }
}
split "smoke" { where = true }
threshold "冒烟" { condition = metrics.split.smoke.accuracy >= 0.5 }
`)
	junit := filepath.Join(t.TempDir(), "j.xml")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"), "--report-junit", junit)
	if code != ExitFail {
		t.Fatalf("exit %d\n%s%s", code, errs, out)
	}
	raw, _ := os.ReadFile(junit)
	xml := string(raw)
	if !strings.Contains(xml, `message="observed metrics.split.smoke.accuracy = 0.000 (0/1)`) || strings.Contains(xml, `split[&#34;smoke&#34;]`) {
		t.Errorf("JUnit does not spell the metric as the condition does:\n%s", xml)
	}
	if !strings.Contains(out, "metrics.split.smoke.accuracy") || strings.Contains(out, `split["smoke"]`) {
		t.Errorf("the console does not spell the metric as the condition does:\n%s", out)
	}
}

// TestFileErrorsInWords (friction 11: raw Go errors such as `stat
// /nonexist: …`): a missing path, a file where a directory belongs and a
// directory where a file belongs are said in words, with no Go operation
// name (stat, open, mkdir) and no errno text.
func TestFileErrorsInWords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join("..", "..", "suites", "quickstart")
	missing := filepath.Join(dir, "nonexist")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"validate", missing}, ExitInvalid, missing + " does not exist"},
		{[]string{"eval", missing}, ExitInvalid, missing + " is not a run directory"},
		{[]string{"eval", file}, ExitInvalid, file + " is a file, not a directory"},
		{[]string{"diff", missing, missing}, ExitInvalid, missing + " does not exist"},
		{[]string{"validate", suite, "--var-file", dir}, ExitInvalid, dir + " is a directory, not a file"},
		{[]string{"run", suite, "--out", filepath.Join(file, "run")}, ExitCannotRun, file + " is a file, not a directory"},
		{[]string{"run", suite, "--out", filepath.Join(dir, "r"), "--report-json", filepath.Join(file, "x.json")}, ExitInvalid, file + " is a file, not a directory"},
		{[]string{"init", filepath.Join(file, "new")}, ExitCannotRun, file + " is a file, not a directory"},
		{[]string{"memory", "agreement", missing, "--ratings", filepath.Join(dir, "none.csv")}, ExitInvalid, missing + " is not a run directory"},
	}
	raw := regexp.MustCompile(`\b(stat|open|mkdir|lstat|read) /|no such file or directory|: not a directory|file already exists|: is a directory`)
	for _, tt := range tests {
		code, out, errs := runCLI(t, dir, nil, tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, code, tt.code, errs)
		}
		if raw.MatchString(errs + out) {
			t.Errorf("%v: a raw Go error:\n%s", tt.args, errs)
		}
		if !strings.Contains(errs, tt.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", tt.args, tt.want, errs)
		}
	}
}

// TestVersionEmbedsBuild (friction 11: `nlutest version` printed dev):
// the module version `go install …@v` records, else the commit `go
// build` in a checkout embeds; "dev" only without either (go run, tests,
// -buildvcs=false).
func TestVersionEmbedsBuild(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
	}
	tests := []struct {
		link string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "v1.4.0"},
		{"dev", vcs("8f22e854cf06b80b03d1c6fd67e1c366334726a7", "false"), true, "dev-8f22e854cf06"},
		{"dev", vcs("8f22e854cf06b80b03d1c6fd67e1c366334726a7", "true"), true, "dev-8f22e854cf06-dirty"},
		{"v2.0.0", vcs("8f22e854cf06", "true"), true, "v2.0.0"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
		{"dev", nil, false, "dev"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.link, tt.bi, tt.ok); got != tt.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tt.link, tt.bi, got, tt.want)
		}
	}
}

// TestPolishLines (friction 11): one of everything is singular in the
// validate line, which starts with the verdict, not the path; `run -h`
// says --var-file reads JSON too.
func TestPolishLines(t *testing.T) {
	dir := writeSuite(t, `
suite "单" { schema = "rasa" }
target "demo" {
  demo {}
}
materials "城市" { values = ["北京"] }
template "查天气" {
  text   = "{城市}明天天气怎么样"
  expect = { "$.intent.name" = "check_weather" }
}
threshold "准确率" { condition = metrics.accuracy >= 0.9 }
`)
	code, out, errs := runCLI(t, dir, nil, "validate", dir)
	want := `✓ suite "单" is valid: 1 file, 1 template, 1 material, 1 case, 1 threshold (` + dir + ").\n"
	if code != ExitPass || out != want {
		t.Errorf("validate: exit %d\n got %q\nwant %q\n%s", code, out, want, errs)
	}
	_, out, errs = runCLI(t, dir, nil, "run", "-h")
	if help := out + errs; !strings.Contains(help, "HCL NAME = VALUE lines, or a JSON object when it ends in .json") {
		t.Errorf("run -h does not say --var-file reads JSON:\n%s", help)
	}
}
