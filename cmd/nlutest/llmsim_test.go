package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// llmUser is a fake OpenAI-compatible server playing the user by rule on
// 127.0.0.1: it reads the goal from the system prompt and answers the
// last message (the bot's reply, a user message to it): the city or the
// date when asked, 是的 to a confirmation, asks for the order number once
// booked, and answers the stop word when the bot did not understand.
type llmUser struct {
	mu   sync.Mutex
	reqs []llmUserRequest
}

type llmUserRequest struct {
	Model    string           `json:"model"`
	Messages []schema.Message `json:"messages"`
}

var goalLine = regexp.MustCompile(`- tell the (\w+): "([^"]*)"`)

func (u *llmUser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req llmUserRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		http.Error(w, "bad request", 400)
		return
	}
	u.mu.Lock()
	u.reqs = append(u.reqs, req)
	u.mu.Unlock()
	goal := map[string]string{}
	for _, m := range goalLine.FindAllStringSubmatch(req.Messages[0].Content, -1) {
		goal[m[1]] = m[2]
	}
	bot := req.Messages[len(req.Messages)-1].Content
	answer := spec.StopWord
	switch {
	case strings.Contains(bot, "没听懂"):
	case strings.Contains(bot, "哪个城市"):
		answer = goal["city"]
	case strings.Contains(bot, "哪天"):
		answer = goal["date"]
	case strings.Contains(bot, "对吗"), strings.Contains(bot, "确认吗"):
		answer = "是的"
	case strings.Contains(bot, "已为您预订"):
		answer = "订单号是多少？"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": answer}}}})
}

const llmSimSuite = `
suite "LLM 模拟用户" {}

variable "url" { default = "%s" }
variable "llm" { default = "%s" }

target "bot" {
  http {
    url   = var.url
    body  = jsonencode({ session = case.conversation, text = case.text })
    reply = response.text
  }
}

target "llm-user" {
  openai {
    url   = var.llm
    model = "user-sim"
  }
  simulator {
    persona = "一位说话简短的乘客"
  }
}

materials "城市" { values = ["上海", "北京", "广州"] }
materials "日期" { values = ["明天", "后天"] }

scenario "订机票" {
  strategy = "product"
  scene    = ["出行", "订票"]
  goal {
    inform  = { city = "{城市}", date = "{日期}" }
    request = ["订单号"]
  }
  user      = "llm-user"
  opening   = ["我想订机票", "帮我订张机票"]
  max_turns = 8
  success {
    condition = strcontains(reply, "订单号")
  }
  each_turn {
    reply { not_contains = ["没听懂"] }
  }
}
`

// Acceptance 2 of issue 23. By hand, over 3 cities × 2 dates, against
// slotBot with the rule-playing llmUser: 上海 takes 5 turns in either
// order (opening, the two slots, 是的, the order number request), 北京 6
// (the bot confirms the city, 是的), 广州 ends when the simulator answers
// the stop word to "没听懂": turn 2 city first, turn 3 date first. So 4
// of 6 succeed, turns to success 5, 5, 6, 6 (mean 5.5, p50 5, p90 6), 0
// stuck (none reached max_turns), 0 errored; the bot gets 2·5 + 2·6 + 2
// + 3 = 27 calls, the simulator one after every turn but the last of a
// success: 2·4 + 2·5 + 2 + 3 = 23. eval with both servers closed gives the
// same figures from the recorded turns.
func TestScenarioLLMSimulatorAcceptance(t *testing.T) {
	bot, srv := startSlotBot(t)
	user := &llmUser{}
	llm := httptest.NewServer(user)
	defer llm.Close()
	dir := writeSuite(t, fmt.Sprintf(llmSimSuite, srv.URL, llm.URL))
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{`user: 我想订机票  (opened)`, `user: 广州  (llm)`,
		`scenario: did not succeed in 2 turns (the simulated user answered the stop word <<DONE>>; the last user turn llm)`} {
		if !strings.Contains(out, want) {
			t.Errorf("the console lacks %q:\n%s", want, out)
		}
	}
	sc := simulatedReport(t, filepath.Join(dir, "r.json"))
	if sc.Scenarios != 6 || sc.Succeeded != 4 || sc.Stuck != 0 || sc.Errored != 0 || frac(sc.SuccessRate) != schema.R(4, 6) {
		t.Errorf("metrics.scenario = %+v, want 6 scenarios, 4 succeeded, 0 stuck, 0 errored", sc)
	}
	if sc.TurnsMean == nil || *sc.TurnsMean != 5.5 || *sc.TurnsP50 != 5 || *sc.TurnsP90 != 6 {
		t.Errorf("turns to success mean %v p50 %v p90 %v, want 5.5, 5, 6", sc.TurnsMean, sc.TurnsP50, sc.TurnsP90)
	}
	if bot.calls != 27 || len(user.reqs) != 23 {
		t.Errorf("the bot was called %d times, the simulator %d, want 27 and 23", bot.calls, len(user.reqs))
	}
	checkLLMUserRequests(t, user.reqs)
	checkRecordedSimulator(t, run)
	srv.Close()
	llm.Close()
	_, list, errs := runCLI(t, dir, nil, "eval", run, "--list-metrics")
	for _, want := range []string{"metrics.scenario.scenarios = 6", "metrics.scenario.success_rate = 0.666667 (4/6)", "metrics.scenario.turns_mean = 5.5",
		"metrics.scenario.turns_p90 = 6", "metrics.scenario.stuck = 0", "metrics.scenario.errored = 0", `metrics.scenario_source.订机票.scenario.succeeded = 4`} {
		if !strings.Contains(list, want) {
			t.Errorf("eval --list-metrics lacks %q:\n%s%s", want, list, errs)
		}
	}
}

// checkLLMUserRequests: every request holds the goal and persona in the
// system prompt, the opening as the simulator's own (assistant) turn, and
// ends with the bot's reply as a user message.
func checkLLMUserRequests(t *testing.T, reqs []llmUserRequest) {
	t.Helper()
	goals := map[string]int{}
	for _, req := range reqs {
		m := req.Messages
		sys := m[0].Content
		if req.Model != "user-sim" || m[0].Role != "system" || !strings.Contains(sys, "Your persona: 一位说话简短的乘客\n") ||
			!strings.Contains(sys, "- ask for the 订单号") || !strings.Contains(sys, "answer exactly <<DONE>> and nothing else") {
			t.Fatalf("system prompt:\n%s", sys)
		}
		if m[1].Role != "assistant" || (m[1].Content != "我想订机票" && m[1].Content != "帮我订张机票") {
			t.Errorf("the first message is %+v, want the opening as the simulator's assistant turn", m[1])
		}
		for i, msg := range m[1:] {
			if want := []string{"assistant", "user"}[i%2]; msg.Role != want {
				t.Errorf("message %d is %s, want %s: %+v", i+1, msg.Role, want, m)
			}
		}
		if last := m[len(m)-1]; last.Role != "user" || !strings.ContainsAny(last.Content, "？。") {
			t.Errorf("the last message is %+v, want the bot's reply as a user message", last)
		}
		for _, g := range goalLine.FindAllStringSubmatch(sys, -1) {
			goals[g[1]+"="+g[2]]++
		}
	}
	for _, g := range []string{"city=上海", "city=北京", "city=广州", "date=明天", "date=后天"} {
		if goals[g] == 0 {
			t.Errorf("no system prompt holds the goal %s: %v", g, goals)
		}
	}
}

// checkRecordedSimulator: every simulated turn's result records the
// simulator's call (its request whole on turn 1, what it adds to the
// previous one after), every user turn after the opening has reason llm.
func checkRecordedSimulator(t *testing.T, run string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	calls, llmTurns, done := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if (r.Turn == 1) != (r.Reason == "opened") || (r.Turn > 1 && r.Reason != spec.ReasonLLM) {
			t.Errorf("turn %d of %s has reason %q", r.Turn, r.Script, r.Reason)
		}
		if r.Turn > 1 {
			llmTurns++
		}
		if s := r.Simulator; s != nil {
			calls++
			// The scenario's first request is recorded whole, each later
			// one by what it adds to the one before (body_from_previous).
			if s.Target != "llm-user" || s.Request == nil || s.Error != nil ||
				(r.Turn == 1) != strings.Contains(s.Request.Body, `"role":"system"`) || (r.Turn == 1) != (s.Request.BodyFromPrevious == 0) {
				t.Errorf("recorded simulator call of turn %d: %+v", r.Turn, s.Request)
			}
			if s.Reply == spec.StopWord {
				done++
			}
		}
	}
	if calls != 23 || llmTurns != 27-6 || done != 2 {
		t.Errorf("recorded %d simulator calls (2 of them the stop word: %d) and %d llm turns, want 23, 2, 21", calls, done, llmTurns)
	}
}

// A simulator that answers 500 makes the turn whose reply it answered an
// error (SimulatorError), not a failure: each of the 6 scenarios stops
// after its opening and counts as errored. A user naming no target is a
// located load error, exit 2.
func TestScenarioLLMSimulatorErrors(t *testing.T) {
	bot, srv := startSlotBot(t)
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "overloaded", 500) }))
	defer llm.Close()
	dir := writeSuite(t, fmt.Sprintf(llmSimSuite, srv.URL, llm.URL))
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"))
	sc := simulatedReport(t, filepath.Join(dir, "r.json"))
	if sc.Scenarios != 6 || sc.Errored != 6 || sc.Succeeded != 0 || bot.calls != 6 {
		t.Fatalf("exit %d, metrics.scenario %+v, %d bot calls; want 6 errored after 6 calls\n%s\n%s", code, sc, bot.calls, out, errs)
	}
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), `"type":"SimulatorError","message":"simulating the user: `); n != 6 {
		t.Errorf("%d SimulatorError results, want 6:\n%s", n, raw)
	}
	bad := writeSuite(t, strings.Replace(fmt.Sprintf(llmSimSuite, srv.URL, llm.URL), `user      = "llm-user"`, `user      = "llm-usr"`, 1))
	code, _, errs = runCLI(t, bad, nil, "run", bad, "--out", filepath.Join(bad, "run"))
	if code != 2 || !strings.Contains(errs, "Unknown user simulator") || !strings.Contains(errs, `Did you mean "llm-user"?`) || strings.Contains(errs, "goroutine") {
		t.Errorf("exit %d, want 2 with a located diagnostic:\n%s", code, errs)
	}
}

// --cache caches the simulator's calls as it caches judge calls: a second
// run against the same bot asks the simulator nothing (the bot's requests
// carry a new session id each run, so the bot is called again), records
// every simulator call cached, and gives the same figures.
func TestScenarioLLMSimulatorCache(t *testing.T) {
	bot, srv := startSlotBot(t)
	user := &llmUser{}
	llm := httptest.NewServer(user)
	defer llm.Close()
	dir := writeSuite(t, fmt.Sprintf(llmSimSuite, srv.URL, llm.URL))
	for i, run := range []string{"run1", "run2"} {
		if code, out, errs := runCLI(t, dir, nil, "run", dir, "--cache", "--out", filepath.Join(dir, run), "--report-json", filepath.Join(dir, run+".json")); code != ExitFail {
			t.Fatalf("run %d: exit %d\n%s\n%s", i+1, code, out, errs)
		}
		if sc := simulatedReport(t, filepath.Join(dir, run+".json")); sc.Succeeded != 4 || sc.Scenarios != 6 {
			t.Errorf("run %d: metrics.scenario %+v", i+1, sc)
		}
	}
	if len(user.reqs) != 23 || bot.calls != 2*27 {
		t.Errorf("simulator asked %d times, bot %d, want 23 and 54", len(user.reqs), bot.calls)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "run2", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cached := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if r.Simulator != nil && r.Simulator.Cached {
			cached++
		}
	}
	if cached != 23 {
		t.Errorf("%d cached simulator calls in the second run, want 23", cached)
	}
}
