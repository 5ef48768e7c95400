package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// replyBot is a travel bot on 127.0.0.1 that answers in text: turn 1
// "订去X的票" → "好的，去X。请问哪天出发？" (广州: "抱歉，暂不支持广州。");
// turn 2 the date → "好的，D出发，订单号 ORDxxN。" (it misreads 后天 as 明天,
// and for 广州 gives no order number); turn 3 "确认" → "已确认订单 O。"
// where O is the order the request's order field carries. Turn 2's JSON
// has order_id beside text when there is an order.
type replyBot struct {
	mu       sync.Mutex
	sessions map[string]string // session → city
	seen     []string          // the order fields turn 3 received
}

func (b *replyBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Session, Text, Order string
		Turn                 int
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var text string
	switch req.Turn {
	case 1:
		city := strings.TrimSuffix(strings.TrimPrefix(req.Text, "订去"), "的票")
		b.sessions[req.Session] = city
		text = "好的，去" + city + "。请问哪天出发？"
		if city == "广州" {
			text = "抱歉，暂不支持广州。"
		}
	case 2:
		date := req.Text
		if date == "后天" {
			date = "明天" // the defect
		}
		text = fmt.Sprintf("好的，%s出发，订单号 ORD%s%d。", date, cityCode[b.sessions[req.Session]], len(req.Text))
		if b.sessions[req.Session] == "广州" {
			text = "好的，" + date + "出发。"
		}
	default:
		b.seen = append(b.seen, req.Order)
		text = "已确认订单 " + req.Order + "。"
	}
	out := map[string]string{"text": text}
	if i := strings.Index(text, "ORD"); i >= 0 && req.Turn == 2 {
		out["order_id"] = strings.TrimSuffix(text[i:], "。")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// cityCode makes the bot's order numbers: ORD, the city's code and the
// byte length of the date as the user said it (ORDSH6 for 上海/明天).
var cityCode = map[string]string{"北京": "BJ", "上海": "SH", "广州": "GZ"}

func startReplyBot(t *testing.T) (*replyBot, *httptest.Server) {
	bot := &replyBot{sessions: map[string]string{}}
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	return bot, srv
}

const replySuiteHead = `
suite "订票回复" {}

variable "url" { default = "%s" }

target "bot" {
  http {
    url   = var.url
    body  = jsonencode({ session = case.conversation, text = case.text, turn = case.turn, order = %s })
    reply = response.text
  }
}

materials "城市" { values = ["北京", "上海", "广州"] }
materials "日期" { values = ["明天", "后天"] }
`

const replyConversation = `
conversation "订票" {
  strategy = "product"
  turn {
    user = "订去{城市}的票"
    reply {
      contains     = ["{城市}"]
      not_contains = ["抱歉", "sorry"]
      ignore_case  = true
    }
  }
  turn {
    user = "{日期}"
    reply {
      contains = ["{日期}出发"]
      matches  = "订单号\\s*[A-Z0-9]{6,8}"
    }
  }
}
`

// readReport reads a JSON report's cases and the root accuracy.
func readReplyReport(t *testing.T, path string) (map[string][]string, float64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Metrics struct {
			Accuracy schema.Ratio `json:"accuracy"`
		} `json:"metrics"`
		Cases []schema.CaseReport `json:"cases"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, c := range rep.Cases {
		var msgs []string
		for _, f := range c.Failures {
			msgs = append(msgs, f.Kind+": "+f.Message)
		}
		out[c.Text+"/"+fmt.Sprint(c.Turn)+" "+c.Slots["城市"].Value+c.Slots["日期"].Value+" "+c.Outcome.String()] = msgs
	}
	v, _ := rep.Metrics.Accuracy.Value()
	return out, v
}

// Reply checks decide a conversation's turns end to end: by hand, of 3
// cities × 2 dates, turn 1 fails for 广州 ("抱歉…") and turn 2 fails for
// 后天 (the bot says 明天) and for 广州 (no order number; 广州/后天 fails
// both checks): 12 turns, 4 + 2 = 6 passed, accuracy 0.5. The JUnit failure names the check, and eval
// re-checks the recorded replies offline with the same verdicts.
func TestReplyChecksEndToEnd(t *testing.T) {
	_, srv := startReplyBot(t)
	dir := writeSuite(t, fmt.Sprintf(replySuiteHead, srv.URL, `""`)+replyConversation)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"), "--report-junit", filepath.Join(dir, "r.xml"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	cases, acc := readReplyReport(t, filepath.Join(dir, "r.json"))
	if acc != 0.5 {
		t.Errorf("metrics.accuracy = %v, want 6/12", acc)
	}
	failed := 0
	for k := range cases {
		if strings.HasSuffix(k, " fail") {
			failed++
		}
	}
	if failed != 6 {
		t.Errorf("%d failed turns, want 6: %v", failed, cases)
	}
	for key, want := range map[string][]string{
		"订去广州的票/1 广州明天 fail": {`reply: not_contains "抱歉": found in "抱歉，暂不支持广州。"`},
		"后天/2 上海后天 fail":     {`reply: contains "后天出发": not found in "好的，明天出发，订单号 ORDSH6。"`},
		"后天/2 广州后天 fail": {
			`reply: contains "后天出发": not found in "好的，明天出发。"`,
			`reply: matches "订单号\\s*[A-Z0-9]{6,8}": no match in "好的，明天出发。"`,
		},
		"订去北京的票/1  pass": nil, // a passing case is listed without its slots
	} {
		got, ok := cases[key]
		if !ok {
			t.Errorf("no case %q in %v", key, cases)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: failures\n got %q\nwant %q", key, got, want)
		}
	}
	junit, err := os.ReadFile(filepath.Join(dir, "r.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if j := html.UnescapeString(string(junit)); !strings.Contains(j, `reply: contains "后天出发": not found in "好的，明天出发，订单号 ORDSH6。"`) {
		t.Errorf("JUnit lacks the reply check's failure:\n%s", j)
	}
	code, _, errs = runCLI(t, dir, nil, "eval", run, "--report-json", filepath.Join(dir, "e.json"))
	if code != ExitFail {
		t.Fatalf("eval exit %d, want 1\n%s", code, errs)
	}
	again, acc2 := readReplyReport(t, filepath.Join(dir, "e.json"))
	if acc2 != acc || fmt.Sprint(again) != fmt.Sprint(cases) {
		t.Errorf("eval gives accuracy %v and cases\n%v\nthe run gave %v and\n%v", acc2, again, acc, cases)
	}
}

const captureConversation = `
conversation "订票" {
  strategy = "product"
  turn {
    user = "订去{城市}的票"
    reply {
      contains = ["{城市}"]
    }
  }
  turn {
    user          = "{日期}"
    capture       = { order_id = "$.order_id" }
    capture_reply = { order = "订单号\\s*([A-Z0-9]+)" }
    reply {
      contains = ["出发"]
    }
  }
  turn {
    user = "确认"
    reply {
      matches = "已确认订单 ORD[A-Z]{2}[0-9]"
    }
    assert {
      condition = capture.order == capture.order_id
      message   = "the order in the reply is the order_id"
    }
  }
}
`

// capture_reply captures the order number from the reply text (group 1)
// and a later turn's request sends it; a capture that selects nothing
// fails its own turn with a located message, and the turn that reads it
// is not called but errors saying which capture is missing. By hand, of
// 3 cities × 2 dates: turn 1 passes 6 times; turn 2 fails for 广州 ×2
// (no order: both captures select nothing) and passes 4 times; turn 3 is
// called 4 times with the captured orders and passes, and errors for
// 广州 ×2. So 14 passed, 2 failed, 2 errors, accuracy 14/16, 4 of 6
// conversations completed; eval gives the same verdicts offline.
func TestCaptureReplyEndToEnd(t *testing.T) {
	bot, srv := startReplyBot(t)
	body := `case.turn == 3 ? capture.order : ""`
	dir := writeSuite(t, fmt.Sprintf(replySuiteHead, srv.URL, body)+captureConversation)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"), "--report-junit", filepath.Join(dir, "r.xml"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	slices.Sort(bot.seen)
	if want := []string{"ORDBJ6", "ORDBJ6", "ORDSH6", "ORDSH6"}; !slices.Equal(bot.seen, want) {
		t.Errorf("turn 3 requests carried orders %q, want %q", bot.seen, want)
	}
	cases, acc := readReplyReport(t, filepath.Join(dir, "r.json"))
	if acc != 14.0/16 {
		t.Errorf("metrics.accuracy = %v, want 14/16", acc)
	}
	for key, want := range map[string][]string{
		"明天/2 广州明天 fail": {
			`capture: capture "order_id": "$.order_id" selected nothing`,
			`capture: capture_reply "order": "订单号\\s*([A-Z0-9]+)" matched nothing in "好的，明天出发。"`,
		},
		"后天/2 广州后天 fail": {
			`capture: capture "order_id": "$.order_id" selected nothing`,
			`capture: capture_reply "order": "订单号\\s*([A-Z0-9]+)" matched nothing in "好的，明天出发。"`,
		},
	} {
		if got := cases[key]; !slices.Equal(got, want) {
			t.Errorf("%s: failures\n got %q\nwant %q\nall: %v", key, got, want, cases)
		}
	}
	outcomes := map[string]int{}
	for k := range cases {
		outcomes[k[strings.LastIndexByte(k, ' ')+1:]]++
	}
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	errorsSeen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil {
			errorsSeen++
			if r.Turn != 3 || r.Error.Type != schema.ErrRequest || r.Error.Message != `capture "order" is missing (turn 2 selected nothing)` || r.Request != nil {
				t.Errorf("turn %d error %+v (request %v), want turn 3 not called: capture \"order\" is missing (turn 2 selected nothing)", r.Turn, r.Error, r.Request)
			}
		}
	}
	if errorsSeen != 2 {
		t.Errorf("%d errors recorded, want 2", errorsSeen)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "r.xml"))
	if err != nil {
		t.Fatal(err)
	}
	j := html.UnescapeString(string(junit))
	for _, want := range []string{`capture "order_id": "$.order_id" selected nothing`, `capture "order" is missing (turn 2 selected nothing)`} {
		if !strings.Contains(j, want) {
			t.Errorf("JUnit lacks %q:\n%s", want, j)
		}
	}
	_, list, errs := runCLI(t, dir, nil, "eval", run, "--list-metrics")
	for _, want := range []string{"metrics.accuracy = 0.875 (14/16)", "metrics.dialogue.completed = 4"} {
		if !strings.Contains(list, want) {
			t.Errorf("eval --list-metrics lacks %q:\n%s%s", want, list, errs)
		}
	}
	code, _, errs = runCLI(t, dir, nil, "eval", run, "--report-json", filepath.Join(dir, "e.json"))
	if code != ExitFail {
		t.Fatalf("eval exit %d, want 1\n%s", code, errs)
	}
	again, acc2 := readReplyReport(t, filepath.Join(dir, "e.json"))
	if acc2 != acc || fmt.Sprint(again) != fmt.Sprint(cases) {
		t.Errorf("eval gives accuracy %v and cases\n%v\nthe run gave %v and\n%v", acc2, again, acc, cases)
	}
}
