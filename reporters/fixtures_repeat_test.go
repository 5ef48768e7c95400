package reporters

import (
	"time"

	"github.com/nlutest/nlutest/schema"
)

// repeatRun is a run made with --repeat 4, by hand: four cases whose
// repetitions went
//
//	r1 订机票  P F P F  flaky: passed 2, failed 2, 3 flips
//	r2 查天气  F F F F  consistent failure
//	r3 退票    P E P P  flaky on errors: passed 3, errored 1, 2 flips
//	r4 你好    P P P P
//
// so passes c = 2, 0, 3, 4 of n = 4: pass@2 = (5+0+6+6)/(4·C(4,2)) =
// 17/24, pass^2 = (1+0+3+6)/24 = 10/24; pass@3 = (4+0+4+4)/16, pass^3 =
// (0+0+1+4)/16; pass@4 = 3/4, pass^4 = 1/4.
func repeatRun() *schema.Report {
	const file = "suites/repeat/客服.nlutest.hcl"
	seq := map[string]string{"r1": "PFPF", "r2": "FFFF", "r3": "PEPP", "r4": "PPPP"}
	texts := map[string][3]string{"r1": {"订票", "订机票", "book"}, "r2": {"天气", "查天气", "weather"}, "r3": {"退票", "退票", "refund"}, "r4": {"问候", "你好", "greet"}}
	lines := map[string]int{"r1": 3, "r2": 7, "r3": 11, "r4": 15}
	var cases []schema.CaseReport
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		for i, o := range seq[id] {
			tx := texts[id]
			c := schema.CaseReport{ID: id, Template: tx[0], Text: tx[1], Repeat: i + 1, LatencyMS: float64(10 + i), File: file, Line: lines[id], Outcome: schema.Pass}
			switch o {
			case 'F':
				c.Outcome = schema.Fail
				c.Request = &schema.Request{Method: "POST", URL: "http://127.0.0.1:5005/parse", Body: `{"text":"` + tx[1] + `"}`}
				c.Response = `{"intent":"chitchat"}`
				c.Failures = []schema.Failure{{Kind: "expect", Path: "$.intent", Expected: tx[2], Actual: "chitchat", File: file, Line: lines[id] + 1}}
			case 'E':
				c.Outcome = schema.Error
				c.Request = &schema.Request{Method: "POST", URL: "http://127.0.0.1:5005/parse", Body: `{"text":"` + tx[1] + `"}`}
				c.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "HTTP 500 Internal Server Error"}
			}
			cases = append(cases, c)
		}
	}
	rc := func(id, outcomes string, passed, failed, errored, flips int) schema.RepeatCase {
		tx := texts[id]
		return schema.RepeatCase{ID: id, Source: tx[0], Kind: "template", Text: tx[1], Runs: 4, Passed: passed, Failed: failed, Errored: errored, Flips: flips, Outcomes: outcomes}
	}
	rep := &schema.Repeat{N: 4, Scripts: 4, Stable: 2, Stability: schema.R(2, 4), Flaky: 1, FlakyErrors: 1, ConsistentFailures: 1,
		PassAt1: schema.R(9, 16), PassAtK: schema.R(3, 4), PassAllK: schema.R(1, 4),
		K: map[string]*schema.RepeatK{
			"1": {Scripts: 4, PassAt: schema.R(9, 16), PassAll: schema.R(9, 16)},
			"2": {Scripts: 4, PassAt: schema.R(17, 24), PassAll: schema.R(10, 24)},
			"3": {Scripts: 4, PassAt: schema.R(12, 16), PassAll: schema.R(5, 16)},
			"4": {Scripts: 4, PassAt: schema.R(3, 4), PassAll: schema.R(1, 4)},
		},
		FlakyCases:      []schema.RepeatCase{rc("r1", "PFPF", 2, 2, 0, 3)},
		FlakyErrorCases: []schema.RepeatCase{rc("r3", "PEPP", 3, 0, 1, 2)},
		FailingCases:    []schema.RepeatCase{rc("r2", "FFFF", 0, 4, 0, 0)},
	}
	m := &schema.Metrics{Node: *node(16, 9, 6, 1), Template: map[string]*schema.Node{
		"订票": node(4, 2, 2, 0), "天气": node(4, 0, 4, 0), "退票": node(4, 3, 0, 1), "问候": node(4, 4, 0, 0)}}
	m.Families = map[string]any{"repeat": rep}
	return &schema.Report{
		Tool: "nlutest", Version: "0.1.0",
		Suite: schema.SuiteInfo{Name: "客服-repeat", Dir: "suites/repeat", Files: []string{file}},
		Run: schema.RunInfo{ID: "20260302T100000-repeat", Target: "bot", Started: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC),
			Finished: time.Date(2026, 3, 2, 10, 0, 1, 0, time.UTC), Seconds: 1, ErrorBudget: 0.1},
		Verdict: schema.Verdict{Outcome: schema.Fail, Reasons: []string{"7 of 16 cases did not pass (6 failed, 1 errored) and the suite has no thresholds, so every case must pass"}},
		Metrics: m,
		Groups: []schema.Group{
			{Kind: "template", Name: "订票", File: file, Line: 3, Outcome: schema.Fail, Total: 4, Passed: 2, Failed: 2, Seconds: 0.05},
			{Kind: "template", Name: "天气", File: file, Line: 7, Outcome: schema.Fail, Total: 4, Failed: 4, Seconds: 0.05},
			{Kind: "template", Name: "退票", File: file, Line: 11, Outcome: schema.Error, Total: 4, Passed: 3, Errored: 1, Seconds: 0.05},
			{Kind: "template", Name: "问候", File: file, Line: 15, Outcome: schema.Pass, Total: 4, Passed: 4, Seconds: 0.05},
		},
		Cases: cases,
	}
}

// repeatGated is repeatRun with a gate on the flaky count, met: the
// thresholds decide, so the case testcases (--junit-cases) are
// informational.
func repeatGated() *schema.Report {
	r := repeatRun()
	one := 1.0
	r.Thresholds = []schema.ThresholdResult{{Name: "flaky", Condition: "metrics.repeat.flaky <= 2", Severity: "error", Outcome: schema.Pass,
		Observed: []schema.Observed{{Name: "metrics.repeat.flaky", Value: &one}}, File: "suites/repeat/客服.nlutest.hcl", Line: 20},
		{Name: "consistent", Condition: "metrics.repeat.consistent_failures < 2", Severity: "error", Outcome: schema.Pass,
			Observed: []schema.Observed{{Name: "metrics.repeat.consistent_failures", Value: &one}}, File: "suites/repeat/客服.nlutest.hcl", Line: 21}}
	r.Verdict = schema.Verdict{Outcome: schema.Pass, ByThresholds: true}
	return r
}
