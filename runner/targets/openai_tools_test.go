package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// toolMsg is a chat message as the fake agent reads it.
type toolMsg struct {
	Role       string `json:"role"`
	Content    *string
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// fakeAgent is an OpenAI-compatible server whose answers plan gives from
// the request's messages; it checks the protocol (every call answered by
// a tool message before anything else) and keeps each request's body.
type fakeAgent struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newFakeAgent(t *testing.T, plan func(msgs []toolMsg) string) *fakeAgent {
	fa := &fakeAgent{}
	fa.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []toolMsg `json:"messages"`
			Tools    []any     `json:"tools"`
		}
		if json.Unmarshal(raw, &req) != nil || len(req.Tools) == 0 {
			http.Error(w, "no tools offered", http.StatusBadRequest)
			return
		}
		pending := map[string]bool{}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				if !pending[m.ToolCallID] {
					http.Error(w, "tool message answers no call: "+m.ToolCallID, http.StatusBadRequest)
					return
				}
				delete(pending, m.ToolCallID)
				continue
			}
			if len(pending) > 0 {
				http.Error(w, "unanswered call", http.StatusBadRequest)
				return
			}
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
		}
		fa.mu.Lock()
		fa.bodies = append(fa.bodies, string(raw))
		fa.mu.Unlock()
		_, _ = io.WriteString(w, `{"choices":[{"message":`+plan(req.Messages)+`}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`)
	}))
	t.Cleanup(fa.Close)
	return fa
}

// calls is an assistant message calling tools: name, then arguments
// text, for each; ids call_<step>_<i>.
func calls(step int, pairs ...string) string {
	var cs []string
	for i := 0; i < len(pairs); i += 2 {
		a, _ := json.Marshal(pairs[i+1])
		cs = append(cs, fmt.Sprintf(`{"id":"call_%d_%d","type":"function","function":{"name":%q,"arguments":%s}}`, step, i/2, pairs[i], a))
	}
	return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(cs, ",") + `]}`
}

func words(s string) string {
	c, _ := json.Marshal(s)
	return `{"role":"assistant","content":` + string(c) + `}`
}

const toolAgentSuite = `
suite "s" {}
variable "llm_url" {}
target "agent" {
  openai {
    url            = var.llm_url
    model          = "m"
    max_tool_steps = 3
  }
}
tool "search" {
  case {
    when   = { "$.city" = "拉萨" }
    result = { error = "no flights" }
  }
  result = { flights = ["F-${args.city}"] }
}
tool "book" {
  result = { order = "B-${args.city}", n = length(try(mocks.bookings, [])) + 1 }
  effect {
    append = "bookings"
    value  = args
  }
}
`

// runTool runs the scripts through runner.Run against the suite's
// target and returns the results per script, in order.
func runTool(t *testing.T, s *spec.Suite, scripts ...*schema.Script) map[string][]*schema.Result {
	t.Helper()
	caller, err := NewCaller(context.Background(), s, s.Target(""), runner.CallerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	out := map[string][]*schema.Result{}
	var mu sync.Mutex
	err = runner.Run(context.Background(), caller, func(yield func(*schema.Script) error) error {
		for _, sc := range scripts {
			if err := yield(sc); err != nil {
				return err
			}
		}
		return nil
	}, runner.Config[struct{}]{Concurrency: 2, OnResult: func(r *schema.Result, _ struct{}) error {
		mu.Lock()
		out[r.Script] = append(out[r.Script], r)
		mu.Unlock()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func script(id string, final *schema.FinalStateQuery, texts ...string) *schema.Script {
	sc := &schema.Script{ID: id, FinalState: final}
	for j, text := range texts {
		sc.Turns = append(sc.Turns, &schema.Case{ID: fmt.Sprintf("%s/%d", id, j+1), Script: id, Turn: j + 1, Text: text})
	}
	return sc
}

// An openai target offers the suite's tool blocks and answers the model's
// calls with them: the assistant message and one tool message per call
// go back, parallel calls included, until the model answers in words;
// every call is recorded with its step, arguments and result; arguments
// that are not JSON and a tool without a mock get an error object, not a
// crash; the calls' effects make the mock state final_state reads; a
// later turn sends the earlier turns' tool messages; a model that never
// stops calling is cut at max_tool_steps (ToolLoopError).
func TestOpenAIToolLoop(t *testing.T) {
	fa := newFakeAgent(t, func(msgs []toolMsg) string {
		last := msgs[len(msgs)-1]
		firstUser := ""
		tools := 0
		for _, m := range msgs {
			if m.Role == "user" && firstUser == "" && m.Content != nil {
				firstUser = *m.Content
			}
			if m.Role == "tool" {
				tools++
			}
		}
		switch {
		case firstUser == "循环":
			return calls(tools+1, "search", `{"city":"北京"}`)
		case last.Role == "user" && *last.Content == "订票":
			return calls(1, "search", `{"city":"上海"}`)
		case last.Role == "tool" && tools == 1:
			return calls(2, "book", `{"city":"上海"}`, "weather", `{"city":"上海"}`, "search", `{"city":`, "search", `{"city":"拉萨"}`)
		case last.Role == "tool":
			return words("订好了")
		}
		return words(fmt.Sprintf("见过%d条工具消息", tools))
	})
	s, err := loadWith(t, toolAgentSuite, map[string]string{"NLUTEST_VAR_llm_url": fa.URL})
	if err != nil {
		t.Fatal(err)
	}
	out := runTool(t, s, script("订", &schema.FinalStateQuery{Mocks: true}, "订票", "还有吗"), script("循环", nil, "循环"))
	booked := out["订"]
	if len(booked) != 2 || booked[0].Error != nil || booked[1].Error != nil {
		t.Fatalf("results %+v", booked)
	}
	var got []string
	for _, c := range booked[0].ToolCalls {
		got = append(got, fmt.Sprintf("%d %s %s|%s %s|%s|%s", c.Step, c.Name, c.Arguments, c.ArgumentsText, c.Result, c.ResultText, c.Error))
	}
	want := []string{
		`1 search {"city":"上海"}| {"flights":["F-上海"]}||`,
		`2 book {"city":"上海"}| {"n":1,"order":"B-上海"}||`,
		`2 weather {"city":"上海"}| {"error":"no mock for tool \"weather\""}||no mock for tool "weather"`,
		`2 search |{"city": {"error":"the arguments are not JSON: unexpected end of JSON input"}||the arguments are not JSON: unexpected end of JSON input`,
		`2 search {"city":"拉萨"}| {"error":"no flights"}||`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tool calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if booked[0].Reply != "订好了" || booked[0].Attempts != 3 || booked[0].Usage == nil || booked[0].Usage.TotalTokens != 36 {
		t.Errorf("turn 1: reply %q, attempts %d, usage %+v; want 订好了, 3 requests, 36 tokens", booked[0].Reply, booked[0].Attempts, booked[0].Usage)
	}
	if booked[1].Reply != "见过5条工具消息" {
		t.Errorf("turn 2 does not send turn 1's tool messages: %q", booked[1].Reply)
	}
	if fs := booked[1].FinalState; fs == nil || fs.From != "mocks" || string(fs.State) != `{"bookings":[{"city":"上海"}]}` || booked[0].FinalState != nil {
		t.Errorf("final state %+v (turn 1: %+v)", fs, booked[0].FinalState)
	}
	if e := booked[1].EarlierTools; strings.Join(e, ",") != "search,book,weather,search,search" {
		t.Errorf("earlier tools %q", e)
	}
	loop := out["循环"]
	if len(loop) != 1 || loop[0].Error == nil || loop[0].Error.Type != schema.ErrToolLoop || len(loop[0].ToolCalls) != 3 ||
		!strings.Contains(loop[0].Error.Message, "after 3 model requests (max_tool_steps 3") {
		t.Errorf("loop: %+v %+v", loop[0].Error, loop[0].ToolCalls)
	}
}

// final_state with a url reads the state endpoint with GET after the
// last turn, through the target's client, sending the block's headers;
// an endpoint that fails is recorded as the state's error; a target that
// runs no mock tools says so for from = "mocks".
func TestFinalStateEndpoint(t *testing.T) {
	var got []string
	state := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Token"))
		if strings.HasSuffix(r.URL.Path, "/down") {
			http.Error(w, "维护中", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, `{"bookings": [{"city": "上海"}]}`)
	}))
	defer state.Close()
	bot := newContentServer(t, func(string) string { return "好的" })
	s, err := loadWith(t, openaiTarget(""), map[string]string{"NLUTEST_VAR_llm_url": bot.URL})
	if err != nil {
		t.Fatal(err)
	}
	q := func(path string) *schema.FinalStateQuery {
		return &schema.FinalStateQuery{Request: func(c *schema.Case) (string, map[string]string, error) {
			return state.URL + "/state/" + c.Script + path, map[string]string{"X-Token": "t"}, nil
		}}
	}
	out := runTool(t, s, script("a", q(""), "订票"), script("b", q("/down"), "订票"), script("c", &schema.FinalStateQuery{Mocks: true}, "订票"))
	if fs := out["a"][0].FinalState; fs == nil || fs.Error != nil || string(fs.State) != `{"bookings":[{"city":"上海"}]}` || fs.Request.Method != "GET" {
		t.Errorf("a: %+v", fs)
	}
	if fs := out["b"][0].FinalState; fs == nil || fs.Error == nil || fs.Status != 503 || !strings.Contains(fs.Body, "维护中") {
		t.Errorf("b: %+v", fs)
	}
	if fs := out["c"][0].FinalState; fs == nil || fs.Error == nil || !strings.Contains(fs.Error.Message, "runs no mock tools") {
		t.Errorf("c: %+v", fs)
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, "|"), "GET /state/a t") {
		t.Errorf("state requests %q", got)
	}
}

// An http target's tool_calls maps the answer's own list of calls.
func TestHTTPToolCallsMapping(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"answer":"查到了","actions":[{"tool":"search","input":{"city":"上海"},"output":{"n":2}},{"tool":"book","input":"{\"city\":\"上海\"}"},{"input":"{bad"}]}`)
	}))
	defer agent.Close()
	s, err := loadWith(t, `
suite "s" {}
variable "url" {}
target "agent" {
  http {
    url        = var.url
    reply      = response.answer
    tool_calls = { path = "$.actions", name = "$.tool", arguments = "$.input", result = "$.output" }
  }
}
`, map[string]string{"NLUTEST_VAR_url": agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := runTool(t, s, script("x", nil, "查航班"))["x"][0]
	var got []string
	for _, c := range r.ToolCalls {
		got = append(got, fmt.Sprintf("%s %s|%s %s|%s", c.Name, c.Arguments, c.ArgumentsText, c.Result, c.Error))
	}
	want := `search {"city":"上海"}| {"n":2}|
book {"city":"上海"}| |
 |{bad |the call has no name at $.tool`
	if r.Reply != "查到了" || strings.Join(got, "\n") != want {
		t.Errorf("reply %q, calls\n%s\nwant\n%s", r.Reply, strings.Join(got, "\n"), want)
	}
	_, err = loadWith(t, `
suite "s" {}
target "agent" {
  http {
    url        = "http://127.0.0.1:9"
    tool_calls = { path = "$.actions", nmae = "$.tool" }
  }
}
`, nil)
	if err == nil || !strings.Contains(err.Error(), "Invalid tool_calls") {
		t.Errorf("a tool_calls without name: %v", err)
	}
}

// Arguments over 16 KiB are recorded cut, with the reason, while the mock
// answers the whole arguments; a result over 4 KiB is recorded cut while
// the agent gets it whole.
func TestToolCallCaps(t *testing.T) {
	long := strings.Repeat("长", 6000) // 18,000 bytes
	fa := newFakeAgent(t, func(msgs []toolMsg) string {
		last := msgs[len(msgs)-1]
		if last.Role == "tool" {
			return words(fmt.Sprintf("结果%d字节", len(*last.Content)))
		}
		return calls(1, "echo", `{"text":"`+long+`"}`)
	})
	s, err := loadWith(t, `
suite "s" {}
variable "llm_url" {}
target "agent" {
  openai {
    url   = var.llm_url
    model = "m"
  }
}
tool "echo" {
  result = { text = args.text, n = strlen(args.text) }
}
`, map[string]string{"NLUTEST_VAR_llm_url": fa.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := runTool(t, s, script("x", nil, "回声"))["x"][0]
	if r.Error != nil || len(r.ToolCalls) != 1 {
		t.Fatalf("%+v", r)
	}
	c := r.ToolCalls[0]
	if c.Arguments != nil || len(c.ArgumentsText) > schema.MaxToolArgumentBytes+40 || !strings.Contains(c.ArgumentsText, "bytes in all") ||
		!strings.Contains(c.Error, "over the 16384-byte cap") {
		t.Errorf("arguments: %d bytes recorded, error %q", len(c.ArgumentsText), c.Error)
	}
	if c.Result != nil || len(c.ResultText) > schema.MaxToolResultBytes+40 || !strings.Contains(c.ResultText, "bytes in all") || !strings.Contains(r.Reply, "结果18020字节") {
		t.Errorf("result: %d bytes recorded, reply %q (the agent must get the whole result)", len(c.ResultText), r.Reply)
	}
}
