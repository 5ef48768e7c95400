package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolsJSON is metrics.tools as report.json writes it.
type toolsJSON struct {
	Calls             int       `json:"calls"`
	ScoredCalls       int       `json:"scored_calls"`
	Expected          int       `json:"expected"`
	Correct           int       `json:"correct"`
	Precision         ratioJSON `json:"precision"`
	Recall            ratioJSON `json:"recall"`
	F1                ratioJSON `json:"f1"`
	ArgsChecked       int       `json:"args_checked"`
	ArgsPassed        int       `json:"args_passed"`
	ArgumentAccuracy  ratioJSON `json:"argument_accuracy"`
	InvalidArguments  int       `json:"invalid_arguments"`
	Unmocked          int       `json:"unmocked"`
	Sequences         int       `json:"sequences"`
	SequencesPassed   int       `json:"sequences_passed"`
	FinalStates       int       `json:"final_states"`
	FinalStatesPassed int       `json:"final_states_passed"`
	FinalStateRate    ratioJSON `json:"final_state_rate"`
	Tool              map[string]struct {
		Calls       int `json:"calls"`
		ScoredCalls int `json:"scored_calls"`
		Expected    int `json:"expected"`
		Correct     int `json:"correct"`
		ArgsChecked int `json:"args_checked"`
		ArgsPassed  int `json:"args_passed"`
	} `json:"tool"`
	Mode map[string]struct{ Checked, Passed int } `json:"mode"`
}

// The acceptance of issue 37: suites/agent-tools runs against the demo's
// tool-using agent with mock tools and its figures are the hand counts
// below. The agent's two planted defects (docs/demo.md): a flight-status
// question calls search_flights (D1), and 广州 loses its date argument
// (D2). 城市 is 上海 or 广州, 日期 明天, 航班号 CA1234 or MU5101, so every
// source has two instances.
//
//	source (tools block)        per instance: calls (scored?)   expected  correct  args          sequence        final state
//	查航班 template             search (scored)                 search    1        search 上海✓ 广州✗(D2)
//	订机票 conversation          search book (scored)           2         2        book 上海✓ 广州✗(D2)  exact ✓ ✓     上海✓ 广州✗(D2)
//	分步订票 (3 turns)           —, —, search book (scored)     0, 0, 2   2        book 上海✓ 广州✗(D2)  in_order ✓ ✓  上海✓ 广州✗(D2)
//	两地天气                     get_weather ×2 (scored)         2         2        get_weather ✓ ✓  any_order ✓ ✓
//	航班状态                     search (scored; D1)             flight_status  0   (not called: no args count)  subset ✗ ✗
//	查询再订 (3 turns)           search | search book | cancel   1|2|1     4        —             superset ✓ ✓    ✓ ✓
//	模拟订票 scenario (3 turns)  —, —, search book (not scored: each_turn lists no called)  exact ✓ ✓  上海✓ 广州✗(D2)
//
// Calls: search 2+2+2+2+4+2 = 14, book 2+2+2+2 = 8, get_weather 4,
// cancel_booking 2: 28. Scored (all but the scenario's 4): 24; expected
// 2+4+4+4+2+8 = 24; correct 2+4+4+4+0+8 = 22: precision 22/24, recall
// 22/24, F1 44/48. Arguments checked 2+2+2+2 = 8, passed 1+1+1+2 = 5.
// Sequences: exact 4 of 4, in_order 2 of 2, any_order 2 of 2, subset 0
// of 2, superset 2 of 2 (10 of 12). Final states 8, passed 1+1+2+1 = 5.
// Cases: 2 + 2 + 6 + 2 + 2 + 6 + 6 = 26, failed 6 (查航班 广州, 订机票 广州,
// 分步订票 广州's turn 3, 航班状态 ×2, 模拟订票 广州's turn 3). Dialogue: 10
// conversations, 6 completed (the 广州 instances of 订机票 and 分步订票 and
// both 航班状态 are not), 18 turns, 14 passed. Scenarios: 2, 1 succeeded
// (广州's success condition holds, its final state does not).
//
// The scenario's task block reads MultiWOZ's figures from what the agent
// did (metrics.task): the offer is book_flight's arguments, the answer the
// order number in the reply, the booking the mocks' last one. 上海: offer
// 上海 明天 (informed), 订单号 B-MU5101 given (succeeded), booked 上海 明天
// (2/2); 广州: offer without a date (not informed, so not succeeded),
// 订单号 given, booked 广州 only (1/2). Inform 1/2, success 1/2, book rate
// 1.5/2, inform precision, recall and F1 2/2 (TP 2, FP 0, FN 0).
func TestAgentToolsSuite(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "agent-tools"), dir)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	checkAgentTools(t, run)
	checkAgentTask(t, run)
	if !strings.Contains(out, "26 cases") || !strings.Contains(out, "20 passed, 6 failed") {
		t.Errorf("summary: %s", out)
	}
	// eval re-checks every tool call, sequence and final state from
	// results.jsonl, without the agent.
	evalDir := filepath.Join(dir, "eval")
	code, out, errs = runCLI(t, dir, nil, "eval", run, "--report-json", filepath.Join(evalDir+".json"))
	if code != ExitPass {
		t.Fatalf("eval: exit %d\n%s\n%s", code, out, errs)
	}
	if err := os.MkdirAll(evalDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evalDir+".json", filepath.Join(evalDir, "report.json")); err != nil {
		t.Fatal(err)
	}
	checkAgentTools(t, evalDir)
	checkAgentTask(t, evalDir)
	// The defects are warnings; made gates, they fail the run.
	suite := filepath.Join(dir, "agent-tools.nlutest.hcl")
	src, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(suite, []byte(strings.ReplaceAll(string(src), `severity  = "warn"`, `severity  = "error"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "gated"))
	if code != ExitFail || !strings.Contains(out, "2/5 thresholds met") {
		t.Errorf("with the defects as gates: exit %d\n%s", code, out)
	}
}

// checkAgentTools checks the hand counts of TestAgentToolsSuite in the
// report.json of run.
func checkAgentTools(t *testing.T, run string) {
	t.Helper()
	var v toolsJSON
	reportFamily(t, run, "tools", &v)
	if v.Calls != 28 || v.ScoredCalls != 24 || v.Expected != 24 || v.Correct != 22 ||
		v.Precision != (ratioJSON{22, 24}) || v.Recall != (ratioJSON{22, 24}) || v.F1 != (ratioJSON{44, 48}) {
		t.Errorf("%s: calls %d scored %d expected %d correct %d P %v R %v F1 %v; hand count 28 24 24 22, 22/24, 22/24, 44/48", run, v.Calls, v.ScoredCalls, v.Expected, v.Correct, v.Precision, v.Recall, v.F1)
	}
	if v.ArgsChecked != 8 || v.ArgsPassed != 5 || v.ArgumentAccuracy != (ratioJSON{5, 8}) || v.InvalidArguments != 0 || v.Unmocked != 0 {
		t.Errorf("%s: arguments %d of %d, invalid %d, unmocked %d; hand count 5 of 8, 0, 0", run, v.ArgsPassed, v.ArgsChecked, v.InvalidArguments, v.Unmocked)
	}
	want := map[string][2]int{"exact": {4, 4}, "in_order": {2, 2}, "any_order": {2, 2}, "subset": {2, 0}, "superset": {2, 2}}
	for mode, w := range want {
		if m := v.Mode[mode]; m.Checked != w[0] || m.Passed != w[1] {
			t.Errorf("%s: mode %s %d of %d, hand count %d of %d", run, mode, m.Passed, m.Checked, w[1], w[0])
		}
	}
	if v.Sequences != 12 || v.SequencesPassed != 10 || v.FinalStates != 8 || v.FinalStatesPassed != 5 || v.FinalStateRate != (ratioJSON{5, 8}) {
		t.Errorf("%s: sequences %d of %d, final states %d of %d; hand count 10 of 12, 5 of 8", run, v.SequencesPassed, v.Sequences, v.FinalStatesPassed, v.FinalStates)
	}
	perTool := map[string][6]int{ // calls, scored, expected, correct, args checked, args passed
		"search_flights": {14, 12, 10, 10, 2, 1}, "book_flight": {8, 6, 6, 6, 4, 2}, "get_weather": {4, 4, 4, 4, 2, 2},
		"cancel_booking": {2, 2, 2, 2, 0, 0}, "flight_status": {0, 0, 2, 0, 0, 0},
	}
	for name, w := range perTool {
		f := v.Tool[name]
		if got := [6]int{f.Calls, f.ScoredCalls, f.Expected, f.Correct, f.ArgsChecked, f.ArgsPassed}; got != w {
			t.Errorf("%s: tool %s %v, hand count %v", run, name, got, w)
		}
	}
	var d struct {
		Conversations, Completed, Turns int
		TurnsPassed                     int `json:"turns_passed"`
	}
	reportFamily(t, run, "dialogue", &d)
	if d.Conversations != 10 || d.Completed != 6 || d.Turns != 18 || d.TurnsPassed != 14 {
		t.Errorf("%s: metrics.dialogue %+v; hand count 10 conversations, 6 completed, 14 of 18 turns", run, d)
	}
	var sc struct{ Scenarios, Succeeded int }
	reportFamily(t, run, "scenario", &sc)
	if sc.Scenarios != 2 || sc.Succeeded != 1 {
		t.Errorf("%s: metrics.scenario %+v; hand count 1 of 2", run, sc)
	}
}

// The records keep what eval needs: each call's step, id, name,
// arguments and result; the last turn's earlier calls and final state.
func TestAgentToolsRecords(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "agent-tools"), dir)
	run := filepath.Join(dir, "run")
	// Exit 1: the filter leaves the sequence gates of exact and in_order
	// without data.
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--filter", "查询再订"); code != ExitFail {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var last struct {
		Slots map[string]struct{ Value string }
		Turn  int
		Calls []struct {
			Step      int
			ID, Name  string
			Arguments json.RawMessage
			Result    json.RawMessage
		} `json:"tool_calls"`
		Earlier []string `json:"earlier_tools"`
		Final   struct {
			From  string
			State json.RawMessage
		} `json:"final_state"`
	}
	found := false
	for _, l := range lines {
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Fatal(err)
		}
		if last.Turn != 3 || last.Slots["城市"].Value != "上海" {
			continue
		}
		found = true
		if len(last.Calls) != 1 || last.Calls[0].Name != "cancel_booking" || last.Calls[0].Step != 1 || last.Calls[0].ID != "call_4" ||
			string(last.Calls[0].Arguments) != `{"order_id":"B-MU5101"}` || string(last.Calls[0].Result) != `{"cancelled":true}` {
			t.Errorf("turn 3's calls %+v", last.Calls)
		}
		if strings.Join(last.Earlier, ",") != "search_flights,search_flights,book_flight" {
			t.Errorf("earlier tools %q", last.Earlier)
		}
		if last.Final.From != "mocks" || string(last.Final.State) != `{"bookings":[{"city":"上海","date":"明天","flight_id":"MU5101"}],"cancelled":["B-MU5101"]}` {
			t.Errorf("final state %+v", last.Final)
		}
	}
	if !found {
		t.Fatalf("no turn 3 of 上海 in %d lines", len(lines))
	}
}

// checkAgentTask checks the task figures of TestAgentToolsSuite.
func checkAgentTask(t *testing.T, run string) {
	t.Helper()
	var v taskJSON
	reportFamily(t, run, "task", &v)
	want := taskFiguresJSON{Dialogues: 2, Informed: 1, InformRate: ratioJSON{1, 2}, Succeeded: 1, SuccessRate: ratioJSON{1, 2},
		Bookings: 2, BookRate: ratioJSON{1.5, 2}, Requesting: 2,
		InformPrecision: ratioJSON{2, 2}, InformRecall: ratioJSON{2, 2}, InformF1: ratioJSON{2, 2}, TP: 2}
	if v.taskFiguresJSON != want || v.Domain["机票"] != want {
		t.Errorf("%s: metrics.task\n got %+v (机票 %+v)\nwant %+v", run, v.taskFiguresJSON, v.Domain["机票"], want)
	}
}
