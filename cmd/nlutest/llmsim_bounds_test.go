package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// echoBot answers every message with 您说：TEXT, keeping the longest
// message it was sent.
type echoBot struct {
	mu      sync.Mutex
	calls   int
	longest int
}

func (b *echoBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Text string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	b.mu.Lock()
	b.calls++
	b.longest = max(b.longest, len(req.Text))
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"text": "您说：" + req.Text})
}

// rambler is an OpenAI-compatible simulator on 127.0.0.1 whose every
// answer is answer(n), n counting its calls from 1; it keeps the bodies
// it was sent. After calls answers it answers 500, which bounds what a
// build without the caps writes (0bdf656 writes 934 MB of results and
// peaks at 5.3 GB for 12 turns of 9 MB answers; with a guard of 3 it
// wrote 283 MB and allocated 4.6 GB).
type rambler struct {
	mu     sync.Mutex
	bodies []string
	answer func(n int) string
	calls  int
}

func (s *rambler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	n := len(s.bodies)
	s.mu.Unlock()
	if s.calls > 0 && n > s.calls {
		http.Error(w, "the test's guard: no more answers", 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": s.answer(n)}}}})
}

const ramblerSuite = `
suite "话痨模拟用户" {}

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
  simulator {}
}

scenario "订机票" {
  goal {
    inform  = { city = "北京" }
    request = ["订单号"]
  }
  user      = "llm-user"
  opening   = ["我想订机票"]
  max_turns = 12
  success { condition = strcontains(reply, "订单号是") }
}
`

// Issue 35, major N4: a simulator answering 9 MB every time, max_turns
// 12. Its first answer is over the 4 KiB cap of a simulated user turn:
// the scenario stops there with a SimulatorError saying so, the bot
// never hears it, and what is recorded of it is its error, not the
// answer. At 0bdf656 the 9 MB answer became the bot's next message and
// was recorded with every later turn (the guard stops the rambler after
// 2 answers: 3 bot calls, each later one sent 9 MB).
// The request asks for at most 256 tokens (the simulator block's
// default max_tokens).
func TestScenarioLLMSimulatorHugeAnswerCapped(t *testing.T) {
	huge := strings.Repeat("我要订票z", 9<<20/13) // 9 MB
	bot := &echoBot{}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	sim := &rambler{answer: func(int) string { return huge }, calls: 2}
	llm := httptest.NewServer(sim)
	defer llm.Close()
	dir := writeSuite(t, fmt.Sprintf(ramblerSuite, srv.URL, llm.URL))
	run := filepath.Join(dir, "run")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"))
	runtime.ReadMemStats(&after)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	st, err := os.Stat(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("results.jsonl %d bytes, %d MB allocated", st.Size(), (after.TotalAlloc-before.TotalAlloc)>>20)
	if st.Size() > 16<<10 {
		t.Errorf("results.jsonl is %d bytes, want under 16 KiB: the 9 MB answer is not recorded", st.Size())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 160<<20 {
		t.Errorf("the run allocated %d MB, want under 160 MB (a few copies of one 9 MB answer)", alloc>>20)
	}
	if len(sim.bodies) != 1 || bot.calls != 1 || bot.longest > 64 {
		t.Errorf("simulator asked %d times, bot %d times (longest message %d bytes); want 1, 1 and the opening only", len(sim.bodies), bot.calls, bot.longest)
	}
	if len(sim.bodies) > 0 && !strings.HasSuffix(sim.bodies[0], `,"max_tokens":256}`) {
		t.Errorf("the simulator request does not end with max_tokens 256: …%s", sim.bodies[0][max(0, len(sim.bodies[0])-80):])
	}
	want := fmt.Sprintf(`simulating the user: the answer of %d bytes is over the 4096-byte limit of a simulated user turn; it begins "我要订票z我要订票z`, len(huge))
	raw, _ := os.ReadFile(filepath.Join(run, "results.jsonl"))
	var r schema.Result
	if err := r.UnmarshalJSON(raw[:len(raw)-1]); err != nil {
		t.Fatalf("results.jsonl: %v", err)
	}
	if r.Error == nil || r.Error.Type != schema.ErrSimulator || !strings.HasPrefix(r.Error.Message, want) {
		t.Errorf("turn 1's error is %+v, want a SimulatorError starting %q", r.Error, want)
	}
	if s := r.Simulator; s == nil || s.Error == nil || s.Error.Type != "AnswerTooLong" || s.Reply != "" || len(s.Response) != 0 {
		t.Errorf("recorded simulator call %+v, want an AnswerTooLong error and no answer", s)
	}
	if sc := simulatedReport(t, filepath.Join(dir, "r.json")); sc.Scenarios != 1 || sc.Errored != 1 {
		t.Errorf("metrics.scenario = %+v, want 1 scenario, errored", sc)
	}
	if !strings.Contains(out, "over the 4096-byte limit of a simulated user turn") {
		t.Errorf("the console does not say why the scenario stopped:\n%s", out[max(0, len(out)-2000):])
	}
}

// talkative is a simulator's answer of about 2 KB for user turn n (under
// the cap), never the stop word: the scenario runs to max_turns.
func talkative(n int) string {
	return fmt.Sprintf("第%d次：", n) + strings.Repeat("去北京，明天出发，请帮我订票。", 40)
}

// turnOf is the user turn a simulator request asks for: one more than
// the simulated user's (assistant) turns so far.
func turnOf(body string) int { return strings.Count(body, `"role":"assistant"`) + 1 }

// Issue 35, major N4: each simulator request holds the whole conversation
// so far, and each was recorded whole, so results.jsonl grew with the
// square of a scenario's length. A simulator of ~2 KB answers against an
// echoing bot for 12 turns: each turn's record now holds only what its
// request adds to the previous one (body_from_previous), so no line is
// much longer than another — at 0bdf656 turn 11's line was 4 times turn
// 2's — and the bodies the simulator received are rebuilt byte for byte
// from results.jsonl alone. eval and a resumed run (the scenario cut
// mid-way, run again) give the same scenario figures and user turns, and
// the resumed records rebuild exactly too.
func TestScenarioLLMSimulatorRecordsLinear(t *testing.T) {
	bot := &echoBot{}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	sim := &rambler{}
	sim.answer = func(n int) string {
		sim.mu.Lock()
		defer sim.mu.Unlock()
		return talkative(turnOf(sim.bodies[n-1]))
	}
	llm := httptest.NewServer(sim)
	defer llm.Close()
	dir := writeSuite(t, fmt.Sprintf(ramblerSuite, srv.URL, llm.URL))
	run := filepath.Join(dir, "run")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "run.json")); code != ExitFail {
		t.Fatalf("exit %d, want 1 (stuck)\n%s\n%s", code, out, errs)
	}
	want := simulatedReport(t, filepath.Join(dir, "run.json"))
	if want.Scenarios != 1 || want.Stuck != 1 || len(sim.bodies) != 11 || bot.calls != 12 {
		t.Fatalf("metrics.scenario %+v, %d simulator and %d bot calls; want 1 stuck scenario, 11 and 12", want, len(sim.bodies), bot.calls)
	}
	lines := checkSimulatorRecords(t, run, sim.bodies)
	t.Logf("results.jsonl's lines: %v bytes", lines)
	for i, n := range lines {
		if n > 20<<10 {
			t.Errorf("line %d of results.jsonl is %d bytes, want under 20 KiB (lines: %v)", i+1, n, lines)
		}
	}
	turns := userTurns(t, run)

	if code, _, errs := runCLI(t, dir, nil, "eval", run, "--report-json", filepath.Join(dir, "eval.json")); code != ExitFail {
		t.Fatalf("eval: exit %d\n%s", code, errs)
	}
	if got := simulatedReport(t, filepath.Join(dir, "eval.json")); !reflect.DeepEqual(got, want) {
		t.Errorf("eval: metrics.scenario %+v, run %+v", got, want)
	}

	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.SplitAfterN(string(raw), "\n", 6)[:5] // turns 1-5 of 12: not recorded whole
	if err := os.WriteFile(filepath.Join(run, "results.jsonl"), []byte(strings.Join(cut, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	sim.bodies = nil
	if code, out, errs := runCLI(t, dir, nil, "run", "--resume", run, "--report-json", filepath.Join(dir, "resumed.json")); code != ExitFail {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
	if got := simulatedReport(t, filepath.Join(dir, "resumed.json")); !reflect.DeepEqual(got, want) || len(sim.bodies) != 11 {
		t.Errorf("resumed: metrics.scenario %+v after %d simulator calls, run %+v after 11", got, len(sim.bodies), want)
	}
	if got := userTurns(t, run); !slices.Equal(got, turns) {
		t.Errorf("resumed user turns differ:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(turns, "\n"))
	}
	checkSimulatorRecords(t, run, sim.bodies)
}

// checkSimulatorRecords rebuilds every simulator request body of the one
// scenario recorded in run's results.jsonl (the first whole, each later
// one from the previous one's first body_from_previous bytes and its own
// body) and compares them with the bodies the simulator received, in
// order; it returns the lines' lengths.
func checkSimulatorRecords(t *testing.T, run string, received []string) []int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	var rebuilt []string
	for i, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		lens = append(lens, len(line)+1)
		var r struct {
			Turn      int `json:"turn"`
			Simulator *struct {
				Request struct {
					BodyFromPrevious int    `json:"body_from_previous"`
					Body             string `json:"body"`
				} `json:"request"`
			} `json:"simulator"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Turn != i+1 || (r.Simulator == nil) != (r.Turn == 12) {
			t.Fatalf("line %d is turn %d, simulator %v", i+1, r.Turn, r.Simulator != nil)
		}
		if r.Simulator == nil {
			continue
		}
		q := r.Simulator.Request
		if (q.BodyFromPrevious == 0) != (r.Turn == 1) {
			t.Errorf("turn %d: body_from_previous %d", r.Turn, q.BodyFromPrevious)
		}
		body := q.Body
		if n := len(rebuilt); n > 0 && q.BodyFromPrevious <= len(rebuilt[n-1]) {
			body = rebuilt[n-1][:q.BodyFromPrevious] + q.Body
		}
		rebuilt = append(rebuilt, body)
	}
	if !slices.Equal(rebuilt, received) {
		t.Errorf("the rebuilt simulator requests differ from those received (%d and %d)", len(rebuilt), len(received))
		for i := range min(len(rebuilt), len(received)) {
			if rebuilt[i] != received[i] {
				t.Errorf("request %d:\nrebuilt  %q\nreceived %q", i+1, rebuilt[i], received[i])
				break
			}
		}
	}
	return lens
}

// Issue 35, major N4, the judge's side: a rubric judge answering 1 MB
// ("pass " over and over, as the audit's judge-huge) has every verdict
// unparseable, saying the answer is over the 64 KiB cap of a judge's
// answer, and the answers are not recorded (8 judge calls, 0bdf656 wrote
// each 1 MB answer twice into results.jsonl).
func TestRubricJudgeHugeAnswerCapped(t *testing.T) {
	bot := rubricBot(t)
	huge := strings.Repeat("pass ", 1<<20/5)
	jsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { openaiAnswer(w, huge) }))
	defer jsrv.Close()
	dir := writeSuite(t, rubricSuite)
	run, rep := filepath.Join(dir, "run"), filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "bot_url="+bot.URL, "--var", "judge_url="+jsrv.URL, "--out", run, "--report-json", rep)
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s%s", code, out[:min(len(out), 4000)], errs)
	}
	checkRubric(t, "run", rubricMetrics(t, rep), map[string]rubricWant{
		"empathy": {judged: 4, unparseable: 4}, "helpful": {judged: 4, unparseable: 4},
	})
	// The answer's size is its response's (the chat completion around it).
	want := regexp.MustCompile(`rubric empathy: unparseable — judge "llm-judge" failed: AnswerTooLong: the answer of 10486\d\d bytes is over the 65536-byte limit of a judge's answer; it begins "pass pass`)
	if !want.MatchString(out) {
		t.Errorf("the console lacks %q:\n%s", want, out[:min(len(out), 4000)])
	}
	if st, err := os.Stat(filepath.Join(run, "results.jsonl")); err != nil || st.Size() > 64<<10 {
		t.Errorf("results.jsonl: %v bytes (%v), want under 64 KiB", st.Size(), err)
	}
}
