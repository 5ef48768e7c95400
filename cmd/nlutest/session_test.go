package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// memoryBot is a stateful chat bot: it remembers every text said in a
// session and answers them all, joined by "|".
type memoryBot struct {
	mu       sync.Mutex
	sessions map[string][]string
}

func (b *memoryBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Session, Text string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.sessions[req.Session] = append(b.sessions[req.Session], req.Text)
	answer := strings.Join(b.sessions[req.Session], "|")
	b.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]string{"answer": answer})
}

// Minor 4 of the 2026-12-01 security audit: single cases of an http chat
// bot sent case.conversation "" for every case, so a stateful bot kept
// them all in one session and one case heard another's text. Each single
// case now has a session of its own, as rasa's webhook gives it; the
// records keep conversation empty (it is a single case).
func TestSingleCasesHaveSessionsOfTheirOwn(t *testing.T) {
	bot := &memoryBot{sessions: map[string][]string{}}
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	dir := writeSuite(t, `
suite "单句会话" {}
variable "url" {}
target "bot" {
  http {
    url   = var.url
    body  = jsonencode({ session = case.conversation, text = case.text })
    reply = response.answer
  }
  concurrency = 4
}
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
template "问候" { text = "你好，{城市}" }
`)
	run := filepath.Join(dir, "run")
	if code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", run); code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	sent := map[string]string{} // session id → the case it was sent for
	n := 0
	err := runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
		n++
		if r.Reply != r.Text {
			t.Errorf("%s: the bot answered %q: it heard other cases' text in the same session", r.Text, r.Reply)
		}
		var body struct{ Session string }
		if err := json.Unmarshal([]byte(r.Request.Body), &body); err != nil {
			t.Fatalf("%s: request body %q: %v", r.Text, r.Request.Body, err)
		}
		if !strings.HasPrefix(body.Session, r.ID+"-") || len(body.Session) != len(r.ID)+9 {
			t.Errorf("%s: session %q, want the case id, - and 8 hex digits", r.Text, body.Session)
		}
		if other, dup := sent[body.Session]; dup {
			t.Errorf("%s and %s were sent in one session %q", other, r.Text, body.Session)
		}
		sent[body.Session] = r.Text
		if r.Conversation != "" {
			t.Errorf("%s: recorded conversation %q, want none for a single case", r.Text, r.Conversation)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || len(bot.sessions) != 4 {
		t.Errorf("%d results, %d sessions at the bot; want 4 and 4", n, len(bot.sessions))
	}
}
