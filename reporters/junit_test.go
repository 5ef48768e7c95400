package reporters

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// Decoding targets: just what the consistency checks need.
type xTestsuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []xTestsuite `xml:"testsuite"`
}

type xTestsuite struct {
	Name       string      `xml:"name,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Timestamp  string      `xml:"timestamp,attr"`
	Properties []xProperty `xml:"properties>property"`
	Cases      []xTestcase `xml:"testcase"`
	SystemOut  string      `xml:"system-out"`
}

type xProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xTestcase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	File      string     `xml:"file,attr"`
	Line      string     `xml:"line,attr"`
	Time      string     `xml:"time,attr"`
	Failures  []xProblem `xml:"failure"`
	Errors    []xProblem `xml:"error"`
	Skipped   []xProblem `xml:"skipped"`
	SystemOut []string   `xml:"system-out"`
}

type xProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func renderJUnit(t *testing.T, r *schema.Report, o Options) ([]byte, xTestsuites) {
	t.Helper()
	var b bytes.Buffer
	if err := JUnit(&b, r, o); err != nil {
		t.Fatal(err)
	}
	var doc xTestsuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output does not parse with encoding/xml: %v\n%s", err, b.Bytes())
	}
	return b.Bytes(), doc
}

// quickstartWithinBudget is the quickstart run with its failures fixed: one
// call still timed out, which the target's error budget allows, so the
// verdict passed.
func quickstartWithinBudget() *schema.Report {
	r := quickstart()
	r.Cases = append(r.Cases[1:2], r.Cases[4:]...)
	r.Run.ErrorBudget = 0.5
	r.Verdict = schema.Verdict{Outcome: schema.Pass}
	return r
}

// iaoBudgetOnly has every gate met but errored calls over the budget: the
// verdict fails for a reason no threshold testcase carries.
func iaoBudgetOnly() *schema.Report {
	r := iaoPass()
	r.Verdict = schema.Verdict{Outcome: schema.Fail, ByThresholds: true, Reasons: []string{
		"2 of 50 calls errored (4.0%), over the target's error budget of 1.0%",
	}}
	r.Run.ErrorBudget = 0.01
	return r
}

type junitVariant struct {
	name string
	r    *schema.Report
	o    Options
}

func junitVariants() []junitVariant {
	return []junitVariant{
		{"iao_pass", iaoPass(), Options{}},
		{"iao_pass_cases", iaoPass(), Options{JUnitCases: true}},
		{"iao_fail", iaoFail(), Options{}},
		{"iao_fail_cases_capped", iaoFail(), Options{JUnitCases: true, MaxFailures: 2}},
		{"iao_budget_only", iaoBudgetOnly(), Options{}},
		{"quickstart", quickstart(), Options{}},
		{"quickstart_capped", quickstart(), Options{MaxFailures: 1}},
		{"quickstart_within_budget", quickstartWithinBudget(), Options{}},
		{"repeat", repeatRun(), Options{}},
		{"repeat_gated_cases", repeatGated(), Options{JUnitCases: true}},
	}
}

var junitTime = regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`)

// TestJUnitConsistent checks the structure every consumer in
// reports-and-ci.md §5.2 relies on: counts equal the testcases below them,
// at most one failure/error/skipped per testcase, non-empty classnames,
// unique (classname, name) pairs (GitLab keeps only the first duplicate),
// and seconds with three decimals.
func TestJUnitConsistent(t *testing.T) {
	for _, v := range junitVariants() {
		t.Run(v.name, func(t *testing.T) {
			_, doc := renderJUnit(t, v.r, v.o)
			if len(doc.Suites) != 1 {
				t.Fatalf("want one flat testsuite, got %d", len(doc.Suites))
			}
			s := doc.Suites[0]
			var fails, errs, skips int
			seen := map[string]bool{}
			for _, c := range s.Cases {
				n := len(c.Failures) + len(c.Errors) + len(c.Skipped)
				if n > 1 {
					t.Errorf("%q has %d results; at most one is allowed", c.Name, n)
				}
				fails += len(c.Failures)
				errs += len(c.Errors)
				skips += len(c.Skipped)
				if c.Classname == "" {
					t.Errorf("%q has an empty classname", c.Name)
				}
				key := c.Classname + "\x00" + c.Name
				if seen[key] {
					t.Errorf("duplicate testcase %s / %s", c.Classname, c.Name)
				}
				seen[key] = true
				if !junitTime.MatchString(c.Time) {
					t.Errorf("%q: time %q is not seconds with three decimals", c.Name, c.Time)
				}
				for _, p := range append(append([]xProblem{}, c.Failures...), c.Errors...) {
					if p.Type == "" || p.Message == "" || strings.Contains(p.Message, "\n") {
						t.Errorf("%q: failure/error needs a type and a one-line message, got %+v", c.Name, p)
					}
				}
			}
			if s.Tests != len(s.Cases) || s.Failures != fails || s.Errors != errs || s.Skipped != skips {
				t.Errorf("testsuite counts tests=%d failures=%d errors=%d skipped=%d; testcases say %d/%d/%d/%d",
					s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), fails, errs, skips)
			}
			if doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Errors != s.Errors {
				t.Errorf("testsuites counts %d/%d/%d differ from the testsuite's %d/%d/%d",
					doc.Tests, doc.Failures, doc.Errors, s.Tests, s.Failures, s.Errors)
			}
			if !junitTime.MatchString(doc.Time) || !junitTime.MatchString(s.Time) {
				t.Errorf("suite times %q, %q are not seconds with three decimals", doc.Time, s.Time)
			}
			if s.Name != v.r.Suite.Name {
				t.Errorf("testsuite name %q, want the suite's %q", s.Name, v.r.Suite.Name)
			}
			if s.Timestamp != v.r.Run.Started.UTC().Format("2006-01-02T15:04:05Z") {
				t.Errorf("timestamp %q", s.Timestamp)
			}
		})
	}
}

// TestJUnitMeansVerdict is SPEC §9's rule: a JUnit failure must mean what
// the verdict means, or CI turns red while the gates pass.
func TestJUnitMeansVerdict(t *testing.T) {
	type want struct {
		failures, errors, skipped map[string]int // by type
	}
	cases := map[string]want{
		// Gates met; 7 failed and 2 errored cases, a warn threshold missed:
		// nothing red.
		"iao_pass":       {},
		"iao_pass_cases": {},
		"iao_fail": {
			failures: map[string]int{"ThresholdNotMet": 3},
			errors:   map[string]int{"ThresholdError": 1},
		},
		"iao_fail_cases_capped": {
			failures: map[string]int{"ThresholdNotMet": 3},
			errors:   map[string]int{"ThresholdError": 1},
		},
		"iao_budget_only": {failures: map[string]int{"VerdictFailed": 1}},
		"quickstart": {
			failures: map[string]int{"AssertionFailed": 2},
			errors:   map[string]int{"InvalidJSON": 1, "Timeout": 1},
		},
		// The cap lists the worst failing case only (an error).
		"quickstart_capped":        {errors: map[string]int{"InvalidJSON": 1}},
		"quickstart_within_budget": {skipped: map[string]int{"Timeout": 1}},
		// --repeat 4: one testcase per case; the flaky case fails, the
		// consistent failure fails once (its later repetitions are
		// <rerunFailure>s), the case flaky on errors errors once (the
		// verdict is red).
		"repeat": {failures: map[string]int{"AssertionFailed": 2}, errors: map[string]int{"HTTPError": 1}},
		// The gates decide: the flaky case's <flakyFailure>s are all.
		"repeat_gated_cases": {},
	}
	for _, v := range junitVariants() {
		t.Run(v.name, func(t *testing.T) {
			w, ok := cases[v.name]
			if !ok {
				t.Fatalf("no expectation for %s", v.name)
			}
			_, doc := renderJUnit(t, v.r, v.o)
			s := doc.Suites[0]
			got := want{failures: map[string]int{}, errors: map[string]int{}, skipped: map[string]int{}}
			for _, c := range s.Cases {
				for _, p := range c.Failures {
					got.failures[p.Type]++
				}
				for _, p := range c.Errors {
					got.errors[p.Type]++
				}
				for _, p := range c.Skipped {
					got.skipped[p.Type]++
				}
			}
			for name, pair := range map[string][2]map[string]int{
				"failures": {w.failures, got.failures},
				"errors":   {w.errors, got.errors},
				"skipped":  {w.skipped, got.skipped},
			} {
				if fmt.Sprint(orEmpty(pair[0])) != fmt.Sprint(pair[1]) {
					t.Errorf("%s by type: got %v, want %v", name, pair[1], orEmpty(pair[0]))
				}
			}
			red := s.Failures+s.Errors > 0
			if red != (v.r.Verdict.Outcome != schema.Pass) {
				t.Errorf("JUnit red=%v but the verdict is %s", red, v.r.Verdict.Outcome)
			}
		})
	}
}

func orEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// TestJUnitThresholdCases checks the threshold testcases: name, file/line,
// zero time, observed values and n on a pass, warn misses as text.
func TestJUnitThresholdCases(t *testing.T) {
	_, doc := renderJUnit(t, iaoPass(), Options{})
	byName := map[string]xTestcase{}
	for _, c := range doc.Suites[0].Cases {
		byName[c.Name] = c
	}
	pass, ok := byName["threshold 总体准确率: metrics.accuracy >= 0.8"]
	if !ok {
		t.Fatalf("no threshold testcase; have %v", keys(byName))
	}
	if pass.Classname != "iao-hotel" || pass.File != hotelFile || pass.Line != "120" || pass.Time != "0.000" {
		t.Errorf("threshold testcase attributes: %+v", pass)
	}
	if len(pass.SystemOut) != 1 || !strings.Contains(pass.SystemOut[0], "0.854 (41/48) [0.728, 0.928], n=48") {
		t.Errorf("a met threshold puts the observed value and n in system-out, got %q", pass.SystemOut)
	}
	warn := byName["threshold 冒烟集准确率: metrics.split.smoke.accuracy >= 0.95"]
	if len(warn.Failures)+len(warn.Errors) != 0 {
		t.Errorf("a warn-severity miss must not be a failure: %+v", warn)
	}
	if len(warn.SystemOut) != 1 || !strings.HasPrefix(warn.SystemOut[0], "warning: ") || !strings.Contains(warn.SystemOut[0], "0.900 (9/10)") {
		t.Errorf("a warn-severity miss is reported as a warning in system-out, got %q", warn.SystemOut)
	}
	tpl := byName["template 同房间人员查询"]
	if tpl.File != hotelFile || tpl.Line != "40" || tpl.Time != "1.300" || len(tpl.Failures)+len(tpl.Errors) != 0 {
		t.Errorf("template testcase: %+v", tpl)
	}
	if len(tpl.SystemOut) != 1 || !strings.Contains(tpl.SystemOut[0], "14 passed, 3 failed, 1 errored of 18 cases") ||
		!strings.Contains(tpl.SystemOut[0], "[3f9a0c]") {
		t.Errorf("template system-out lacks counts or worst failures: %q", tpl.SystemOut)
	}

	_, doc = renderJUnit(t, iaoFail(), Options{})
	for _, c := range doc.Suites[0].Cases {
		if c.Name == "threshold 总体准确率: metrics.accuracy >= 0.8" {
			if len(c.Failures) != 1 || c.Failures[0].Message != "observed metrics.accuracy = 0.761 (35/46) [0.621, 0.861], n=46 (condition metrics.accuracy >= 0.8)" {
				t.Errorf("missed gate: %+v", c.Failures)
			}
		}
		if strings.HasPrefix(c.Name, "threshold 意图宏F1") {
			if len(c.Errors) != 1 || !strings.Contains(c.Errors[0].Message, "has no data") {
				t.Errorf("gate without data must be a ThresholdError with the reason: %+v", c)
			}
		}
	}
}

func keys[V any](m map[string]V) []string { return sortedKeys(m) }

// TestJUnitCaseTestcases checks the per-case testcases of a suite without
// thresholds: classname suite.template, name "utterance [id]", one failure
// listing every failed expectation, errors typed by the call error.
func TestJUnitCaseTestcases(t *testing.T) {
	out, doc := renderJUnit(t, quickstart(), Options{})
	var train, invalid *xTestcase
	for i, c := range doc.Suites[0].Cases {
		switch c.Name {
		case "订一张去東京的机票 | 经济舱 [q03]":
			train = &doc.Suites[0].Cases[i]
		case "明天北京天气怎么样？ [q01]":
			invalid = &doc.Suites[0].Cases[i]
		}
	}
	if train == nil || invalid == nil {
		t.Fatalf("case testcases missing:\n%s", out)
	}
	if train.Classname != "quickstart.book_flight" || train.Line != "30" || train.Time != "0.040" {
		t.Errorf("case testcase attributes: %+v", train)
	}
	f := train.Failures[0]
	if f.Message != `$.intent.name: expected "flight.book", got "train.book" (+1 more)` {
		t.Errorf("failure message %q", f.Message)
	}
	for _, want := range []string{`expected: "flight.book"`, `actual:   "train.book"`, "travel.nlu.hcl:38: assert: cabin must be `economy` <b>|</b>"} {
		if !strings.Contains(f.Body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, f.Body)
		}
	}
	e := invalid.Errors[0]
	if e.Type != schema.ErrInvalidJSON || !strings.Contains(e.Body, "response: Internal Server Error <html>trace: a]]>b & done</html>") {
		t.Errorf("error testcase: %+v", e)
	}
	// The response's ESC sequences, NUL and SOH bytes are gone from the
	// file itself, not merely escaped (bats-core #846: even &#27; breaks
	// Jenkins).
	for _, bad := range []string{"\x1b", "\x00", "\x01", "&#27;", "&#x1B;", "&#0;", "[31m"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("JUnit output contains %q", bad)
		}
	}
}

// TestJUnitCapsBodies: a huge response cannot blow up an element.
func TestJUnitCapsBodies(t *testing.T) {
	r := quickstart()
	r.Cases[2].Response = strings.Repeat("很长的响应", 100000) // 1.5 MB
	r.Cases[2].Failures = append(r.Cases[2].Failures, schema.Failure{Kind: "assert", Message: strings.Repeat("x", 200000)})
	_, doc := renderJUnit(t, r, Options{})
	for _, c := range doc.Suites[0].Cases {
		for _, p := range append(c.Failures, c.Errors...) {
			if len(p.Body) > maxJUnitBody {
				t.Errorf("%q: body of %d bytes exceeds %d", c.Name, len(p.Body), maxJUnitBody)
			}
			if len(p.Message) > maxJUnitMessage {
				t.Errorf("%q: message of %d bytes exceeds %d", c.Name, len(p.Message), maxJUnitMessage)
			}
		}
	}
}

// TestJUnitXSD validates every variant against the Jenkins xunit
// junit-10.xsd with xmllint, after removing the file/line attributes that
// GitHub annotators read and no public schema declares
// (reports-and-ci.md §5.1).
func TestJUnitXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not on PATH (apt-get install libxml2-utils); JUnit XSD validation skipped")
	}
	xsd := filepath.Join("..", "..", "shared", "schemas", "junit-10.xsd")
	if _, err := os.Stat(xsd); err != nil {
		t.Skipf("%s not found (%v); JUnit XSD validation skipped", xsd, err)
	}
	fileLine := regexp.MustCompile(` (file|line)="[^"]*"`)
	dir := t.TempDir()
	for _, v := range junitVariants() {
		t.Run(v.name, func(t *testing.T) {
			out, _ := renderJUnit(t, v.r, v.o)
			path := filepath.Join(dir, v.name+".xml")
			if err := os.WriteFile(path, fileLine.ReplaceAll(out, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(xmllint, "--noout", "--schema", xsd, path)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("xmllint rejects the report: %v\n%s", err, msg)
			}
		})
	}
}

func TestJUnitNilReport(t *testing.T) {
	if err := JUnit(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("nil report: want an error")
	}
}
