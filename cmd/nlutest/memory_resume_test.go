package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
)

// memoryResumeSuite is memorySuite against an http bot (session =
// case.conversation) with 4 workers.
var memoryResumeSuite = strings.Replace(memorySuite, `target "bot" {
  demo {
    endpoint = "memory"
  }
}`, `variable "url" {}
target "bot" {
  http {
    url   = var.url
    body  = jsonencode({ session = case.conversation, text = case.text })
    reply = response.reply
  }
  concurrency = 4
  timeout     = "10m" # a hanging filler waits for the interrupt, however slow the machine
}`, 1)

// gatedMemoryBot is the demo memory bot (it remembers a fact for 4 turns,
// misremembers it for 4 more, then forgets it) per session, behind a gate:
// once it has answered free calls, filler turns hang until the request is
// cut off — a bot whose small talk is slow, so an interrupt has to stop
// calls in flight in the middle of memory scripts.
type gatedMemoryBot struct {
	mu       sync.Mutex
	sessions map[string]*demo.MemorySession
	free     int // calls answered before fillers hang; < 0: never hang
	calls    int
	hanging  int
}

var fillerTexts = map[string]bool{"今天天气怎么样？": true, "给我讲个笑话。": true, "推荐一部电影。": true}

func (b *gatedMemoryBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Session, Text string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Session == "" {
		http.Error(w, "want {session, text}", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.calls++
	hang := b.free >= 0 && b.calls > b.free && fillerTexts[req.Text]
	if hang {
		b.hanging++
	}
	b.mu.Unlock()
	if hang {
		<-r.Context().Done() // cut off by the interrupt
		b.mu.Lock()
		b.hanging--
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	s := b.sessions[req.Session]
	if s == nil {
		s = demo.NewMemorySession(demo.MemoryTurns)
		b.sessions[req.Session] = s
	}
	reply := s.Step(req.Text)
	b.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]string{"reply": reply})
}

func (b *gatedMemoryBot) gate(free int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free, b.calls = free, 0
}

func (b *gatedMemoryBot) stuck() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hanging
}

// memoryFigures is what a memory run's report says, to compare runs.
func memoryFigures(t *testing.T, run string) string {
	t.Helper()
	rep := loadReport(t, run)
	var fam struct {
		Memory schema.Memory `json:"memory"`
	}
	raw, err := json.Marshal(rep.Metrics)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &fam); err != nil {
		t.Fatal(err)
	}
	m := fam.Memory
	out := fmt.Sprintf("cases %d passed %d failed %d errored %d; memory %d questions, %d facts, %d entailed, %d neutral, %d contradicted, %d unanswered",
		rep.Metrics.Total, rep.Metrics.Passed, rep.Metrics.Failed, rep.Metrics.Errored, m.Questions, m.Facts, m.Entailed, m.Neutral, m.Contradicted, m.Unanswered)
	for _, d := range []string{"0", "1", "2", "4", "8"} {
		if st := m.Distance[d]; st != nil {
			out += fmt.Sprintf("; d%s %d/%d/%d/%d of %d", d, st.Entailed, st.Neutral, st.Contradicted, st.Unanswered, st.Questions)
		}
	}
	return out
}

// Issue 24, item 1: a memory run interrupted while filler calls are in
// flight, then resumed, gives the counts, outcomes and metrics of an
// uninterrupted run. Each memory script (5 to 13 turns) is recorded whole
// or not at all; before, its turns were recorded one by one, so the
// interrupt left truncated scripts that resume counted as complete (116 or
// 132 of 136 turns, a contradicted answer gone).
//
// The hand count (TestMemoryScoreByDistance): 20 scripts of 5, 6, 7, 9 and
// 13 turns × 4 slot assignments = 160 turns; 60 questions: 28 entailed,
// 12 neutral, 20 contradicted; the 32 not entailed fail.
func TestMemoryResumeAfterInterruptIsWhole(t *testing.T) {
	if !strings.Contains(memoryResumeSuite, "var.url") {
		t.Fatal("memorySuite's target changed: memoryResumeSuite no longer replaces it")
	}
	bot := &gatedMemoryBot{sessions: map[string]*demo.MemorySession{}, free: -1}
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	dir := writeSuite(t, memoryResumeSuite)
	whole := filepath.Join(dir, "whole")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", whole); code != ExitPass {
		t.Fatalf("uninterrupted run: exit %d\n%s%s", code, out, errs)
	}
	want := memoryFigures(t, whole)
	const hand = "cases 160 passed 128 failed 32 errored 0; memory 60 questions, 40 facts, 28 entailed, 12 neutral, 20 contradicted, 0 unanswered"
	if !strings.HasPrefix(want, hand) {
		t.Fatalf("uninterrupted run: %s\nwant the hand count %s", want, hand)
	}
	for _, free := range []int{3, 37, 90, 115} {
		t.Run(fmt.Sprintf("after %d calls", free), func(t *testing.T) {
			run := filepath.Join(dir, fmt.Sprintf("cut%d", free))
			bot.gate(free)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { // Ctrl-C once every worker waits on a filler (or 3 min)
				for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline) && bot.stuck() < 4; time.Sleep(2 * time.Millisecond) {
				}
				cancel()
			}()
			var out, errb strings.Builder
			app := &App{Stdout: &out, Stderr: &errb, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
			if code := app.Run(ctx, []string{"run", dir, "--var", "url=" + srv.URL, "--out", run, "--quiet"}); code != ExitInterrupted {
				t.Fatalf("interrupted run: exit %d, want %d\n%s", code, ExitInterrupted, errb.String())
			}
			var recorded []schema.Result
			err := runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
				recorded = append(recorded, *r)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			perScript := map[string]int{}
			for _, r := range recorded {
				perScript[r.Script]++
				if r.ScriptTurns == 0 {
					t.Errorf("turn %s recorded without the script's turn count", r.ID)
				}
			}
			for _, r := range recorded {
				if perScript[r.Script] != r.ScriptTurns {
					t.Errorf("script %s recorded with %d of its %d turns", r.Script, perScript[r.Script], r.ScriptTurns)
					perScript[r.Script] = r.ScriptTurns // once
				}
			}
			if len(recorded) >= 160 {
				t.Fatalf("the interrupt recorded all %d turns: the test interrupted nothing", len(recorded))
			}
			bot.gate(-1)
			code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--resume", run)
			if code != ExitPass {
				t.Fatalf("resume: exit %d\n%s", code, errs)
			}
			if got := memoryFigures(t, run); got != want {
				t.Errorf("interrupted after %d recorded turns, resumed:\n got %s\nwant %s", len(recorded), got, want)
			}
			if _, evalOut, evalErr := runCLI(t, dir, nil, "eval", run, "--var", "url="+srv.URL); !strings.Contains(evalOut+evalErr, "128 passed, 32 failed, 0 errored of 160 cases") {
				t.Errorf("eval of the resumed run:\n%s%s", evalOut, evalErr)
			}
		})
	}
}
