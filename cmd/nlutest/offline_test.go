package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

const offlineSuite = suiteHeader + `
split "smoke" { where = case.level == "S1" }
threshold "冒烟" { condition = metrics.split.smoke.accuracy >= 0.7 }
threshold "意图" { condition = metrics.label.intent.accuracy >= 0.6 }
`

func copyRunDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func loadReport(t *testing.T, path string) *schema.Report {
	t.Helper()
	r, err := pipeline.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// comparable blanks what legitimately differs between two reports of the
// same results: where the run directory is.
func comparable(r *schema.Report) *schema.Report {
	c := *r
	c.Run.Dir, c.Run.ID = "", ""
	return &c
}

func TestEvalReproducesRunAndFollowsEdits(t *testing.T) {
	srv := fakeNLU(t)
	dir := writeSuite(t, offlineSuite)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", run)
	if code != ExitPass {
		t.Fatalf("run exit %d\n%s\n%s", code, out, errs)
	}
	orig := loadReport(t, run)

	// eval on a copy reproduces the report.
	cp := filepath.Join(t.TempDir(), "copy")
	copyRunDir(t, run, cp)
	code, evalOut, errs := runCLI(t, dir, nil, "eval", cp, "--var", "url=http://127.0.0.1:1")
	if code != ExitPass {
		t.Fatalf("eval exit %d\n%s", code, errs)
	}
	again := loadReport(t, cp)
	a, _ := json.Marshal(comparable(orig))
	b, _ := json.Marshal(comparable(again))
	if string(a) != string(b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Errorf("eval did not reproduce the run's report; first difference at byte %d:\nrun:  …%s…\neval: …%s…", i, a[max(0, i-80):min(len(a), i+80)], b[max(0, i-80):min(len(b), i+80)])
	}
	if !strings.Contains(evalOut, "PASS") {
		t.Errorf("eval prints the console report:\n%s", evalOut)
	}

	// Edit one expectation: only 查天气's cases and the metrics they feed change.
	edited := strings.Replace(offlineSuite, `"$.intent.name" = "查天气"`, `"$.intent.name" = "天气查询"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, dir, nil, "eval", cp, "--var", "url=x")
	if code != ExitFail {
		t.Fatalf("after the edit every 查天气 case fails, so the label threshold fails; exit %d\n%s", code, errs)
	}
	checkOnlyEditedTemplateFlips(t, orig, loadReport(t, cp))
	checkDiffAndListMetrics(t, dir, run, cp)
}

// checkOnlyEditedTemplateFlips: after the edit of 查天气's expectation,
// only 查天气's cases and the metrics they feed change.
func checkOnlyEditedTemplateFlips(t *testing.T, orig, after *schema.Report) {
	t.Helper()
	before := map[string]schema.Outcome{}
	for _, c := range orig.Cases {
		before[c.ID] = c.Outcome
	}
	for _, c := range after.Cases {
		changed := before[c.ID] != c.Outcome
		if c.Template == "查天气" && (!changed || c.Outcome != schema.Fail) {
			t.Errorf("查天气 case %s should now fail (was %s, is %s)", c.ID, before[c.ID], c.Outcome)
		}
		if c.Template != "查天气" && changed {
			t.Errorf("case %s of %s changed from %s to %s", c.ID, c.Template, before[c.ID], c.Outcome)
		}
	}
	if !reflect.DeepEqual(orig.Metrics.Template["订机票"].Accuracy, after.Metrics.Template["订机票"].Accuracy) {
		t.Errorf("订机票 metrics changed")
	}
	if orig.Metrics.Template["查天气"].Passed != 4 || after.Metrics.Template["查天气"].Passed != 0 {
		t.Errorf("查天气 passed %d → %d, want 4 → 0", orig.Metrics.Template["查天气"].Passed, after.Metrics.Template["查天气"].Passed)
	}
}

// checkDiffAndListMetrics runs diff, eval --baseline and --list-metrics on
// the run and its edited copy.
func checkDiffAndListMetrics(t *testing.T, dir, run, cp string) {
	t.Helper()
	// diff lists the flips and the deltas; Markdown against a baseline has a Δ.
	code, diffOut, _ := runCLI(t, dir, nil, "diff", run, cp)
	if code != 0 || !strings.Contains(diffOut, "4 cases got worse") || !strings.Contains(diffOut, "北京天气怎么样") ||
		!strings.Contains(diffOut, "metrics.accuracy") || !strings.Contains(diffOut, "意图: pass → fail") {
		t.Errorf("diff output:\n%s", diffOut)
	}
	md := filepath.Join(dir, "summary.md")
	code, _, errs := runCLI(t, dir, nil, "eval", cp, "--var", "url=x", "--baseline", run, "--report-markdown", md)
	if code != ExitFail {
		t.Fatalf("eval with baseline exit %d\n%s", code, errs)
	}
	mdb, _ := os.ReadFile(md)
	if !strings.Contains(string(mdb), "Δ") {
		t.Errorf("Markdown with --baseline has no Δ column:\n%s", mdb)
	}

	// --list-metrics prints addresses thresholds can use, with num/den.
	_, list, _ := runCLI(t, dir, nil, "eval", cp, "--var", "url=x", "--list-metrics")
	for _, want := range []string{"metrics.split.smoke.accuracy = 0.75 (3/4)", "metrics.label.intent.macro_f1 = ", `metrics.scene["出行/天气"].accuracy = 0 (0/4)`} {
		if !strings.Contains(list, want) {
			t.Errorf("--list-metrics lacks %q:\n%s", want, list)
		}
	}
}

func withoutLatency(m *schema.Metrics) string {
	strip := func(n *schema.Node) {
		if n != nil {
			n.Latency = nil
		}
	}
	strip(&m.Node)
	strip(m.Core)
	strip(m.Noncore)
	for _, g := range []map[string]*schema.Node{m.Split, m.Level, m.Scene, m.Template} {
		for _, n := range g {
			strip(n)
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	srv := fakeNLU(t)
	dir := writeSuite(t, offlineSuite)
	full := filepath.Join(dir, "full")
	if code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", full); code != ExitPass {
		t.Fatalf("unsharded run: %d\n%s", code, errs)
	}
	var shards []string
	total := 0
	for k := 1; k <= 3; k++ {
		d := filepath.Join(dir, "shard", string(rune('0'+k)))
		code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", d, "--shard", string(rune('0'+k))+"/3")
		if code != ExitPass && code != ExitFail {
			t.Fatalf("shard %d: %d\n%s", k, code, errs)
		}
		n := 0
		_ = runner.ReadResults(filepath.Join(d, runner.ResultsFile), func(*schema.Result) error { n++; return nil })
		total += n
		shards = append(shards, d)
	}
	if total != 8 {
		t.Fatalf("3 shards hold %d cases, want the 8 of the suite", total)
	}
	// merge is given the variable values the shards were run with: it
	// refuses others (the shards' run.json holds salted prints of them).
	merged := filepath.Join(dir, "merged")
	args := append([]string{"merge", "--out", merged, "--var", "url=" + srv.URL}, shards...)
	if code, _, errs := runCLI(t, dir, nil, args...); code != ExitPass {
		t.Fatalf("merge: %d\n%s", code, errs)
	}
	want := withoutLatency(loadReport(t, full).Metrics)
	got := withoutLatency(loadReport(t, merged).Metrics)
	if want != got {
		t.Errorf("merged metrics differ from the unsharded run:\nwant %s\ngot  %s", want, got)
	}
	if code, _, _ := runCLI(t, dir, nil, "run", dir, "--shard", "4/3", "--var", "url="+srv.URL); code != ExitInvalid {
		t.Errorf("--shard 4/3 should be a usage error")
	}
}

func TestMinConfidenceCountsAsFallback(t *testing.T) {
	srv := fakeNLU(t) // answers every intent with confidence 0.9
	strict := strings.Replace(offlineSuite, `schema = "rasa"`, `schema = "rasa-strict"`, 1) + `
schema "rasa-strict" {
  extends = "rasa"
  dimension "intent" {
    kind           = "label"
    path           = "$.intent.name"
    confidence     = "$.intent.confidence"
    min_confidence = 0.95
  }
}
`
	dir := writeSuite(t, strict)
	run := filepath.Join(dir, "run")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", run)
	if code != ExitFail {
		t.Fatalf("every prediction is below min_confidence, so the intent threshold fails; exit %d\n%s", code, errs)
	}
	l := loadReport(t, run).Metrics.Label["intent"]
	if l == nil || frac(l.Accuracy) != schema.R(0, 8) || l.Confusion == nil || l.Confusion.Labels[len(l.Confusion.Labels)-1] != "(none)" {
		t.Fatalf("predictions under min_confidence must count as no prediction: %+v", l)
	}
	if frac(l.Labels["订机票"].Recall) != schema.R(0, 4) {
		t.Errorf("recall of 订机票 = %+v, want 0/4", l.Labels["订机票"].Recall)
	}
	// extends keeps the preset's response type: a typo is still caught.
	bad := writeSuite(t, strings.Replace(strict, "response.intent.confidence > 0.5", "response.intnet.confidence > 0.5", 1))
	if code, _, errs := runCLI(t, bad, nil, "validate", bad, "--var", "url=x"); code != ExitInvalid || !strings.Contains(errs, `Did you mean "intent"?`) {
		t.Errorf("a schema extending rasa should check response.intnet: exit %d\n%s", code, errs)
	}
}

func TestInterruptWritesReportsAndExits130(t *testing.T) {
	g := newGate(t)
	srv := slowNLU(t, g)
	dir := writeSuite(t, resumeSuite(500))
	run := filepath.Join(dir, "run")
	// Interrupt once the service holds the run's 50th request, as a Ctrl-C
	// in the middle of a run would: the calls before it have answered
	// and the run cannot finish first, however fast or slow the machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := g.arm(50)
	go func() {
		select {
		case <-held:
		case <-time.After(hangLimit):
		}
		cancel()
	}()
	var out, errb strings.Builder
	app := &App{Stdout: &out, Stderr: &errb, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
	code := app.Run(ctx, []string{"run", dir, "--var", "url=" + srv.URL, "--out", run, "--report-junit", filepath.Join(dir, "junit.xml")})
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want 130\n%s", code, errb.String())
	}
	g.release()
	got := readRecorded(t, filepath.Join(run, runner.ResultsFile))
	rep := loadReport(t, run)
	if len(got) == 0 || len(got) >= 500 || rep.Metrics.Total != len(got) || !rep.Run.Interrupted {
		t.Errorf("interrupted run: %d results recorded, report total %d, interrupted %v", len(got), rep.Metrics.Total, rep.Run.Interrupted)
	}
	if !fileExists(filepath.Join(dir, "junit.xml")) {
		t.Errorf("the JUnit report was not written after the interrupt")
	}
	// And the rest can be resumed.
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--resume", run)
	if code != ExitFail && code != ExitPass {
		t.Fatalf("resume exit %d\n%s", code, errs)
	}
	if n := len(readRecorded(t, filepath.Join(run, runner.ResultsFile))); n != 500 {
		t.Errorf("after resuming, %d of 500 results", n)
	}
}

func TestUnreviewedTemplatesAreReportedApart(t *testing.T) {
	srv := fakeNLU(t)
	// 查天气's expectation is a wrong draft: every one of its 4 cases fails.
	draft := strings.Replace(offlineSuite, `"$.intent.name" = "查天气"`, `"$.intent.name" = "天气"`, 1)
	draft = strings.Replace(draft, `  level = "S2"`, "  level    = \"S2\"\n  reviewed = false", 1)
	draft = strings.Replace(draft, `threshold "意图" { condition = metrics.label.intent.accuracy >= 0.6 }`, `threshold "总体" { condition = metrics.accuracy >= 0.7 }`, 1)
	dir := writeSuite(t, draft)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", run)
	if code != ExitPass {
		t.Fatalf("the unreviewed template's failures must not reach the thresholds; exit %d\n%s\n%s", code, out, errs)
	}
	rep := loadReport(t, run)
	if rep.Metrics.Total != 4 || frac(rep.Metrics.Accuracy) != schema.R(3, 4) {
		t.Errorf("metrics should count only the 4 reviewed cases: total %d accuracy %+v", rep.Metrics.Total, rep.Metrics.Accuracy)
	}
	var draftGroup *schema.Group
	for i := range rep.Groups {
		if rep.Groups[i].Name == "查天气" {
			draftGroup = &rep.Groups[i]
		}
	}
	if draftGroup == nil || !draftGroup.Unreviewed || draftGroup.Failed != 4 {
		t.Errorf("the draft template is reported apart with its 4 failures: %+v", draftGroup)
	}
	if !strings.Contains(out, "(draft)") || !strings.Contains(strings.Join(rep.Warnings, " "), "--include-unreviewed") {
		t.Errorf("console marks the draft and the report warns:\n%s\n%v", out, rep.Warnings)
	}
	// With --include-unreviewed they count: 3 of 8 pass, the threshold fails.
	code, _, _ = runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", filepath.Join(dir, "run2"), "--include-unreviewed")
	if code != ExitFail {
		t.Errorf("--include-unreviewed: exit %d, want 1", code)
	}
}

// Minor 12 of the 2026-12-01 security audit: a malformed record gave exit
// 3 in merge and 2 in eval (and merge took a record without an id). A
// line that is not a result record is bad input for every command that
// reads a run: exit 2 with the file and line, and merge leaves nothing.
func TestBadRecordIsExit2Everywhere(t *testing.T) {
	dir := writeSuite(t, `
suite "坏记录" {}
target "demo" {
  demo {}
}
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
template "查天气" { text = "{城市}明天天气怎么样" }
`)
	shard := func(name, which string) string {
		out := filepath.Join(t.TempDir(), name)
		if code, _, errs := runCLI(t, dir, nil, "run", dir, "--shard", which, "--out", out, "--quiet"); code > ExitFail {
			t.Fatalf("shard %s: exit %d\n%s", which, code, errs)
		}
		return out
	}
	good := shard("一", "1/2")
	for _, bad := range []struct{ name, line, why string }{
		{"garbage", "垃圾 line", "want a JSON object"},
		{"no id", `{"text":"北京明天天气怎么样","outcome":"pass"}`, "record has no id"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			broken := shard("二", "2/2")
			results := filepath.Join(broken, runner.ResultsFile)
			b, err := os.ReadFile(results)
			if err != nil {
				t.Fatal(err)
			}
			line := bytes.Count(b, []byte("\n")) + 1
			if err := os.WriteFile(results, append(b, bad.line+"\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%s:%d: not a result record: %s", results, line, bad.why)
			merged := filepath.Join(t.TempDir(), "merged")
			for _, args := range [][]string{
				{"merge", "--out", merged, good, broken},
				{"eval", broken},
				{"run", "--resume", broken},
			} {
				code, _, errs := runCLI(t, dir, nil, args...)
				if code != ExitInvalid || !strings.Contains(errs, want) {
					t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q", args[0], code, errs, want)
				}
			}
			if fileExists(merged) {
				t.Errorf("a failed merge left %s", merged)
			}
		})
	}
}

// merge keeps every repetition of shards run with --repeat, keyed like
// eval and --resume (id and repetition): it kept one per case id, so two
// shards of 4 cases × 2 repetitions merged into 4 results, not 8.
func TestMergeKeepsRepetitions(t *testing.T) {
	dir := writeSuite(t, `
suite "重复" {}
target "demo" {
  demo {}
}
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
template "查天气" { text = "{城市}明天天气怎么样" }
`)
	var shards []string
	for _, k := range []string{"1/2", "2/2"} {
		out := filepath.Join(t.TempDir(), "shard")
		if code, _, errs := runCLI(t, dir, nil, "run", dir, "--repeat", "2", "--shard", k, "--out", out, "--quiet"); code > ExitFail {
			t.Fatalf("shard %s: exit %d\n%s", k, code, errs)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if code, _, errs := runCLI(t, dir, nil, append([]string{"merge", "--out", merged, "--quiet"}, shards...)...); code > ExitFail {
		t.Fatalf("merge: exit %d\n%s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(merged, runner.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 8 {
		t.Errorf("merged %d results, want 8 (4 cases × 2 repetitions)", n)
	}
	if rep := loadReport(t, merged); rep.Metrics.Total != 8 {
		t.Errorf("merged report counts %d results, want 8", rep.Metrics.Total)
	}
}
