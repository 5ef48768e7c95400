package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
)

// judgeSuite is memorySuite (the demo memory bot on 127.0.0.1) judged by
// a target: an NLI service whose verdict the judge block reads from the
// response's label.
const judgeSuite = `
suite "mem" {}
variable "nli_url" {}
target "bot" {
  demo {
    endpoint = "memory"
  }
}
target "nli" {
  http {
    url  = "${var.nli_url}/nli"
    body = { premise = judge.fact, question = judge.question, hypothesis = judge.answer, expect = judge.expect, id = case.id }
  }
  judge {
    verdict = response.label
  }
}
materials "姓名" {
  values = ["张伟", "王芳", "李雷", "韩梅梅"]
}
materials "城市" {
  values = ["北京", "上海", "广州", "成都"]
}
memory "个人信息" {
  fact {
    say    = "我叫{姓名}。"
    ask    = ["我叫什么名字？", "你还记得我的名字吗？"]
    expect = "{姓名}"
  }
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  filler   = ["今天天气怎么样？", "给我讲个笑话。", "推荐一部电影。"]
  distance = [0, 1, 2, 4, 8]
  judge    = "nli"
}
`

// fakeNLI is an NLI service on 127.0.0.1 with rules of its own, unlike the
// contains judge's: the second name question is always "neutral", the
// city question gets a label that is no verdict ("不知道"), and otherwise
// the answer is ENTAILMENT when it holds the expected value, neutral when
// the bot says it does not remember, contradiction else. It counts calls
// and checks every request carries the judge's four fields.
func fakeNLI(t *testing.T, calls *atomic.Int64) *httptest.Server {
	return fakeNLIAt(t, calls, "127.0.0.1:0")
}

// fakeNLIAt is fakeNLI listening on addr.
func fakeNLIAt(t *testing.T, calls *atomic.Int64, addr string) *httptest.Server {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var in struct{ Premise, Question, Hypothesis, Expect, ID string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Premise == "" || in.Question == "" || in.Hypothesis == "" || in.Expect == "" || in.ID == "" {
			http.Error(w, "bad judge request", http.StatusBadRequest)
			return
		}
		label := "contradiction"
		switch {
		case in.Question == "你还记得我的名字吗？":
			label = "neutral"
		case strings.Contains(in.Question, "城市"):
			label = "不知道"
		case strings.Contains(in.Hypothesis, in.Expect):
			label = "ENTAILMENT"
		case strings.Contains(in.Hypothesis, "不记得"):
			label = "neutral"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"label": label})
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func memoryMetrics(t *testing.T, path string) schema.Memory {
	t.Helper()
	var rep struct {
		Metrics struct {
			Memory schema.Memory `json:"memory"`
		} `json:"metrics"`
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Metrics.Memory
}

// verdictCounts are a node's entailed, neutral, contradicted, unanswered
// and unparseable counts.
func verdictCounts(st schema.MemoryStats) [5]int {
	return [5]int{st.Entailed, st.Neutral, st.Contradicted, st.Unanswered, st.Unparseable}
}

// Acceptance 2 of issue 14: a judge target decides the verdicts, its calls
// are recorded, cached with --cache, and eval re-judges the saved run
// offline. Hand count with the demo bot's memory (TestMemoryScoreByDistance)
// and fakeNLI's rules, 4 cases per distance, 3 questions each:
//
//	name question 1: entailed at d = 0, 1, 2 (the bot recalls it), contradicted
//	  at d = 4 (it names another), neutral at d = 8 (it forgot);
//	name question 2: neutral always; city question: unparseable always.
//
// So per distance: d=0,1,2 → 4 entailed, 4 neutral, 4 unparseable;
// d=4 → 4 contradicted, 4 neutral, 4 unparseable; d=8 → 8 neutral, 4
// unparseable. In all 12 entailed, 24 neutral, 4 contradicted, 20
// unparseable of 60. Both runs use --cache, which also checks that a
// conversation repeating a turn's text (the fillers cycle) reaches the bot
// every time: before the cache key held the turn, the second "今天天气怎么样？"
// of a session came from the cache, the bot's turn count fell behind and it
// still "remembered" facts at distance 8.
func TestMemoryJudgeTarget(t *testing.T) {
	var calls atomic.Int64
	nli := fakeNLI(t, &calls)
	dir := writeSuite(t, judgeSuite)
	run := filepath.Join(dir, "run")
	rep := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "nli_url="+nli.URL, "--cache", "--out", run, "--report-json", rep, "--report-markdown", filepath.Join(dir, "r.md"))
	if code != ExitFail && code != ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if n := calls.Load(); n != 60 {
		t.Errorf("the judge was called %d times, want 60 (every answered question once)", n)
	}
	want := map[string][5]int{"0": {4, 4, 0, 0, 4}, "1": {4, 4, 0, 0, 4}, "2": {4, 4, 0, 0, 4}, "4": {0, 4, 4, 0, 4}, "8": {0, 8, 0, 0, 4}}
	checkJudged := func(what string, m schema.Memory, want map[string][5]int, total [5]int) {
		t.Helper()
		for d, w := range want {
			if st := m.Distance[d]; st == nil || verdictCounts(*st) != w {
				t.Errorf("%s: distance %s verdicts %v, want %v", what, d, st, w)
			}
		}
		if got := verdictCounts(m.MemoryStats); got != total || m.Questions != 60 {
			t.Errorf("%s: %d questions, verdicts %v; want 60, %v", what, m.Questions, got, total)
		}
	}
	checkJudged("run", memoryMetrics(t, rep), want, [5]int{12, 24, 4, 0, 20})
	md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
	if !strings.Contains(string(md), `judge "nli" said "不知道", which is not a verdict`) {
		t.Errorf("the Markdown report does not say why a judgement is unparseable:\n%s", md)
	}
	if !strings.Contains(string(md), "memory 个人信息 [") || strings.Contains(string(md), "conversation 个人信息") {
		t.Errorf("the Markdown report does not name the failed sessions as the memory block's")
	}
	checkJudgeRecords(t, filepath.Join(run, "results.jsonl"), false)

	// eval re-judges offline: the NLI service is gone, the figures stay.
	nli.Close()
	rep2 := filepath.Join(dir, "r2.json")
	if code, out, errs := runCLI(t, dir, nil, "eval", run, "--var", "nli_url=http://127.0.0.1:1", "--report-json", rep2); code != ExitFail && code != ExitPass {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errs)
	}
	checkJudged("eval", memoryMetrics(t, rep2), want, [5]int{12, 24, 4, 0, 20})

	// A new verdict expression re-reads the recorded judgements: "不知道"
	// now counts as neutral.
	suite, _ := os.ReadFile(filepath.Join(dir, "suite.nlutest.hcl"))
	mapped := strings.Replace(string(suite), "verdict = response.label", `verdict = response.label == "不知道" ? "neutral" : response.label`, 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(mapped), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, dir, nil, "eval", run, "--var", "nli_url=http://127.0.0.1:1", "--report-json", rep2); code != ExitFail && code != ExitPass {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errs)
	}
	remapped := map[string][5]int{"0": {4, 8, 0, 0, 0}, "1": {4, 8, 0, 0, 0}, "2": {4, 8, 0, 0, 0}, "4": {0, 8, 4, 0, 0}, "8": {0, 12, 0, 0, 0}}
	checkJudged("eval with the new verdict", memoryMetrics(t, rep2), remapped, [5]int{12, 44, 4, 0, 0})
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), suite, 0o644); err != nil {
		t.Fatal(err)
	}

	// --cache: a second run, against a new NLI service at the same
	// address (the cache key holds the request's URL), answers every judge
	// request from the cache: the service sees no call.
	var calls2 atomic.Int64
	nli2 := fakeNLIAt(t, &calls2, nli.Listener.Addr().String())
	run2 := filepath.Join(dir, "run2")
	code, out, errs = runCLI(t, dir, nil, "run", dir, "--var", "nli_url="+nli2.URL, "--cache", "--out", run2, "--report-json", rep2)
	if code != ExitFail && code != ExitPass {
		t.Fatalf("cached run: exit %d\n%s\n%s", code, out, errs)
	}
	if n := calls2.Load(); n != 0 {
		t.Errorf("with --cache the judge was called %d times again, want 0", n)
	}
	checkJudged("cached run", memoryMetrics(t, rep2), want, [5]int{12, 24, 4, 0, 20})
	checkJudgeRecords(t, filepath.Join(run2, "results.jsonl"), true)
}

// checkJudgeRecords: every answered question's result records the judge's
// call (target, request with the judge's fields, response; cached as
// expected) and no other turn has one.
func checkJudgeRecords(t *testing.T, path string, cached bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Fact == "" {
			if r.Judge != nil {
				t.Errorf("%s: a turn that is no question has a judgement", r.ID)
			}
			continue
		}
		j := r.Judge
		if j == nil {
			t.Errorf("%s: no judgement recorded", r.ID)
			continue
		}
		judged++
		if j.Target != "nli" || j.Request == nil || !strings.Contains(j.Request.Body, `"premise":"`+r.Fact+`"`) || len(j.Response) == 0 || j.Cached != cached {
			t.Errorf("%s: judgement %+v (request %+v)", r.ID, j, j.Request)
		}
	}
	if judged != 60 {
		t.Errorf("%d judgements recorded, want 60", judged)
	}
}

// judgeNames: a judge's names are checked at load like every other name.
func TestJudgeNamesValidate(t *testing.T) {
	base := strings.Replace(judgeSuite, `variable "nli_url" {}`, `variable "nli_url" { default = "http://127.0.0.1:1" }`, 1)
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"judge outside a judge target", `endpoint = "memory"`, "endpoint = \"memory\"\n  }\n}\ntarget \"other\" {\n  http {\n    url  = \"http://127.0.0.1:1\"\n    body = { a = judge.answer }",
			`"judge" can be used only in the request and judge block of a target with a judge block`},
		{"unknown judge attribute", "hypothesis = judge.answer", "hypothesis = judge.anwser", `judge has no attribute "anwser". Did you mean "answer"?`},
		{"case in the verdict", "verdict = response.label", "verdict = case.id", `In a judge verdict you can use "var", "judge", "response" or "reply".`},
	} {
		dir := writeSuite(t, strings.Replace(base, tc.from, tc.to, 1))
		code, out, errs := runCLI(t, dir, nil, "validate", dir)
		if code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, want 2 with %q:\n%s%s", tc.name, code, tc.want, out, errs)
		}
	}
	dir := writeSuite(t, base)
	if code, out, errs := runCLI(t, dir, nil, "validate", dir); code != ExitPass {
		t.Errorf("the judge suite does not validate: exit %d\n%s%s", code, out, errs)
	}
}

// An openai target judges with the documented prompt (docs/memory.md) and
// the fact, question, expected answer and answer in its layout, without
// the conversation; its reply must be one verdict word, and a chatty one
// is unparseable, counted apart and never guessed.
func TestOpenAIJudge(t *testing.T) {
	var bad atomic.Int64
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || len(req.Messages) != 2 ||
			req.Messages[0].Role != "system" || req.Messages[0].Content != targets.JudgeSystemPrompt || req.Messages[1].Role != "user" {
			bad.Add(1)
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		user := req.Messages[1].Content
		content := "The chatbot's answer entails the fact." // not one word: unparseable
		if strings.HasPrefix(user, `Fact: "我叫`) && strings.Contains(user, "\nQuestion: \"我叫什么名字？\"\nExpected answer: ") {
			content = " Entailment.\n"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	defer llm.Close()
	suite := strings.Replace(judgeSuite, `target "nli" {
  http {
    url  = "${var.nli_url}/nli"
    body = { premise = judge.fact, question = judge.question, hypothesis = judge.answer, expect = judge.expect, id = case.id }
  }
  judge {
    verdict = response.label
  }
}`, `target "nli" {
  openai {
    url   = "${var.nli_url}/v1"
    model = "judge-model"
  }
  judge {}
}`, 1)
	suite = strings.Replace(suite, "distance = [0, 1, 2, 4, 8]", "distance = [0]", 1)
	dir := writeSuite(t, suite)
	rep := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "nli_url="+llm.URL, "--out", filepath.Join(dir, "run"), "--report-json", rep)
	if code != ExitFail && code != ExitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if bad.Load() != 0 {
		t.Errorf("%d judge requests were not the documented prompt", bad.Load())
	}
	// 4 cases × 3 questions at distance 0: the first name question is
	// entailed, the other name question and the city question unparseable.
	m := memoryMetrics(t, rep)
	if got := verdictCounts(m.MemoryStats); got != [5]int{4, 0, 0, 0, 8} || m.Questions != 12 {
		t.Errorf("verdicts %v of %d, want [4 0 0 0 8] of 12", got, m.Questions)
	}
}
