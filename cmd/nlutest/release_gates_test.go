package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// releaseFigure is a metric of report.json: a value with its fraction
// and interval.
type releaseFigure struct {
	Value, Num, Den float64
	CILow           *float64 `json:"ci_low"`
	CIHigh          *float64 `json:"ci_high"`
}

// releaseReport reads the parts of a report.json the release-gates tests
// check.
func releaseReport(t *testing.T, run string) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Metrics map[string]json.RawMessage }
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Metrics
}

func releaseField(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// TestReleaseGatesSuite runs suites/release-gates as its run.sh does and
// checks the figures counted by hand.
//
// Intervals. The suite's cases: 订机票, 查天气 and 订火车票 are 6 dates × 10
// cities = 60 each (strategy product), book-flight and weather 8 cities ×
// 5 days = 40 each, 冷门城市机票 6 dates × 3 cities the demo does not know
// = 18: 278 cases. The demo NLU as it is (degrade 0) passes every case but
// the 18 whose city it misses: accuracy 260/278 = 0.93525. The Wilson
// interval (z = 1.959964): centre (p + z²/2n) / (1 + z²/n) = 0.92932,
// half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n) = 0.02934, so
// [0.89998, 0.95865] — the ci_low the gate reads (≥ 0.7: met). Core
// cases (订机票, 查天气, book-flight, weather: 200) all pass: Wilson
// 200/200 has ci_low z²/(n + z²) below 1: 200/(200 + 3.8415) = 0.98115.
//
// Flaky cases (flaky/, --repeat 5, the demo with flaky = true: a close
// call answers its runner-up on repetitions 2 and 4). Scripts: 订机票 2
// dates × 2 cities = 4, 订票 2, book-ticket 1, 退订 2 = 9. 订机票 is a clear
// call (0.94): PPPPP ×4. 帮我订去{城市}的票 and "book a ticket to Paris"
// tie book_flight with book_train: PFPFP ×3, each 3 of 5, 4 flips. 我要退订…
// is book_flight every time: FFFFF ×2. So flaky 3, consistent failures
// 2, stable 4 + 2 = 6. pass@1 = (4·5 + 3·3 + 2·0)/45 = 29/45; pass@5 =
// scripts with a pass 7/9; pass^5 = scripts passing every time 4/9;
// pass@2 = Σ (C(5,2) − C(5−c,2)) / (9·10) = (4·10 + 3·(10 − 1) + 0)/90 =
// 67/90, pass^2 = Σ C(c,2) / 90 = (4·10 + 3·3)/90 = 49/90. For a planted
// flaky case alone (template 订票, 2 scripts): pass@1 6/10, pass^5 0/2.
//
// History. Runs 1–11 lose 3 % of the inputs (degrade 0.03, another seed
// each run), run 12 loses 15 %; the drift gate (window 10, max_drop
// 0.02, min_runs 3) has no data for runs 1–3, passes 4–11 and fails run
// 12, naming run 12 (label v12) as the run where accuracy changed; the
// floor (ci_low ≥ 0.7) still holds there, so the drift gate is what fails
// the run.
func TestReleaseGatesSuite(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "release-gates"), dir)

	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "intervals"))
	if code != ExitPass {
		t.Fatalf("intervals run: exit %d\n%s%s", code, out, errs)
	}
	m := releaseReport(t, filepath.Join(dir, "intervals"))
	var acc releaseFigure
	releaseField(t, m["accuracy"], &acc)
	if acc.Num != 260 || acc.Den != 278 || acc.CILow == nil || math.Abs(*acc.CILow-0.89998) > 5e-6 || math.Abs(*acc.CIHigh-0.95865) > 5e-6 {
		t.Errorf("accuracy %+v (ci %v, %v), want 260/278 [0.89998, 0.95865]", acc, deref(acc.CILow), deref(acc.CIHigh))
	}
	var core struct{ Accuracy releaseFigure }
	releaseField(t, m["core"], &core)
	if core.Accuracy.Num != 200 || core.Accuracy.Den != 200 || core.Accuracy.CILow == nil || math.Abs(*core.Accuracy.CILow-0.98115) > 5e-6 {
		t.Errorf("core accuracy %+v, want 200/200 with ci_low 0.98115", core.Accuracy)
	}
	for _, want := range []string{"✓  准确率     metrics.accuracy.ci_low >= 0.7        0.900", "0.935 (260/278) [0.900, 0.959]", "drift: no data: no history file"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console report lacks %q:\n%s", want, out)
		}
	}

	checkReleaseFlaky(t, dir)
	checkReleaseHistory(t, dir)
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// checkReleaseFlaky runs flaky/ under --repeat 5 and checks the hand
// counts of TestReleaseGatesSuite.
func checkReleaseFlaky(t *testing.T, dir string) {
	t.Helper()
	run := filepath.Join(dir, "flaky-run")
	code, out, errs := runCLI(t, dir, nil, "run", filepath.Join(dir, "flaky"), "--repeat", "5", "--out", run)
	if code != ExitPass {
		t.Fatalf("flaky run: exit %d\n%s%s", code, out, errs)
	}
	type repeatCase struct {
		Text, Outcomes        string
		Passed, Failed, Flips int
	}
	type repeat struct {
		Scripts, Stable, Flaky int
		ConsistentFailures     int           `json:"consistent_failures"`
		PassAt1                releaseFigure `json:"pass_at_1"`
		K                      map[string]struct {
			PassAt  releaseFigure `json:"pass_at"`
			PassAll releaseFigure `json:"pass_all"`
		}
		FlakyCases   []repeatCase `json:"flaky_cases"`
		FailingCases []repeatCase `json:"consistent_failure_cases"`
	}
	m := releaseReport(t, run)
	var r repeat
	releaseField(t, m["repeat"], &r)
	if r.Scripts != 9 || r.Stable != 6 || r.Flaky != 3 || r.ConsistentFailures != 2 {
		t.Errorf("scripts %d stable %d flaky %d consistent failures %d, want 9, 6, 3, 2", r.Scripts, r.Stable, r.Flaky, r.ConsistentFailures)
	}
	frac := func(f releaseFigure) string { return strconv.Itoa(int(f.Num)) + "/" + strconv.Itoa(int(f.Den)) }
	got := []string{frac(r.PassAt1), frac(r.K["2"].PassAt), frac(r.K["2"].PassAll), frac(r.K["5"].PassAt), frac(r.K["5"].PassAll)}
	if want := []string{"29/45", "67/90", "49/90", "7/9", "4/9"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pass@1, pass@2, pass^2, pass@5, pass^5 = %v, want %v", got, want)
	}
	var flaky []string
	for _, c := range r.FlakyCases {
		if c.Outcomes != "PFPFP" || c.Passed != 3 || c.Failed != 2 || c.Flips != 4 {
			t.Errorf("flaky case %+v, want PFPFP: 3 passed, 2 failed, 4 flips", c)
		}
		flaky = append(flaky, c.Text)
	}
	if want := "book a ticket to Paris|帮我订去上海的票|帮我订去北京的票"; !sameSet(flaky, want) {
		t.Errorf("flaky cases %q, want %s", flaky, want)
	}
	var failing []string
	for _, c := range r.FailingCases {
		if c.Outcomes != "FFFFF" {
			t.Errorf("consistent failure %+v, want FFFFF", c)
		}
		failing = append(failing, c.Text)
	}
	if !sameSet(failing, "我要退订上海的机票|我要退订北京的机票") {
		t.Errorf("consistent failures %q", failing)
	}
	var tmpl map[string]struct {
		Repeat repeat
	}
	releaseField(t, m["template"], &tmpl)
	if p := tmpl["订票"].Repeat; frac(p.PassAt1) != "6/10" || frac(p.K["5"].PassAll) != "0/2" || p.Flaky != 2 {
		t.Errorf("template 订票: pass@1 %s pass^5 %s flaky %d, want 6/10, 0/2, 2", frac(p.PassAt1), frac(p.K["5"].PassAll), p.Flaky)
	}
	if !strings.Contains(out, "Flaky (3 of 9)") || !strings.Contains(out, "Consistent failures (2 of 9)") || !strings.Contains(out, "✓  flaky      metrics.repeat.flaky <= 3") {
		t.Errorf("the console report does not list the flaky cases apart:\n%s", out)
	}
}

// sameSet reports whether got holds exactly the |-separated texts of want.
func sameSet(got []string, want string) bool {
	w := strings.Split(want, "|")
	if len(got) != len(w) {
		return false
	}
	seen := map[string]bool{}
	for _, s := range w {
		seen[s] = true
	}
	for _, s := range got {
		if !seen[s] {
			return false
		}
		delete(seen, s)
	}
	return true
}

// checkReleaseHistory records 12 runs with --history and checks the
// drift gate's answers (TestReleaseGatesSuite).
func checkReleaseHistory(t *testing.T, dir string) {
	t.Helper()
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var last string
	for i := 1; i <= 12; i++ {
		degrade, want := "0.03", ExitPass
		if i == 12 {
			degrade, want = "0.15", ExitFail
		}
		n := strconv.Itoa(i)
		code, out, errs := historyApp(t, dir, &clock, nil, "run", dir, "--var", "degrade="+degrade, "--var", "seed=v"+n,
			"--history", "h.db", "--label", "v"+n, "--out", filepath.Join(dir, "history", n))
		if code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s%s", i, code, want, out, errs)
		}
		switch {
		case i <= 3:
			if !strings.Contains(out, "drift: no data: the history holds "+strconv.Itoa(i-1)+" earlier run") {
				t.Errorf("run %d: the drift gate should have no data:\n%s", i, out)
			}
		case i <= 11:
			if !strings.Contains(out, "✓ 准确率: drift: no drift: accuracy") {
				t.Errorf("run %d: the drift gate should pass:\n%s", i, out)
			}
		}
		last = out
	}
	wantFail := `threshold "准确率": drift: accuracy fell from 0.908 (runs 2–11) to 0.795 at run 12 (label v12), the run where it changed`
	if !strings.Contains(last, wantFail) || !strings.Contains(last, "✓  核心") || !strings.Contains(last, "1/2 thresholds met") {
		t.Errorf("run 12 does not fail on the drift gate alone, naming run 12:\n%s", last)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "history", "12", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Thresholds []struct {
			Name    string
			Outcome string
			Value   float64
			History []struct {
				Points []struct{ Label string }
				Drift  struct{ Outcome, Text string }
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Thresholds) != 2 || len(rep.Thresholds[0].History) != 1 {
		t.Fatalf("report.json: %v %+v", err, rep)
	}
	if h := rep.Thresholds[0].History[0]; h.Drift.Outcome != "fail" || len(h.Points) != 12 || h.Points[11].Label != "v12" || !strings.Contains(h.Drift.Text, "at run 12 (label v12), the run where it changed") {
		t.Errorf("report.json's drift: %+v", h)
	}
	code, out, errs := historyApp(t, dir, &clock, nil, "history", "show", "--history", "h.db", "--metric", "metrics.accuracy")
	if code != ExitPass || !strings.Contains(out, "release-gates · demo metrics.accuracy") || !strings.Contains(out, "change of level at run 12 (v12") {
		t.Errorf("history show: exit %d\n%s%s", code, out, errs)
	}
}

// TestDemoQualityKnobsRefused: the demo target's degrade, seed and flaky
// belong to its rasa endpoint; elsewhere, or out of range, they are a
// located diagnostic (exit 2).
func TestDemoQualityKnobsRefused(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"demo {\n    endpoint = \"booking\"\n    flaky    = true\n  }", "t.nlutest.hcl:5:5:|Error: Quality knob of the rasa endpoint|the \"booking\" endpoint has no such knob. Remove flaky, or use endpoint = \"rasa\"."},
		{"demo {\n    degrade = 1.5\n  }", "t.nlutest.hcl:4:15:|Error: Value out of range|The \"degrade\" attribute must be between 0 and 1; it is 1.5."},
		{"demo {\n    seed = [\"订票\"]\n  }", "t.nlutest.hcl:4:12:|The \"seed\" attribute must be a string; this is a list."},
	} {
		dir := t.TempDir()
		suite := "suite \"s\" {}\ntarget \"t\" {\n  " + tc.block + "\n}\ntemplate \"订票\" {\n  text   = \"订票\"\n  expect = { \"$.intent.name\" = \"book_flight\" }\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "t.nlutest.hcl"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, dir, nil, "validate", dir)
		if code != ExitInvalid {
			t.Errorf("%s: exit %d, want 2\n%s%s", tc.block, code, out, errs)
		}
		for _, want := range strings.Split(tc.want, "|") {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: the diagnostic lacks %q:\n%s", tc.block, want, errs)
			}
		}
	}
}
