package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// startFlakyBot is an intent service on 127.0.0.1 whose answers depend on
// how many times it has been asked the same text (with --concurrency 1
// the repetitions of a case reach it in repetition order):
//
//	订机票    right on odd calls           P F P F P  (flaky, 4 flips)
//	取消订单  right on calls 1 and 2       P P F F F  (flaky, 1 flip)
//	退票      HTTP 500 on calls 2 and 4    P E P E P  (flaky on errors)
//	查天气    always wrong                 F F F F F  (consistent failure)
//	转人工    wrong, HTTP 500 on call 4    F F F E F  (consistent failure)
//	你好      always right                 P P P P P
func startFlakyBot(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	calls := map[string]int{}
	right := map[string]string{"订机票": "book", "取消订单": "cancel", "退票": "refund", "查天气": "weather", "转人工": "human", "你好": "greet"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		calls[req.Text]++
		n := calls[req.Text]
		mu.Unlock()
		intent := right[req.Text]
		switch {
		case req.Text == "订机票" && n%2 == 0, req.Text == "取消订单" && n > 2, req.Text == "查天气", req.Text == "转人工":
			intent = "chitchat"
		}
		if req.Text == "退票" && (n == 2 || n == 4) || req.Text == "转人工" && n == 4 {
			http.Error(w, "boom", 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"intent": intent})
	}))
	t.Cleanup(srv.Close)
	return srv
}

const flakySuite = `
suite "不稳定" {}

variable "url" { default = "%s" }

target "bot" {
  error_budget = 0.2
  http {
    url  = var.url
    body = jsonencode({ text = case.text })
  }
}

split "smoke" { where = case.level == "S1" }

template "订票" {
  text   = "订机票"
  level  = "S1"
  expect = { "$.intent" = "book" }
}
template "取消" {
  text   = "取消订单"
  expect = { "$.intent" = "cancel" }
}
template "退票" {
  text   = "退票"
  level  = "S1"
  expect = { "$.intent" = "refund" }
}
template "天气" {
  text   = "查天气"
  expect = { "$.intent" = "weather" }
}
template "人工" {
  text   = "转人工"
  expect = { "$.intent" = "human" }
}
template "问候" {
  text   = "你好"
  level  = "S1"
  expect = { "$.intent" = "greet" }
}
%s
`

const flakyThresholds = `
threshold "flaky" { condition = metrics.repeat.flaky <= %d }
threshold "smoke-flaky" { condition = metrics.split.smoke.repeat.flaky <= 1 }
threshold "consistent" { condition = metrics.repeat.consistent_failures <= 2 }
threshold "pass-hat-2" { condition = metrics.repeat.k["2"].pass_all >= 0.28 }
`

type flakyReport struct {
	Metrics struct {
		Repeat schema.Repeat `json:"repeat"`
		Split  map[string]struct {
			Repeat schema.Repeat `json:"repeat"`
		} `json:"split"`
	} `json:"metrics"`
}

func readFlakyReport(t *testing.T, path string) (flakyReport, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep flakyReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	var whole struct {
		Metrics struct {
			Repeat json.RawMessage `json:"repeat"`
		} `json:"metrics"`
	}
	_ = json.Unmarshal(raw, &whole)
	return rep, string(whole.Metrics.Repeat)
}

// Issue 36: under --repeat 5 against the flaky bot every figure of
// metrics.repeat equals the hand count (startFlakyBot's table): 2 flaky,
// 1 flaky on errors, 2 consistent failures, 3 stable of 6; passes
// c = 3, 2, 3, 0, 0, 5 of n = 5, so with C(5,2) = 10 pairs per case
// pass@2 = (9+7+9+0+0+10)/60 = 35/60 and pass^2 = (3+1+3+0+0+10)/60 =
// 17/60. Thresholds on the flaky count pass at <= 2, in the smoke split
// too (1 flaky), and fail at <= 1; eval of the run gives the same
// metrics.repeat.
func TestFlakyCasesUnderRepeat(t *testing.T) {
	srv := startFlakyBot(t)
	dir := writeSuite(t, fmt.Sprintf(flakySuite, srv.URL, fmt.Sprintf(flakyThresholds, 2)))
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--repeat", "5", "--concurrency", "1",
		"--report-json", filepath.Join(dir, "r.json"), "--report-markdown", filepath.Join(dir, "r.md"),
		"--report-html", filepath.Join(dir, "r.html"), "--report-junit", filepath.Join(dir, "r.xml"))
	if code != ExitPass {
		t.Fatalf("exit %d, want 0 (every threshold met)\n%s\n%s", code, out, errs)
	}
	rep, rawRepeat := readFlakyReport(t, filepath.Join(dir, "r.json"))
	r := rep.Metrics.Repeat
	if r.N != 5 || r.Scripts != 6 || r.Stable != 3 || r.Flaky != 2 || r.FlakyErrors != 1 || r.ConsistentFailures != 2 {
		t.Errorf("metrics.repeat counts %+v, want n 5, 6 scripts, 3 stable, 2 flaky, 1 flaky on errors, 2 consistent failures", r)
	}
	type line struct {
		text                           string
		passed, failed, errored, flips int
		outcomes                       string
	}
	lines := func(cs []schema.RepeatCase) []line {
		var out []line
		for _, c := range cs {
			out = append(out, line{c.Text, c.Passed, c.Failed, c.Errored, c.Flips, c.Outcomes})
		}
		return out
	}
	for name, tc := range map[string]struct {
		got, want []line
	}{
		"flaky_cases":              {lines(r.FlakyCases), []line{{"订机票", 3, 2, 0, 4, "PFPFP"}, {"取消订单", 2, 3, 0, 1, "PPFFF"}}},
		"flaky_error_cases":        {lines(r.FlakyErrorCases), []line{{"退票", 3, 0, 2, 4, "PEPEP"}}},
		"consistent_failure_cases": {lines(r.FailingCases), nil},
	} {
		if name == "consistent_failure_cases" {
			// both 0 flips: by id, so compare as a set
			if len(tc.got) != 2 || !strings.Contains(fmt.Sprint(tc.got), "{查天气 0 5 0 0 FFFFF}") || !strings.Contains(fmt.Sprint(tc.got), "{转人工 0 4 1 0 FFFEF}") {
				t.Errorf("%s = %v", name, tc.got)
			}
			continue
		}
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s = %v, want %v", name, tc.got, tc.want)
		}
	}
	wantK := map[string][2]schema.Ratio{
		"1": {schema.R(13, 30), schema.R(13, 30)}, "2": {schema.R(35, 60), schema.R(17, 60)}, "3": {schema.R(39, 60), schema.R(12, 60)},
		"4": {schema.R(20, 30), schema.R(5, 30)}, "5": {schema.R(4, 6), schema.R(1, 6)},
	}
	for k, w := range wantK {
		if g := r.K[k]; g == nil || g.PassAt != w[0] || g.PassAll != w[1] || g.Scripts != 6 {
			t.Errorf("k[%q] = %+v, want pass@k %v, pass^k %v", k, g, w[0], w[1])
		}
	}
	// The three carry intervals (metrics.md, Repeat): compare the figures.
	plain := func(x schema.Ratio) schema.Ratio { return schema.Ratio{Num: x.Num, Den: x.Den} }
	if plain(r.PassAt1) != schema.R(13, 30) || plain(r.PassAtK) != schema.R(4, 6) || plain(r.PassAllK) != schema.R(1, 6) {
		t.Errorf("pass_at_1 %v, pass_at_k %v, pass_all_k %v", r.PassAt1, r.PassAtK, r.PassAllK)
	}
	// the smoke split: 订机票 (flaky), 退票 (flaky on errors), 你好
	if s := rep.Metrics.Split["smoke"].Repeat; s.Scripts != 3 || s.Flaky != 1 || s.FlakyErrors != 1 || s.ConsistentFailures != 0 || s.K["2"].PassAt != schema.R(28, 30) {
		t.Errorf("metrics.split.smoke.repeat = %+v", s)
	}
	checkFlakyReports(t, dir, out)

	// eval of the same run: the same metrics.repeat, byte for byte.
	if code, eout, eerrs := runCLI(t, dir, nil, "eval", run, "--report-json", filepath.Join(dir, "e.json")); code != ExitPass {
		t.Fatalf("eval: exit %d\n%s\n%s", code, eout, eerrs)
	}
	if _, evalRepeat := readFlakyReport(t, filepath.Join(dir, "e.json")); evalRepeat != rawRepeat {
		t.Errorf("eval's metrics.repeat differs from the run's:\n%s\n%s", evalRepeat, rawRepeat)
	}
	// A gate of at most 1 flaky case fails on the same results.
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(fmt.Sprintf(flakySuite, srv.URL, fmt.Sprintf(flakyThresholds, 1))), 0o644); err != nil {
		t.Fatal(err)
	}
	code, eout, eerrs := runCLI(t, dir, nil, "eval", run, "--report-junit", filepath.Join(dir, "e.xml"))
	if code != ExitFail || !strings.Contains(eout, "metrics.repeat.flaky <= 1") {
		t.Errorf("eval with flaky <= 1: exit %d, want 1\n%s\n%s", code, eout, eerrs)
	}
	if x, _ := os.ReadFile(filepath.Join(dir, "e.xml")); !strings.Contains(string(x), `type="ThresholdNotMet" message="observed metrics.repeat.flaky = 2 (condition metrics.repeat.flaky &lt;= 1)"`) {
		t.Errorf("JUnit of the missed gate:\n%s", x)
	}
}

// checkFlakyReports: every report lists the flaky cases (id, text,
// passes and failures of 5, flips) apart from the consistent failures.
func checkFlakyReports(t *testing.T, dir, console string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	md, page, junit := read("r.md"), read("r.html"), read("r.xml")
	for name, doc := range map[string]string{"console": console, "markdown": md, "html": page} {
		titles := []string{"Flaky cases (2)", "Flaky on errors (1)", "Consistent failures (2)"}
		if name == "console" {
			titles = []string{"Flaky (2 of 6)", "Flaky on errors (1 of 6)", "Consistent failures (2 of 6)"}
		}
		at := -1
		for _, title := range titles {
			i := strings.Index(doc, title)
			if i < at {
				t.Errorf("%s: %q missing or out of order", name, title)
			}
			at = i
		}
		flaky := doc[strings.Index(doc, titles[0]):strings.Index(doc, titles[1])]
		for _, want := range []string{"订机票", "PFPFP", "取消订单", "PPFFF"} {
			if !strings.Contains(flaky, want) {
				t.Errorf("%s: the flaky list lacks %q:\n%s", name, want, flaky)
			}
		}
		if strings.Contains(flaky, "查天气") || !strings.Contains(doc[strings.Index(doc, titles[2]):], "FFFFF") {
			t.Errorf("%s: consistent failures not apart from the flaky cases", name)
		}
	}
	// JUnit without --junit-cases: the suite's system-out lists them.
	for _, want := range []string{"flaky cases: 2 of 6 scripts (--repeat 5)", "订机票  passed 3, failed 2, errored 0 of 5; 4 flips  PFPFP",
		"flaky on errors: 1 of 6 scripts", "consistent failures: 2 of 6 scripts", "查天气  passed 0, failed 5, errored 0 of 5; 0 flips  FFFFF",
		`<property name="metrics.repeat.flaky" value="2">`, `<property name="metrics.repeat.k[&#34;2&#34;].pass_all" value="0.283333">`} {
		if !strings.Contains(junit, want) {
			t.Errorf("JUnit lacks %q:\n%s", want, junit)
		}
	}
}

// Without thresholds every case must pass: under --repeat the JUnit
// report has one testcase per case, not one per repetition; a flaky case
// fails (the verdict fails on it) with a <flakyFailure> per failed
// repetition, which Jenkins' junit plugin and action-junit-report read
// (one flaky on errors has the <error> of its first errored repetition,
// the verdict being red, and a <flakyError> per errored one); a
// consistent failure has <rerunFailure>s after its <failure>; a case that
// passed every time passes. With thresholds (--junit-cases) the flaky
// case has its <flakyFailure>s and no <failure>.
func TestFlakyJUnitUnderRepeat(t *testing.T) {
	srv := startFlakyBot(t)
	dir := writeSuite(t, fmt.Sprintf(flakySuite, srv.URL, ""))
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--repeat", "5", "--concurrency", "1", "--report-junit", filepath.Join(dir, "r.xml"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := byText(junitTestcases(t, raw))
	if len(cases) != 6 {
		t.Fatalf("%d testcases, want 6 (one per case, not per repetition):\n%s", len(cases), raw)
	}
	for text, want := range map[string]string{
		"订机票":  "failure flakyFailure×2",
		"取消订单": "failure flakyFailure×3",
		"退票":   "error flakyError×2",
		"查天气":  "failure rerunFailure×4",
		"转人工":  "failure rerunFailure×3 rerunError×1",
		"你好":   "",
	} {
		if got := cases[text]; got != want {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
	if !strings.Contains(string(raw), `message="flaky: passed 3 of 5 repetitions, 4 flips; repetition 2: $.intent: expected &#34;book&#34;, got &#34;chitchat&#34;"`) {
		t.Errorf("the flaky case's failure message:\n%s", raw)
	}
	if !strings.Contains(string(raw), `<testsuite name="不稳定" tests="6" failures="4" errors="1"`) {
		t.Errorf("testsuite counts:\n%s", raw)
	}
	// The same run read with a threshold and --junit-cases.
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(fmt.Sprintf(flakySuite, srv.URL, fmt.Sprintf(flakyThresholds, 2))), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, eout, eerrs := runCLI(t, dir, nil, "eval", run, "--junit-cases", "--report-junit", filepath.Join(dir, "e.xml")); code != ExitPass {
		t.Fatalf("eval: exit %d\n%s\n%s", code, eout, eerrs)
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "e.xml"))
	cases = byText(junitTestcases(t, raw))
	if cases["订机票"] != "flakyFailure×2" || cases["查天气"] != "" || cases["退票"] != "flakyError×2" {
		t.Errorf("informational testcases: %v\n%s", cases, raw)
	}
}

// junitTestcases reads each case testcase's result elements, by the
// testcase's name ("订机票 [ID]"): "failure flakyFailure×2".
func junitTestcases(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Inner []struct {
					XMLName xml.Name
				} `xml:",any"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Name, "threshold ") {
				continue
			}
			var parts []string
			count := map[string]int{}
			for _, e := range c.Inner {
				n := e.XMLName.Local
				if n == "system-out" {
					continue
				}
				if count[n] == 0 {
					parts = append(parts, n)
				}
				count[n]++
			}
			for i, p := range parts {
				if strings.HasPrefix(p, "flaky") || strings.HasPrefix(p, "rerun") {
					parts[i] = fmt.Sprintf("%s×%d", p, count[p])
				}
			}
			out[c.Name] = strings.Join(parts, " ")
		}
	}
	return out
}

// validate knows metrics.repeat's counts and its k entries in every node,
// and names the count for a misspelt one.
func TestValidateRepeatMetrics(t *testing.T) {
	good := fmt.Sprintf(flakySuite, "http://127.0.0.1:9", fmt.Sprintf(flakyThresholds, 2)+`
threshold "level" { condition = metrics.level.S1.repeat.flaky_errors == 0 }
threshold "tpl" { condition = metrics.template.订票.repeat.k["5"].pass_at >= 0.5 }
`)
	if code, out, errs := runCLI(t, "", nil, "validate", writeSuite(t, good)); code != ExitPass {
		t.Errorf("validate: exit %d\n%s\n%s", code, out, errs)
	}
	bad := fmt.Sprintf(flakySuite, "http://127.0.0.1:9", `threshold "x" { condition = metrics.split.smoke.repeat.flaky_count <= 2 }`)
	code, out, errs := runCLI(t, "", nil, "validate", writeSuite(t, bad))
	if code != ExitInvalid || !strings.Contains(out+errs, `repeat has no "flaky_count". Did you mean "flaky"?`) {
		t.Errorf("validate of flaky_count: exit %d\n%s\n%s", code, out, errs)
	}
}

// byText keys testcases by the case's text, the name without " [ID]".
func byText(cases map[string]string) map[string]string {
	out := map[string]string{}
	for name, els := range cases {
		out[strings.TrimSpace(strings.SplitN(name, " [", 2)[0])] = els
	}
	return out
}
