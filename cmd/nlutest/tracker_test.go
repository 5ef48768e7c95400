package main

import (
	"encoding/json"
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

// formRasa is a Rasa server with a slot-filling booking form, on
// 127.0.0.1: the REST channel (POST /webhooks/rest/webhook) and the
// tracker (GET /conversations/{id}/tracker, token auth). Turn 1 "我想订去
// X的票" fills 城市 and activates booking_form, asking for 日期 — but its
// NLU misses 广州, so the form asks for 城市 again; "Y出发" fills 日期
// (misreading 后天 as 明天) and, with 城市 known, submits the form
// (action_submit_booking, active_loop null); "谢谢" says goodbye.
type formRasa struct {
	mu       sync.Mutex
	sessions map[string]*formState
	// fail500 answers 500 to the tracker of the conversation whose last
	// message is this one, in a session whose 城市 is 北京.
	fail500 string
	// trackerReads counts tracker requests.
	trackerReads int
}

type formState struct {
	slots  map[string]any
	loop   any
	action string
	last   string
	intent string
}

func (f *formRasa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/webhooks/rest/webhook" && r.Method == http.MethodPost {
		f.webhook(w, r)
		return
	}
	sender, ok := strings.CutPrefix(r.URL.Path, "/conversations/")
	if sender, ok2 := strings.CutSuffix(sender, "/tracker"); ok && ok2 && r.Method == http.MethodGet {
		f.tracker(w, r, sender)
		return
	}
	http.NotFound(w, r)
}

func (f *formRasa) webhook(w http.ResponseWriter, r *http.Request) {
	var req struct{ Sender, Message string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Sender == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.sessions[req.Sender]
	if st == nil {
		st = &formState{slots: map[string]any{"城市": nil, "日期": nil, "requested_slot": nil}}
		f.sessions[req.Sender] = st
	}
	st.last = req.Message
	var text string
	switch {
	case strings.HasPrefix(req.Message, "我想订去"):
		st.intent = "request_booking"
		if city := strings.TrimSuffix(strings.TrimPrefix(req.Message, "我想订去"), "的票"); city != "广州" {
			st.slots["城市"] = city
		}
		st.loop = map[string]any{"name": "booking_form"}
		text = f.ask(st)
	case strings.HasSuffix(req.Message, "出发"):
		st.intent = "inform"
		date := strings.TrimSuffix(req.Message, "出发")
		if date == "后天" {
			date = "明天"
		}
		st.slots["日期"] = date
		text = f.ask(st)
	default:
		st.intent, st.action, text = "thanks", "utter_goodbye", "不客气，再见！"
	}
	_ = json.NewEncoder(w).Encode([]map[string]string{{"recipient_id": req.Sender, "text": text}})
}

// ask runs the form: it asks for the first empty slot, or submits.
func (f *formRasa) ask(st *formState) string {
	for _, slot := range []string{"城市", "日期"} {
		if st.slots[slot] == nil {
			st.slots["requested_slot"], st.action = slot, "booking_form"
			return "请问" + map[string]string{"城市": "去哪个城市", "日期": "哪天出发"}[slot] + "？"
		}
	}
	st.slots["requested_slot"], st.loop, st.action = nil, nil, "action_submit_booking"
	return fmt.Sprintf("已为您预订%s%s去的票。", st.slots["日期"], st.slots["城市"])
}

func (f *formRasa) tracker(w http.ResponseWriter, r *http.Request, sender string) {
	if r.URL.Query().Get("token") != formToken {
		http.Error(w, `{"status":"failure","reason":"NotAuthenticated","code":401}`, http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trackerReads++
	st := f.sessions[sender]
	if st == nil {
		http.Error(w, `{"status":"failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	if f.fail500 != "" && st.last == f.fail500 && st.slots["城市"] == "北京" {
		http.Error(w, `{"status":"ServerError","message":"An unexpected error occurred.","code":500}`, http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"sender_id": sender, "slots": st.slots, "latest_action_name": st.action, "active_loop": st.loop,
		"latest_message": map[string]any{"text": st.last, "intent": map[string]any{"name": st.intent, "confidence": 0.95}, "entities": []any{}},
		"events":         []any{map[string]any{"event": "user", "text": st.last}}, "paused": false,
	})
}

const formToken = "rasa-令牌-7f3a9c"

// formSuite: 3 cities × 2 dates, 3 turns each. By hand:
//   - turn 1 passes for 上海 and 北京 (4), fails for 广州 (2: 城市 null,
//     requested_slot 城市);
//   - turn 2 passes for 上海/明天 and 北京/明天 (2); 上海/后天 and 北京/后天
//     fail on 日期 (明天); 广州/* fail as the form is still active (its
//     active_loop is not null, latest_action_name is booking_form), and
//     广州/后天 on 日期 too: 4 failures;
//   - turn 3 passes everywhere (6).
//
// So 12 passed, 6 failed, 0 errors, 2 of 6 conversations completed; the
// failures number 2+2 (广州 turn 1) + 1+1 (后天 turn 2) + 2+3 (广州 turn 2)
// = 11.
const formSuite = `
suite "订票表单" {}

variable "url" {}
variable "rasa_token" { sensitive = true }

target "rasa" {
  rasa {
    url           = var.url
    mode          = "webhook"
    tracker       = true
    tracker_token = var.rasa_token
  }
}

materials "城市" { values = ["上海", "北京", "广州"] }
materials "日期" { values = ["明天", "后天"] }

conversation "订票" {
  strategy = "product"
  turn {
    user   = "我想订去{城市}的票"
    expect = {
      "state:$.slots.城市"           = "{城市}"
      "state:$.active_loop.name"     = "booking_form"
      "state:$.slots.requested_slot" = "日期"
    }
  }
  turn {
    user    = "{日期}出发"
    capture = { booked = "state:$.slots.日期" }   # turn 3 reads capture.booked
    expect  = {
      "state:$.slots.日期"  = "{日期}"
      "state:$.active_loop" = null
    }
    assert {
      condition = state.latest_action_name == "action_submit_booking"
      message   = "the form is submitted"
    }
  }
  turn {
    user   = "谢谢"
    expect = { "state:$.latest_message.intent.name" = "thanks" }
    assert {
      condition = state.latest_action_name == "utter_goodbye" && reply == "不客气，再见！" && capture.booked == state.slots.日期
    }
  }
}
`

// Issue 22 acceptance (item 4): against a fake Rasa with a tracker, slot
// and active-loop expectations pass and fail as counted by hand
// (formSuite); eval re-checks them offline from the recorded state; and
// when the tracker answers 500 on one turn (北京/后天, turn 2) that turn is
// an error of type TrackerError — counted in errors, not failures — and
// its conversation stops (turn 3 not run).
func TestRasaTrackerState(t *testing.T) {
	bot := &formRasa{sessions: map[string]*formState{}}
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	dir := writeSuite(t, formSuite)
	env := map[string]string{"NLUTEST_VAR_url": srv.URL, "NLUTEST_VAR_rasa_token": formToken}
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, env, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"))
	if code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	if os.Getenv("SHOW") != "" {
		t.Logf("%s\n%s", out, errs)
	}
	if bot.trackerReads != 18 {
		t.Errorf("%d tracker reads, want 18 (one per turn)", bot.trackerReads)
	}
	checkFormReport(t, filepath.Join(dir, "r.json"), 18, 12, 6, 0, 2)
	if n := checkRecordedStates(t, run); n != 11 {
		t.Errorf("%d failures recorded, want 11", n)
	}

	// eval re-checks the state: expectations from the records, offline.
	srv.Close()
	code, _, errs = runCLI(t, dir, env, "eval", run, "--report-json", filepath.Join(dir, "eval.json"))
	if code != ExitFail {
		t.Fatalf("eval exit %d\n%s", code, errs)
	}
	checkFormReport(t, filepath.Join(dir, "eval.json"), 18, 12, 6, 0, 2)

	// A tracker that fails on one turn.
	bot2 := &formRasa{sessions: map[string]*formState{}, fail500: "后天出发"}
	srv2 := httptest.NewServer(bot2)
	t.Cleanup(srv2.Close)
	env["NLUTEST_VAR_url"] = srv2.URL
	run2 := filepath.Join(dir, "run2")
	code, out, errs = runCLI(t, dir, env, "run", dir, "--out", run2, "--report-json", filepath.Join(dir, "r2.json"))
	if code != ExitFail {
		t.Fatalf("run 2: exit %d\n%s\n%s", code, out, errs)
	}
	// 北京/后天: turn 2 errors instead of failing (1 failure less), turn 3
	// is not run (1 pass less).
	checkFormReport(t, filepath.Join(dir, "r2.json"), 17, 11, 5, 1, 2)
	raw, err := os.ReadFile(filepath.Join(run2, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil {
			n++
			if r.Error.Type != schema.ErrTracker || r.Turn != 2 || r.Slots["城市"].Value != "北京" || !strings.Contains(r.Error.Message, "HTTP 500") {
				t.Errorf("error on %s turn %d: %+v", r.Slots["城市"].Value, r.Turn, r.Error)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d errored turns, want 1", n)
	}
	for _, f := range []string{filepath.Join(run, "results.jsonl"), filepath.Join(run2, "results.jsonl"), filepath.Join(dir, "r2.json")} {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), formToken) {
			t.Errorf("%s holds the tracker token", f)
		}
	}
	if t.Failed() {
		t.Logf("%s\n%s", out, raw)
	}
}

// checkFormReport checks a report's turn counts and completed
// conversations.
func checkFormReport(t *testing.T, path string, total, passed, failed, errored, completed int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Metrics struct {
			schema.Node
			Dialogue schema.Dialogue `json:"dialogue"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	m := rep.Metrics
	if m.Total != total || m.Passed != passed || m.Failed != failed || m.Errored != errored || m.Dialogue.Completed != completed {
		t.Errorf("%s: total %d passed %d failed %d errored %d completed %d; want %d %d %d %d %d",
			filepath.Base(path), m.Total, m.Passed, m.Failed, m.Errored, m.Dialogue.Completed, total, passed, failed, errored, completed)
	}
}

// checkRecordedStates checks what results.jsonl keeps of the tracker:
// slots, latest_message, latest_action_name and active_loop, no events.
// It returns the number of failures the records list.
func checkRecordedStates(t *testing.T, run string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		var st map[string]json.RawMessage
		if err := json.Unmarshal(r.State, &st); err != nil {
			t.Fatalf("%s: state %s: %v", r.ID, r.State, err)
		}
		if len(st) != 4 || st["slots"] == nil || st["latest_message"] == nil || st["latest_action_name"] == nil || st["active_loop"] == nil {
			t.Errorf("%s: recorded state %s, want slots, latest_message, latest_action_name and active_loop only", r.ID, r.State)
		}
		n += len(r.Failures)
		for _, f := range r.Failures {
			if f.Kind == "expect" && strings.HasPrefix(f.Path, "state:") && f.Line == 0 {
				t.Errorf("%s: failure %+v is not located", r.ID, f)
			}
		}
	}
	return n
}

// validate: a suite that reads dialogue state with no target recording
// any gets a located warning (exit 0); with a rasa tracker target, none;
// a bad JSONPath after "state:" is an error located in the key.
func TestValidateStateUse(t *testing.T) {
	const httpTarget = `target "bot" {
  http { url = "http://127.0.0.1:1/chat" }
}`
	const rasaTarget = `variable "rasa_token" {
  sensitive = true
  default   = "rasa-token-for-validate"
}
target "bot" {
  rasa {
    url           = "http://127.0.0.1:1"
    mode          = "webhook"
    tracker       = true
    tracker_token = var.rasa_token
  }
}`
	const body = `
materials "城市" { values = ["上海"] }
conversation "订票" {
  turn {
    user   = "我想订去{城市}的票"
    expect = { %s = "{城市}" }
  }
  turn {
    user = "明天出发"
    assert { condition = state.active_loop == null }
  }
}
`
	for _, tc := range []struct {
		name, target, key string
		code              int
		want, not         string
	}{
		{"http target", httpTarget, `"state:$.slots.城市"`, ExitPass, "Warning: No target reads dialogue state\n\n  on " + "DIR/suite.nlutest.hcl:8:16:", ""},
		{"http target, state in an assert only", httpTarget, `"$.city"`, ExitPass, "Warning: No target reads dialogue state\n\n  on " + "DIR/suite.nlutest.hcl:12:26:", ""},
		{"rasa tracker target", rasaTarget, `"state:$.slots.城市"`, ExitPass, "", "No target reads dialogue state"},
		{"bad path", rasaTarget, `"state:$.slots[城市"`, ExitInvalid, "Error: Invalid JSONPath\n\n  on DIR/suite.nlutest.hcl:17:", ""},
	} {
		dir := writeSuite(t, tc.target+fmt.Sprintf(body, tc.key))
		code, out, errs := runCLI(t, dir, nil, "validate", dir)
		all := strings.ReplaceAll(out+errs, dir, "DIR")
		if os.Getenv("SHOW") != "" {
			t.Log(all)
		}
		if code != tc.code || !strings.Contains(all, tc.want) || (tc.not != "" && strings.Contains(all, tc.not)) {
			t.Errorf("%s: exit %d (want %d)\n%s", tc.name, code, tc.code, all)
		}
		if strings.Contains(all, "panic") || strings.Contains(all, "goroutine") {
			t.Errorf("%s: %s", tc.name, all)
		}
	}
}
