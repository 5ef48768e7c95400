package targets

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// trackerToken is the fake Rasa server's --auth-token.
const trackerToken = "令牌-s3cr3t-tracker"

// fakeTrackerRasa is a Rasa server whose REST channel answers every
// message with one text, and whose tracker endpoint answers by the last
// message of the conversation: "ok" a tracker (events and all), "500" a
// server error, "html" a page, "array" JSON that is no object, "reset" a
// closed connection, "hang" nothing until the client gives up. It
// requires ?token= and records each tracker request's query; the returned
// function copies them under the server's lock (a handler the client gave
// up on may still be running).
func fakeTrackerRasa(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	last := map[string]string{}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/webhooks/rest/webhook" {
			var req struct{ Sender, Message string }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, "bad", http.StatusBadRequest)
				return
			}
			mu.Lock()
			last[req.Sender] = req.Message
			mu.Unlock()
			_ = json.NewEncoder(w).Encode([]map[string]string{{"recipient_id": req.Sender, "text": "收到：" + req.Message}})
			return
		}
		sender, ok := strings.CutPrefix(r.URL.Path, "/conversations/")
		sender, ok2 := strings.CutSuffix(sender, "/tracker")
		if !ok || !ok2 || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("token") != trackerToken {
			http.Error(w, `{"status":"failure","reason":"NotAuthenticated","code":401}`, http.StatusUnauthorized)
			return
		}
		mu.Lock()
		msg := last[sender]
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		switch msg {
		case "500":
			http.Error(w, `{"status":"ServerError","message":"An unexpected error occurred.","code":500}`, http.StatusInternalServerError)
		case "html":
			_, _ = w.Write([]byte("<html>维护中</html>"))
		case "array":
			_, _ = w.Write([]byte(`[{"slots":{}}]`))
		case "reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "hang":
			<-r.Context().Done()
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{
				"sender_id": sender, "slots": map[string]any{"城市": "上海", "日期": nil, "requested_slot": "日期"},
				"latest_message":     map[string]any{"text": msg, "intent": map[string]any{"name": "request_booking", "confidence": 0.97}, "entities": []any{}},
				"latest_action_name": "action_listen", "active_loop": map[string]any{"name": "booking_form"},
				"events": []any{map[string]any{"event": "action", "name": "action_session_start"}}, "paused": false, "latest_event_time": 1.7e9,
			})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), queries...)
	}
}

const trackerSuite = `
suite "s" {}
variable "url" {}
variable "rasa_token" { sensitive = true }
target "rasa-bot" {
  rasa {
    url           = var.url
    mode          = "webhook"
    tracker       = true
    tracker_token = var.rasa_token
  }
  timeout = "3s" # only the "hang" read reaches it; a loaded machine must not time out the others
}
`

// tracker = true reads GET /conversations/{sender}/tracker after each
// turn with include_events=NONE and the token, and records slots,
// latest_message, latest_action_name and active_loop (no events); a read
// that fails — non-2xx, not JSON, not an object, reset, timeout — is the
// call's error TrackerError, and the conversation stops.
func TestRasaTracker(t *testing.T) {
	srv, queries := fakeTrackerRasa(t)
	s, err := loadWith(t, trackerSuite, map[string]string{"NLUTEST_VAR_url": srv.URL, "NLUTEST_VAR_rasa_token": trackerToken})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Target("").State {
		t.Error("a rasa webhook target with tracker = true does not say it records state")
	}
	all := converse(t, s, []string{"我想订去上海的票"}, []string{"500", "再说一次"}, []string{"html", "x"}, []string{"array"}, []string{"reset"}, []string{"hang"})
	ok := all[0][0]
	// The fake's maps are encoded with sorted keys; members are kept as sent.
	want := `{"slots":{"requested_slot":"日期","城市":"上海","日期":null},"latest_message":{"entities":[],"intent":{"confidence":0.97,"name":"request_booking"},"text":"我想订去上海的票"},"latest_action_name":"action_listen","active_loop":{"name":"booking_form"}}`
	if ok.Error != nil || string(ok.State) != want {
		t.Errorf("state %s (error %v),\nwant %s", ok.State, ok.Error, want)
	}
	if ok.Reply != "收到：我想订去上海的票" {
		t.Errorf("reply %q", ok.Reply)
	}
	for i, why := range []string{"HTTPError: HTTP 500 Internal Server Error; body: {\"status\":\"ServerError\"", "InvalidJSON", "not a JSON object", "ConnectionError", "Timeout"} {
		res := all[i+1]
		if len(res) != 1 {
			t.Errorf("%s: %d turns ran, want 1 (a tracker error ends the conversation)", why, len(res))
		}
		r := res[0]
		if r.Error == nil || r.Error.Type != "TrackerError" || !strings.Contains(r.Error.Message, why) || len(r.State) != 0 {
			t.Errorf("%s: error %+v, state %s", why, r.Error, r.State)
		}
		if r.Error != nil && strings.Contains(r.Error.Message, trackerToken) {
			t.Errorf("%s: the error quotes the token: %s", why, r.Error.Message)
		}
	}
	for _, q := range queries() {
		if !strings.Contains(q, "include_events=NONE") {
			t.Errorf("tracker query %q lacks include_events=NONE", q)
		}
	}
}

// tracker needs the webhook mode; its token must be a sensitive variable.
func TestRasaTrackerConfigErrors(t *testing.T) {
	env := map[string]string{"NLUTEST_VAR_url": "http://127.0.0.1:1", "NLUTEST_VAR_rasa_token": trackerToken}
	for _, tc := range []struct{ name, old, new, want string }{
		{"parse mode", `mode          = "webhook"`, `mode = "parse"`, "Tracker needs the webhook mode"},
		{"literal token", `tracker_token = var.rasa_token`, `tracker_token = "abc"`, "Sensitive variable required"},
		{"token without tracker", `tracker       = true`, ``, "Tracker token without tracker"},
		{"events without tracker", "tracker       = true\n    tracker_token = var.rasa_token", `tracker_events = true`, "Tracker events without tracker"},
	} {
		_, err := loadWith(t, strings.Replace(trackerSuite, tc.old, tc.new, 1), env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: load error %v, want %s", tc.name, err, tc.want)
		}
	}
}

// tracker_events = true asks for the conversation's events
// (include_events=AFTER_RESTART) and records the turn's: the fake's one
// action, which comes before any user event, so every event is the turn's.
func TestRasaTrackerEvents(t *testing.T) {
	srv, queries := fakeTrackerRasa(t)
	suite := strings.Replace(trackerSuite, "tracker_token = var.rasa_token", "tracker_token = var.rasa_token\n    tracker_events = true", 1)
	s, err := loadWith(t, suite, map[string]string{"NLUTEST_VAR_url": srv.URL, "NLUTEST_VAR_rasa_token": trackerToken})
	if err != nil {
		t.Fatal(err)
	}
	r := converse(t, s, []string{"我想订去上海的票"})[0][0]
	if r.Error != nil || !strings.HasSuffix(string(r.State), `"active_loop":{"name":"booking_form"},"events":[{"event":"action","name":"action_session_start"}]}`) {
		t.Errorf("state %s (error %v)", r.State, r.Error)
	}
	for _, q := range queries() {
		if !strings.Contains(q, "include_events=AFTER_RESTART") {
			t.Errorf("tracker query %q lacks include_events=AFTER_RESTART", q)
		}
	}
}
