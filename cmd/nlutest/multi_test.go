package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
)

// disagreeingDemo is the demo NLU on 127.0.0.1 with two changes, so it
// disagrees with the embedded demo on 12 of the quickstart's 30 cases: it
// reads weather questions (天气) as nlu_fallback — the 6 查天气 cases fail,
// and with them the smoke split — and reads 退订 as cancel_booking, where
// the demo reads a booking — the 6 退订 cases pass.
func disagreeingDemo(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		res := demo.Parse(req.Text)
		b, _ := json.Marshal(res)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		switch {
		case strings.Contains(req.Text, "天气"):
			out["intent"] = map[string]any{"name": "nlu_fallback", "confidence": 0.3}
		case strings.Contains(req.Text, "退订"):
			out["intent"] = map[string]any{"name": "cancel_booking", "confidence": 0.9}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// quickstartTwoTargets is the quickstart suite with a second target, an
// http target calling url; targets, when set, is the suite's targets list.
func quickstartTwoTargets(t *testing.T, url, targets string) string {
	// quickstartSource relaxes the latency gate: it is the machine's, not
	// the targets', and must not decide this test on a loaded machine.
	s := strings.Replace(quickstartSource(t), `schema      = "rasa"`, `schema      = "rasa"`+targets, 1)
	s = strings.Replace(s, "materials \"城市\" {", `target "候选" {
  http {
    url  = "`+url+`/model/parse"
    body = jsonencode({ text = case.text })
  }
  concurrency = 4
}

materials "城市" {`, 1)
	return writeSuite(t, s)
}

// TestTwoTargetsSideBySide (issue 28 item 4): the quickstart against the
// embedded demo and a candidate that disagrees on 12 cases: each target is
// an ordinary run in DIR/TARGET, the comparison lists the 12 differing
// cases first (hand-counted: 6 查天气 the candidate fails, 6 退订 it
// passes), shows both targets' verdicts and metrics side by side in the
// console, Markdown, HTML, JSON and JUnit (testsuites quickstart@demo and
// quickstart@候选), and exits 1 because the candidate's smoke gate fails
// (14/20). The suite's targets list does the same without --target.
func TestTwoTargetsSideBySide(t *testing.T) {
	srv := disagreeingDemo(t)
	for _, form := range []string{"flags", "suite targets"} {
		t.Run(form, func(t *testing.T) {
			args := []string{"--target", "demo", "--target", "候选"}
			targets := ""
			if form == "suite targets" {
				args, targets = nil, "\n  targets     = [\"demo\", \"候选\"]"
			}
			dir := quickstartTwoTargets(t, srv.URL, targets)
			out := filepath.Join(dir, "run")
			files := map[string]string{"markdown": filepath.Join(dir, "c.md"), "html": filepath.Join(dir, "c.html"), "junit": filepath.Join(dir, "c.xml"), "json": filepath.Join(dir, "c.json")}
			cmd := append([]string{"run", dir, "--out", out, "--color", "never"}, args...)
			for k, p := range files {
				cmd = append(cmd, "--report-"+k, p)
			}
			code, stdout, errs := runCLI(t, dir, nil, cmd...)
			if code != ExitFail {
				t.Fatalf("exit %d, want 1 (the candidate's smoke gate fails)\n%s\n%s", code, errs, stdout)
			}
			checkComparison(t, out, files["json"])
			checkComparisonRenders(t, stdout, files)
			for _, target := range []string{"demo", "候选"} {
				rep, err := pipeline.ReadReport(filepath.Join(out, target))
				if err != nil {
					t.Fatalf("target %s has no run of its own: %v", target, err)
				}
				if rep.Run.Target != target || rep.Metrics.Total != 30 {
					t.Errorf("%s/report.json: target %q, %d cases", target, rep.Run.Target, rep.Metrics.Total)
				}
			}
			// Each target's directory is an ordinary run: eval reads it.
			if code, _, errs := runCLI(t, dir, nil, "eval", filepath.Join(out, "候选"), "--quiet"); code != ExitFail {
				t.Errorf("eval of the candidate's run: exit %d, want 1\n%s", code, errs)
			}
		})
	}
}

// checkComparison checks comparison.json's counts and order: 12 differing
// cases first, then the 18 others.
func checkComparison(t *testing.T, out, reportJSON string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	if other, _ := os.ReadFile(reportJSON); string(other) != string(raw) {
		t.Errorf("--report-json is not the comparison written to comparison.json")
	}
	var c schema.Comparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if c.Kind != "comparison" || len(c.Targets) != 2 || c.Targets[0].Name != "demo" || c.Targets[1].Name != "候选" {
		t.Fatalf("targets %+v", c.Targets)
	}
	if c.Outcome != schema.Fail || c.Targets[0].Verdict.Outcome != schema.Pass || c.Targets[1].Verdict.Outcome != schema.Fail {
		t.Errorf("outcomes: comparison %s, demo %s, 候选 %s", c.Outcome, c.Targets[0].Verdict.Outcome, c.Targets[1].Verdict.Outcome)
	}
	if c.Targets[0].Passed != 21 || c.Targets[1].Passed != 21 {
		t.Errorf("passed: demo %d, 候选 %d, want 21 and 21", c.Targets[0].Passed, c.Targets[1].Passed)
	}
	if c.Differing != 12 || len(c.Cases) != 30 {
		t.Fatalf("%d of %d cases differ, want 12 of 30", c.Differing, len(c.Cases))
	}
	bySource := map[string][2]schema.Outcome{}
	for i, cc := range c.Cases {
		if cc.Differs != (i < 12) {
			t.Fatalf("case %d (%s %s) differs=%v: the differing cases do not come first", i, cc.Source, cc.Text, cc.Differs)
		}
		if cc.Differs {
			bySource[cc.Source] = [2]schema.Outcome{cc.Outcomes[0], cc.Outcomes[1]}
		}
	}
	if bySource["查天气"] != [2]schema.Outcome{schema.Pass, schema.Fail} || bySource["退订"] != [2]schema.Outcome{schema.Fail, schema.Pass} || len(bySource) != 2 {
		t.Errorf("differing cases by source: %v", bySource)
	}
	var smoke *schema.ComparedThreshold
	for i := range c.Thresholds {
		if c.Thresholds[i].Name == "smoke" {
			smoke = &c.Thresholds[i]
		}
	}
	if smoke == nil || smoke.Outcomes[1] != schema.Fail || *smoke.Observed[1][0].Num != 14 || *smoke.Observed[1][0].Den != 20 {
		t.Errorf("the candidate's smoke threshold: %+v", smoke)
	}
}

// checkComparisonRenders checks the console and report files show both
// targets side by side, the differing cases first.
func checkComparisonRenders(t *testing.T, stdout string, files map[string]string) {
	t.Helper()
	if !strings.Contains(stdout, "FAIL  quickstart: 1/2 targets pass · 12 of 30 cases differ between demo, 候选") {
		t.Errorf("console head:\n%s", stdout)
	}
	// The first case row under the cases' header is a differing one.
	_, cases, _ := strings.Cut(stdout, "Cases (12 differ between targets, listed first)")
	rows := strings.Split(cases, "\n")
	if len(rows) < 4 || !(strings.Contains(rows[3], "查天气") || strings.Contains(rows[3], "退订")) {
		t.Errorf("the console's first case row is not a differing case:\n%s", cases)
	}
	md, _ := os.ReadFile(files["markdown"])
	if !strings.HasPrefix(string(md), "## ❌ FAIL · quickstart: 1/2 targets pass · 12 of 30 cases differ") || !strings.Contains(string(md), "| target | total |") {
		t.Errorf("Markdown comparison:\n%.600s", md)
	}
	page, _ := os.ReadFile(files["html"])
	if !strings.Contains(string(page), "12 of 30 cases differ") || !strings.Contains(string(page), "候选") {
		t.Errorf("HTML comparison lacks the head or the candidate")
	}
	x, _ := os.ReadFile(files["junit"])
	for _, want := range []string{`<testsuite name="quickstart@demo"`, `<testsuite name="quickstart@候选"`, `classname="quickstart@候选"`, "<failure"} {
		if !strings.Contains(string(x), want) {
			t.Errorf("JUnit lacks %s", want)
		}
	}
}

// TestSuiteTargetsChecked: the suite's targets list names target blocks,
// each once; a wrong name is a located diagnostic (exit 2), and a target
// given twice on the command line is a usage error.
func TestSuiteTargetsChecked(t *testing.T) {
	dir := quickstartTwoTargets(t, "http://127.0.0.1:1", "\n  targets     = [\"demo\", \"候选人\", \"demo\"]")
	code, _, errs := runCLI(t, dir, nil, "validate", dir)
	if code != ExitInvalid || !strings.Contains(errs, "Error: Unknown target") || !strings.Contains(errs, `Did you mean "候选"?`) ||
		!strings.Contains(errs, "Error: Duplicate target in targets") || !strings.Contains(errs, "suite.nlutest.hcl:13:17:") {
		t.Errorf("validate: exit %d\n%s", code, errs)
	}
	dir = quickstartTwoTargets(t, "http://127.0.0.1:1", "")
	if code, _, errs := runCLI(t, dir, nil, "run", dir, "--target", "demo", "--target", "demo"); code != ExitInvalid || !strings.Contains(errs, "--target demo is given twice") {
		t.Errorf("run --target demo --target demo: exit %d\n%s", code, errs)
	}
}
