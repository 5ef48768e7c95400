package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// longBot checks every turn of long conversations as a stateful bot
// would: turns in order in one session, the user's text of the turn, the
// whole history so far, and the order number it issued at turn 100
// handed back (capture) from turn 101 on. It answers the turn number, and
// a wrong one at every 97th turn.
type longBot struct {
	mu       sync.Mutex
	next     map[string]int
	problems []string
	// errorAt: the bot answers this turn with an error (the conversation
	// stops there).
	errorAt int
}

func (b *longBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Session string           `json:"session"`
		Text    string           `json:"text"`
		Turn    int              `json:"turn"`
		History []schema.Message `json:"history"`
		Order   string           `json:"order"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if req.Turn == 0 { // a single case
		_ = json.NewEncoder(w).Encode(map[string]any{"n": 1, "text": "收到"})
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	want := b.next[req.Session] + 1
	b.next[req.Session] = req.Turn
	order := ""
	if req.Turn > 100 {
		order = "A7"
	}
	switch {
	case req.Turn != want, !strings.HasPrefix(req.Text, fmt.Sprintf("第%d句", req.Turn)), len(req.History) != 2*(req.Turn-1), req.Order != order,
		req.Turn > 1 && req.History[len(req.History)-1].Content != fmt.Sprintf("收到%d", req.Turn-1):
		b.problems = append(b.problems, fmt.Sprintf("session %s: turn %d (want %d) %q with %d history messages, order %q", req.Session, req.Turn, want, req.Text, len(req.History), req.Order))
		http.Error(w, "out of order", 400)
		return
	}
	if req.Turn == b.errorAt {
		http.Error(w, "服务暂停", 400)
		return
	}
	n := req.Turn
	if n%97 == 0 {
		n++
	}
	out := map[string]any{"n": n, "text": fmt.Sprintf("收到%d", req.Turn)}
	if req.Turn == 100 {
		out["order_id"] = "A7"
	}
	_ = json.NewEncoder(w).Encode(out)
}

// longConversationSuite is a conversation of turns turns (run for two
// callers) beside single cases, against the bot at url.
func longConversationSuite(url string, turns int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `suite "长对话" {}
target "bot" {
  http {
    url   = %q
    body  = jsonencode({ session = case.conversation, text = case.text, turn = case.turn, history = case.history, order = try(capture.order, "") })
    reply = response.text
  }
  concurrency = 4
}
materials "称呼" { values = ["先生", "女士"] }
template "单句" {
  text   = "第1句 {称呼}"
  expect = { "$.n" = 1 }
}
conversation "长" {
`, url)
	for i := 1; i <= turns; i++ {
		fmt.Fprintf(&b, "  turn {\n    user   = \"第%d句，{称呼}\"\n    expect = { \"$.n\" = %d }\n", i, i)
		if i == 100 {
			b.WriteString("    capture = { order = \"$.order_id\" }\n")
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// sessionsOf reads a results file: each conversation session's turns
// must be consecutive lines, in turn order, each stamped with the count.
func sessionsOf(t *testing.T, path string) (sessions map[string][]schema.Result, normalized []string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sessions = map[string][]schema.Result{}
	last := ""
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := r.UnmarshalJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if s := r.Conversation; s != "" {
			if prev := sessions[s]; len(prev) > 0 && last != s {
				t.Errorf("the turns of session %s are not written together (turn %d after another script's line)", s, r.Turn)
			}
			if r.Turn != len(sessions[s])+1 {
				t.Errorf("session %s: turn %d after %d", s, r.Turn, len(sessions[s]))
			}
			sessions[s] = append(sessions[s], r)
		}
		last = r.Conversation
		// what does not depend on the moment or the session
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"latency_ms", "started", "conversation", "headers", "request"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		normalized = append(normalized, string(b))
	}
	slices.Sort(normalized)
	return sessions, normalized
}

// Issue 35: a conversation of 300 turns runs with its turns past 256
// spilled to disk and its turns past the first made on demand, and is
// recorded as one held in memory is: every turn called in order with the
// whole history and the capture, its lines written together and stamped
// with its length, the same records, metrics and eval, and no spill file
// left behind.
func TestLongConversationSpillsAndRecordsWhole(t *testing.T) {
	const turns = 300
	run := func(spill int) (string, string, []string) {
		old := pipeline.SpillTurns
		pipeline.SpillTurns = spill
		defer func() { pipeline.SpillTurns = old }()
		bot := &longBot{next: map[string]int{}}
		srv := httptest.NewServer(bot)
		defer srv.Close()
		dir := writeSuite(t, longConversationSuite(srv.URL, turns))
		out := filepath.Join(dir, "run")
		code, stdout, errs := runCLI(t, dir, nil, "run", dir, "--out", out)
		if code != ExitFail {
			t.Fatalf("exit %d, want 1 (turns 97, 194 and 291 fail)\n%s\n%s", code, stdout, errs)
		}
		if len(bot.problems) > 0 {
			t.Fatalf("the bot saw %d wrong calls, the first: %s", len(bot.problems), bot.problems[0])
		}
		if left, _ := filepath.Glob(filepath.Join(out, ".turns-*")); len(left) > 0 {
			t.Errorf("spill files left: %v", left)
		}
		sessions, normalized := sessionsOf(t, filepath.Join(out, "results.jsonl"))
		for i := range normalized {
			normalized[i] = strings.ReplaceAll(normalized[i], dir, "DIR")
		}
		if len(sessions) != 2 {
			t.Fatalf("%d sessions, want 2", len(sessions))
		}
		for s, rs := range sessions {
			if len(rs) != turns {
				t.Errorf("session %s: %d turns recorded", s, len(rs))
			}
			for _, r := range rs {
				if r.ScriptTurns != turns {
					t.Fatalf("session %s turn %d: script_turns %d, want %d", s, r.Turn, r.ScriptTurns, turns)
				}
				if fail := r.Turn%97 == 0; fail != (r.Outcome == schema.Fail) || !fail && r.Outcome != schema.Pass {
					t.Fatalf("session %s turn %d: %s", s, r.Turn, r.Outcome)
				}
			}
		}
		_, list, errs := runCLI(t, dir, nil, "eval", out, "--list-metrics")
		for _, want := range []string{"metrics.dialogue.turns = 600", "metrics.dialogue.turns_passed = 594", "metrics.dialogue.completed = 0",
			`metrics.dialogue.turn["300"].accuracy = 1 (2/2)`, `metrics.dialogue.turn["291"].accuracy = 0 (0/2)`, "metrics.total = 602"} {
			if !strings.Contains(list, want) {
				t.Errorf("eval --list-metrics lacks %q:\n%s%s", want, list, errs)
			}
		}
		var kept []string
		for _, l := range strings.Split(list, "\n") {
			if !strings.Contains(l, "latency") {
				kept = append(kept, l)
			}
		}
		return stdout, strings.Join(kept, "\n"), normalized
	}
	outSpilled, listSpilled, recSpilled := run(pipeline.SpillTurns)
	outHeld, listHeld, recHeld := run(1 << 30)
	if listSpilled != listHeld {
		t.Errorf("eval of the spilled run differs from the run held in memory:\n%s\n---\n%s", listSpilled, listHeld)
	}
	if !slices.Equal(recSpilled, recHeld) {
		for i := range min(len(recSpilled), len(recHeld)) {
			if recSpilled[i] != recHeld[i] {
				t.Errorf("the spilled run's records differ from those of the run held in memory:\n%s\n%s", recSpilled[i], recHeld[i])
				break
			}
		}
	}
	verdict := func(s string) string { return strings.SplitN(s, "(", 2)[0] }
	if verdict(outSpilled) != verdict(outHeld) {
		t.Errorf("the verdicts differ:\n%s\n---\n%s", outSpilled, outHeld)
	}
}

// A long conversation cut short by an error past the turns held in memory
// is counted as one held in memory (docs/cli.md, "Counting"): the turns it
// did not run leave the run's total, so the progress ends at the cases
// that ran (2 single cases and 2 × 280 turns), not at the 602 planned.
func TestLongConversationCutShortCountsAsHeld(t *testing.T) {
	run := func(spill int) []string {
		old := pipeline.SpillTurns
		pipeline.SpillTurns = spill
		defer func() { pipeline.SpillTurns = old }()
		bot := &longBot{next: map[string]int{}, errorAt: 280}
		srv := httptest.NewServer(bot)
		defer srv.Close()
		dir := writeSuite(t, longConversationSuite(srv.URL, 300))
		code, stdout, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"))
		if code != ExitFail {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, errs)
		}
		var done []string
		for _, l := range strings.Split(errs, "\n") {
			if i := strings.Index(l, "cases done"); i >= 0 {
				done = append(done, l)
			}
		}
		slices.Sort(done)
		return done
	}
	spilled, held := run(pipeline.SpillTurns), run(1<<30)
	if !slices.Equal(spilled, held) {
		t.Errorf("progress of the spilled run:\n%s\nof the run held in memory:\n%s", strings.Join(spilled, "\n"), strings.Join(held, "\n"))
	}
	if len(spilled) == 0 || !strings.Contains(strings.Join(spilled, "\n"), "562/562 cases done") {
		t.Errorf("want the progress to end at 562/562 cases:\n%s", strings.Join(spilled, "\n"))
	}
}
