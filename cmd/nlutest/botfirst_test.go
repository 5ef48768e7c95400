package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
)

// ticketBrain is the dialogue of the fake ticket bot the three protocol
// fakes below share (issue 22's acceptance: one suite, three protocols,
// identical outcomes). Its state is per session: a session opened with
// the start event is welcomed; "我想去X" books a ticket and names an order
// number; "确认" confirms the session's order; "查询订单N" reads one back.
type ticketBrain struct {
	mu     sync.Mutex
	orders map[string]string // session → its order number
	next   int
	// seen are the requests, one line each: protocol, session, event, text.
	seen []string
}

func newTicketBrain() *ticketBrain { return &ticketBrain{orders: map[string]string{}, next: 7001} }

const ticketWelcome = "您好，欢迎来到票务助手！请问您想去哪里？"

func (b *ticketBrain) answer(proto, session, event, text string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, proto+"|"+session+"|"+event+"|"+text)
	switch {
	case event == "start":
		return ticketWelcome
	case strings.HasPrefix(text, "我想去"):
		city := strings.TrimPrefix(text, "我想去")
		order := fmt.Sprintf("T%d", b.next)
		b.next++
		b.orders[session] = order
		return "好的，去" + city + "的票已为您预留，订单号 " + order + "。请回复“确认”。"
	case text == "确认":
		if o, ok := b.orders[session]; ok {
			return "订单 " + o + " 已确认，祝您旅途愉快。"
		}
		return "您还没有预留的订单。"
	case strings.HasPrefix(text, "查询订单"):
		return "订单 " + strings.TrimPrefix(text, "查询订单") + " 已出票。"
	}
	return "抱歉，我没有听懂。"
}

func (b *ticketBrain) requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.seen...)
}

// serveRasa is the brain behind Rasa's REST channel: POST
// /webhooks/rest/webhook {"sender", "message"} → [{"text": …}];
// "/session_start" (Rasa's intent shorthand) opens the session.
func (b *ticketBrain) serveRasa(w http.ResponseWriter, r *http.Request) {
	var req struct{ Sender, Message string }
	if r.URL.Path != "/webhooks/rest/webhook" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Sender == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	event, text := "", req.Message
	if req.Message == "/session_start" {
		event, text = "start", ""
	}
	_ = json.NewEncoder(w).Encode([]map[string]any{{"recipient_id": req.Sender, "text": b.answer("rasa", req.Sender, event, text)}})
}

// serveJSON is the brain behind a plain JSON protocol: POST {"session",
// "event", "text"} → {"answer": …}.
func (b *ticketBrain) serveJSON(w http.ResponseWriter, r *http.Request) {
	var req struct{ Session, Event, Text string }
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Session == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"answer": b.answer("http", req.Session, req.Event, req.Text)})
}

// serveOpenAI is the brain behind OpenAI chat completions: the session is
// the body's user member (the target's session = { user = true }); the
// answer is the content.
func (b *ticketBrain) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		User     string `json:"user"`
		Messages []struct{ Role, Content string }
	}
	if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(raw, &req) != nil || req.User == "" || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	content := b.answer("openai", req.User, "", req.Messages[len(req.Messages)-1].Content)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// ticketTargets are the three targets of the shared suite; only the
// target block differs between the protocols.
const ticketTargets = `
variable "rasa_url" { default = "http://127.0.0.1:1" }
variable "json_url" { default = "http://127.0.0.1:1" }
variable "llm_url" { default = "http://127.0.0.1:1/v1" }
target "rasa" {
  rasa {
    url  = var.rasa_url
    mode = "webhook"
  }
}
target "json" {
  http {
    url   = var.json_url
    body  = { session = case.conversation, event = case.event, text = case.text }
    reply = response.answer
  }
}
target "openai" {
  openai {
    url     = var.llm_url
    model   = "ticket-bot"
    session = { user = true }
  }
}
`

// startTicketFakes starts the three fakes on 127.0.0.1 and returns the
// --var flags pointing the targets at them.
func startTicketFakes(t *testing.T, b *ticketBrain) []string {
	t.Helper()
	var vars []string
	for name, h := range map[string]http.HandlerFunc{"rasa_url": b.serveRasa, "json_url": b.serveJSON, "llm_url": b.serveOpenAI} {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		u := srv.URL
		if name == "llm_url" {
			u += "/v1"
		}
		vars = append(vars, "--var", name+"="+u)
	}
	return vars
}

// readRun reads a run directory's results in file order.
func readRun(t *testing.T, run string) []*schema.Result {
	t.Helper()
	var out []*schema.Result
	if err := runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

const welcomeSuite = `
suite "票务" {}
materials "城市" { values = ["北京", "上海"] }
conversation "欢迎" {
  turn {
    bot_first = true
    assert {
      condition = strcontains(reply, "欢迎")
      message   = "the bot welcomes the user"
    }
  }
  turn {
    user = "我想去{城市}"
    assert {
      condition = strcontains(reply, slot.城市)
      message   = "the booking names the city"
    }
  }
}
`

// A bot-first turn opens the session without a user message: the rasa
// webhook sends /session_start, an http target's request has case.text ""
// and case.event "start"; the welcome is the turn's reply and, for the
// next turn, the first message of the history (an assistant message,
// with no user message before it).
func TestBotFirstWelcome(t *testing.T) {
	for _, target := range []string{"rasa", "json"} {
		t.Run(target, func(t *testing.T) {
			b := newTicketBrain()
			dir := writeSuite(t, welcomeSuite+ticketTargets+`
target "history" {
  http {
    url   = var.json_url
    body  = { session = case.conversation, event = case.event, text = jsonencode(case.history) }
    reply = response.answer
  }
}
`)
			run := filepath.Join(dir, "run")
			args := append([]string{"run", dir, "--target", target, "--out", run}, startTicketFakes(t, b)...)
			code, out, errs := runCLI(t, dir, nil, args...)
			if code != ExitPass {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			// eval rebuilds the bot-first turns from the suite offline.
			if code, out, errs := runCLI(t, dir, nil, "eval", run, "--quiet"); code != ExitPass || !strings.Contains(out, "4 passed") {
				t.Errorf("eval: exit %d\n%s%s", code, out, errs)
			}
			res := readRun(t, run)
			if len(res) != 4 {
				t.Fatalf("%d results, want 4 (2 conversations × 2 turns)", len(res))
			}
			for _, r := range res {
				if r.Turn == 1 && (r.Event != "start" || r.Text != "" || r.Reply != ticketWelcome) {
					t.Errorf("turn 1: event %q text %q reply %q; want start, \"\", the welcome", r.Event, r.Text, r.Reply)
				}
				if r.Turn == 2 && r.Event != "" {
					t.Errorf("turn 2: event %q, want none", r.Event)
				}
			}
			starts := 0
			for _, line := range b.requests() {
				if strings.Contains(line, "|start|") {
					starts++
				}
			}
			if starts != 2 {
				t.Errorf("%d start requests, want 2:\n%s", starts, strings.Join(b.requests(), "\n"))
			}
			if target == "rasa" && !strings.Contains(res[0].Request.Body, `"message":"/session_start"`) && !strings.Contains(res[1].Request.Body, `"message":"/session_start"`) {
				t.Errorf("no /session_start in the recorded requests: %s / %s", res[0].Request.Body, res[1].Request.Body)
			}
		})
	}
	// The history a later turn receives starts with the welcome.
	b := newTicketBrain()
	dir := writeSuite(t, welcomeSuite+ticketTargets+`
target "history" {
  http {
    url   = var.json_url
    body  = { session = case.conversation, event = case.event, text = case.turn == 2 ? jsonencode(case.history) : "" }
    reply = case.turn == 1 ? "欢迎" : response.answer
  }
}
`)
	run := filepath.Join(dir, "run")
	args := append([]string{"run", dir, "--target", "history", "--out", run}, startTicketFakes(t, b)...)
	runCLI(t, dir, nil, args...)
	want := `[{"content":"欢迎","role":"assistant"}]`
	found := 0
	for _, line := range b.requests() {
		if strings.HasSuffix(line, "|"+want) {
			found++
		}
	}
	if found != 2 {
		t.Errorf("turn 2's history: want %s in 2 requests, got\n%s", want, strings.Join(b.requests(), "\n"))
	}
}

// An openai target cannot open a session without a user message: a suite
// whose only bot target is openai is refused at load (validate), and run
// --target openai refuses a selection holding a bot-first conversation
// before any call; leaving that conversation out (--filter) runs the rest.
func TestBotFirstRefusedByOpenAI(t *testing.T) {
	b := newTicketBrain()
	only := strings.Replace(ticketTargets, "target \"rasa\"", "target \"r\"", 1)
	only = only[:strings.Index(only, "target \"r\"")] + only[strings.Index(only, "target \"openai\""):]
	dir := writeSuite(t, welcomeSuite+only)
	code, _, errs := runCLI(t, dir, nil, "validate", dir)
	if code != ExitInvalid || !strings.Contains(errs, "suite.nlutest.hcl:6:5") || !strings.Contains(errs, "Bot-first turn against a target that cannot start a session") ||
		!strings.Contains(errs, `the target "openai" (openai) cannot open a conversation without a user message`) {
		t.Errorf("validate: exit %d, want 2 with a located refusal:\n%s", code, errs)
	}

	dir = writeSuite(t, welcomeSuite+ticketTargets+`
conversation "订票" {
  turn {
    user = "我想去{城市}"
    assert {
      condition = strcontains(reply, "订单号")
      message   = "the booking names the order"
    }
  }
}
`)
	vars := startTicketFakes(t, b)
	if code, _, errs := runCLI(t, dir, nil, "validate", dir); code != ExitPass {
		t.Fatalf("validate with a rasa target: exit %d\n%s", code, errs)
	}
	args := append([]string{"run", dir, "--target", "openai", "--out", filepath.Join(dir, "r1")}, vars...)
	code, _, errs = runCLI(t, dir, nil, args...)
	if code != ExitInvalid || !strings.Contains(errs, "suite.nlutest.hcl:6:5") || !strings.Contains(errs, `the target "openai" cannot run this selection; nothing ran`) {
		t.Errorf("run --target openai: exit %d, want 2 with a located refusal:\n%s", code, errs)
	}
	// Against several targets, the refusal comes before the first target's
	// first call.
	args = append([]string{"run", dir, "--target", "rasa", "--target", "openai", "--out", filepath.Join(dir, "r3")}, vars...)
	code, _, errs = runCLI(t, dir, nil, args...)
	if code != ExitInvalid || !strings.Contains(errs, `the target "openai" cannot run this selection; nothing ran`) {
		t.Errorf("run --target rasa --target openai: exit %d, want 2 with a located refusal:\n%s", code, errs)
	}
	if n := len(b.requests()); n != 0 {
		t.Errorf("the refused runs made %d calls", n)
	}
	args = append([]string{"run", dir, "--target", "openai", "--filter", "^订票$", "--out", filepath.Join(dir, "r2")}, vars...)
	if code, out, errs := runCLI(t, dir, nil, args...); code != ExitPass || !strings.Contains(out, "2 passed") {
		t.Errorf("run --target openai --filter: exit %d\n%s\n%s", code, out, errs)
	}
}

// Fragments: turn { use = "NAME" } stands for the fragment's turns in
// place; their placeholders take the using conversation's slot assignment.
func TestFragmentTurns(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.nlutest.hcl": `suite "票务" {}
materials "城市" { values = ["北京", "上海"] }
target "t" {
  demo {}
}
conversation "订票" {
  turn { user = "你好" }
  turn { use = "下单" }
  turn { user = "谢谢，{城市}见" }
}
`,
		"b.nlutest.hcl": `fragment "下单" {
  turn { user = "我想去{城市}" }
  turn { use = "确认" }
}
fragment "确认" {
  turn { user = "确认去{城市}" }
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI(t, dir, nil, "generate", dir)
	if code != ExitPass {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	var texts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var c schema.Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, fmt.Sprintf("%d:%s", c.Turn, c.Text))
	}
	got := strings.Join(texts, " ")
	for _, want := range []string{"1:你好 2:我想去北京 3:确认去北京 4:谢谢，北京见", "1:你好 2:我想去上海 3:确认去上海 4:谢谢，上海见"} {
		if !strings.Contains(got, want) {
			t.Errorf("generated %s\nwant the turns %s", got, want)
		}
	}
}

// Mistakes with bot_first and fragments are located diagnostics (exit 2);
// a mistake inside a fragment points into the fragment's file.
func TestBotFirstAndFragmentDiagnostics(t *testing.T) {
	for _, tc := range []struct{ name, block, frag, want string }{
		{"bot first later", `conversation "c" {
  turn { user = "你好" }
  turn { bot_first = true }
}`, "", "suite.nlutest.hcl:8:10|Bot-first turn after the first|"},
		{"bot first with user", `conversation "c" {
  turn {
    bot_first = true
    user      = "你好"
  }
}`, "", "suite.nlutest.hcl:8:5|Bot-first turn with a user message|"},
		{"no user", `conversation "c" {
  turn { expect = { "$.a" = "b" } }
}`, "", "suite.nlutest.hcl:7:3|Turn without user|"},
		{"unknown fragment", `conversation "c" {
  turn { use = "确认下便" }
}`, `fragment "确认下单" {
  turn { user = "确认" }
}`, `suite.nlutest.hcl:7:16|Unknown fragment|No fragment block is named "确认下便". Did you mean "确认下单"?`},
		{"cycle", `conversation "c" {
  turn { use = "甲" }
}`, `fragment "甲" {
  turn { user = "一" }
  turn { use = "乙" }
}
fragment "乙" {
  turn { use = "甲" }
}`, `frag.nlutest.hcl:6:16|Fragment uses itself|The fragment "甲" uses itself (甲 → 乙 → 甲)`},
		{"use with more", `conversation "c" {
  turn {
    use  = "甲"
    user = "你好"
  }
}`, `fragment "甲" {
  turn { user = "一" }
}`, `suite.nlutest.hcl:9:5|Use with other turn attributes|`},
		{"error in a fragment", `conversation "c" {
  turn { use = "甲" }
}
conversation "d" {
  turn { use = "甲" }
}`, `fragment "甲" {
  turn { user = "去{城巿}" }
}`, `frag.nlutest.hcl:2:19|Unknown materials|`},
		{"bot first fragment later", `conversation "c" {
  turn { user = "你好" }
  turn { use = "欢迎" }
}`, `fragment "欢迎" {
  turn { bot_first = true }
}`, `frag.nlutest.hcl:2:10|Bot-first turn after the first|`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSuite(t, "suite \"s\" {}\ntarget \"t\" {\n  demo {}\n}\nmaterials \"城市\" { values = [\"北京\"] }\n"+tc.block+"\n")
			if tc.frag != "" {
				if err := os.WriteFile(filepath.Join(dir, "frag.nlutest.hcl"), []byte(tc.frag+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, _, errs := runCLI(t, dir, nil, "validate", dir)
			flat := strings.Join(strings.Fields(strings.ReplaceAll(errs, "\n", " ")), " ")
			want := strings.SplitN(tc.want, "|", 3)
			if n := strings.Count(errs, "Error: "); n != 1 {
				t.Errorf("%d errors, want 1 (a fragment's mistake once, however many conversations use it):\n%s", n, errs)
			}
			if code != ExitInvalid || !strings.Contains(errs, "Error: "+want[1]+"\n") || !strings.Contains(errs, string(os.PathSeparator)+want[0]+":\n") || !strings.Contains(flat, want[2]) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tc.want, errs)
			}
		})
	}
}

// The demo booking bot answers a bot-first turn (event "start") with its
// welcome, and the conversation goes on from its first state.
func TestBookingBotWelcome(t *testing.T) {
	dir := writeSuite(t, welcomeSuite+`
target "booking" {
  demo { endpoint = "booking" }
}
`)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, r := range readRun(t, run) {
		if r.Turn == 1 && (r.Reply != demo.BookingWelcome || !strings.Contains(string(r.Response), `"intent":"session_start"`) || !strings.Contains(r.Request.Body, `"event":"start"`)) {
			t.Errorf("turn 1: request %s, response %s", r.Request.Body, r.Response)
		}
		if r.Turn == 2 && !strings.Contains(string(r.Response), `"state":"ask_date"`) {
			t.Errorf("turn 2: response %s, want the bot asking the date", r.Response)
		}
	}
}
