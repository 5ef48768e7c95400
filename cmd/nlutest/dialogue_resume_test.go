package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

func resumeConversationSuite(n int) string {
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf(`"城市%03d"`, i))
	}
	return fmt.Sprintf(`
suite "对话续跑" {}
variable "url" {}
target "bot" {
  http {
    url  = var.url
    body = jsonencode({ session = case.conversation, turn = case.turn, text = case.text })
  }
  concurrency = 4
}
materials "城市" { values = [%s] }
conversation "订票" {
  turn {
    user   = "去{城市}"
    expect = { "$.step" = 1, "$.city" = "{城市}" }
  }
  turn {
    user   = "明天"
    expect = { "$.step" = 2, "$.city" = "{城市}" }
  }
  turn {
    user   = "确认"
    expect = { "$.step" = 3, "$.city" = "{城市}" }
  }
}
`, strings.Join(vals, ", "))
}

// strictBot keeps each session's progress and answers 409 to a turn that
// does not follow the session's last one: a conversation continued in
// another session, or replayed out of order, errors.
type strictBot struct {
	mu       sync.Mutex
	sessions map[string]*[2]string // step, city
	bySript  map[string]map[string]bool
}

func (b *strictBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Session string `json:"session"`
		Turn    int    `json:"turn"`
		Text    string `json:"text"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	time.Sleep(2 * time.Millisecond)
	b.mu.Lock()
	st := b.sessions[req.Session]
	if req.Turn == 1 && st == nil {
		st = &[2]string{"0", strings.TrimPrefix(req.Text, "去")}
		b.sessions[req.Session] = st
		script, _, _ := strings.Cut(req.Session, "-")
		if b.bySript[script] == nil {
			b.bySript[script] = map[string]bool{}
		}
		b.bySript[script][req.Session] = true
	}
	ok := st != nil && st[0] == fmt.Sprint(req.Turn-1)
	if ok {
		st[0] = fmt.Sprint(req.Turn)
	}
	b.mu.Unlock()
	if !ok {
		http.Error(w, "turn out of its session's order", http.StatusConflict)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"step": req.Turn, "city": st[1]})
}

// Acceptance 3 of issue 13: runs killed with SIGKILL at random moments and
// resumed record every conversation whole, each in one session whose turns
// the bot saw in order from turn 1: a conversation interrupted mid-way ran
// again from turn 1 in a new session, never on in another one.
func TestConversationResumeAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	bot := &strictBot{sessions: map[string]*[2]string{}, bySript: map[string]map[string]bool{}}
	g := newGate(t)
	srv := httptest.NewServer(g.wrap(bot))
	t.Cleanup(srv.Close)
	const n = 80
	dir := writeSuite(t, resumeConversationSuite(n))
	child := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "NLUTEST_TEST_CHILD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	run := filepath.Join(dir, "killed")
	kills := 0
	for i := 0; i < 12; i++ {
		args := []string{"run", dir, "--var", "url=" + srv.URL, "--quiet"}
		if fileExists(filepath.Join(run, RunMetaFile)) {
			args = append(args, "--resume", run)
		} else {
			args = append(args, "--out", run)
		}
		// Killed while the bot holds its n-th request (n from 2 to 11:
		// 12 runs stay short of the 240 turns), so it cannot finish
		// first however fast the machine. The first run's n is 2: one
		// turn has passed, so a conversation is cut mid-way.
		if killHeld(t, child(args...), g, 2+(7*i)%10, time.Duration(5+7*i%23)*time.Millisecond) {
			kills++
		}
	}
	if kills != 12 {
		t.Fatalf("only %d of 12 runs were killed mid-way; the test does not exercise resume", kills)
	}
	out, err := child("run", dir, "--var", "url="+srv.URL, "--resume", run, "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("final resume: %v\n%s", err, out)
	}
	sessions := map[string]string{}
	turns := 0
	err = runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
		turns++
		if r.Outcome != schema.Pass {
			t.Errorf("%s (session %s): %s %v %v", r.ID, r.Conversation, r.Outcome, r.Error, r.Failures)
		}
		if s, ok := sessions[r.Script]; ok && s != r.Conversation {
			t.Errorf("conversation %s recorded in two sessions: %s, %s", r.Script, s, r.Conversation)
		}
		sessions[r.Script] = r.Conversation
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != n || turns != 3*n {
		t.Errorf("recorded %d conversations and %d turns, want %d and %d", len(sessions), turns, n, 3*n)
	}
	rerun := 0
	for _, ss := range bot.bySript {
		if len(ss) > 1 {
			rerun++
		}
	}
	if rerun == 0 {
		t.Errorf("no conversation was interrupted and run again in a new session; the test does not exercise it")
	}
	t.Logf("%d of 12 runs killed mid-way; %d conversations ran again from turn 1 in a new session", kills, rerun)
}
