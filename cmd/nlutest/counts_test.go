package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingNLU answers in the Rasa shape (book… is book_flight, anything
// else greet); a text holding "故障" gets a 500, and with cancel set the
// stop-th request cancels it (Ctrl-C) once answered.
func countingNLU(t *testing.T, stop int32, cancel func()) *httptest.Server {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		if cancel != nil && calls.Add(1) == stop {
			defer cancel()
		}
		if strings.Contains(req.Text, "故障") {
			http.Error(w, "down", 500)
			return
		}
		intent := "greet"
		if strings.HasPrefix(req.Text, "订") {
			intent = "book_flight"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"intent": map[string]any{"name": intent, "confidence": 0.9}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// countSuite: a template of 2 cases and a conversation block of 2
// conversations of 3 turns (8 cases), against url; turn2 is the second
// turn's text.
func countSuite(t *testing.T, url, turn2 string) string {
	return writeSuite(t, fmt.Sprintf(`suite "计数" {
  schema = "rasa"
}
target "nlu" {
  http {
    url  = %q
    body = jsonencode({ text = case.text })
  }
  concurrency = 1
}
materials "城市" { values = ["北京", "上海"] }
template "订票" {
  text   = "订去{城市}的票"
  expect = { "$.intent.name" = "book_flight" }
}
conversation "寒暄" {
  turn {
    user   = "订去{城市}的票"
    expect = { "$.intent.name" = "book_flight" }
  }
  turn {
    user   = %q
    expect = { "$.intent.name" = "greet" }
  }
  turn {
    user   = "再见"
    expect = { "$.intent.name" = "greet" }
  }
}
`, url, turn2))
}

var (
	doneRe        = regexp.MustCompile(`· (\d+)/(\d+) cases done`)
	interruptedRe = regexp.MustCompile(`interrupted after (\d+) of (at least )?(\d+) cases`)
	resumingRe    = regexp.MustCompile(`resuming \S+: (\d+) of (at least )?(\d+) cases`)
	verdictRe     = regexp.MustCompile(`errored of (\d+) cases`)
)

// lastMatch is the numbers of re's last match in s (nil when none).
func lastMatch(re *regexp.Regexp, s string) []int {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	var out []int
	for _, g := range all[len(all)-1][1:] {
		if n, err := strconv.Atoi(g); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// resultLines counts the lines of a run's results.jsonl.
func resultLines(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestCountsAgree (issue 35, minor "case counts disagree"): validate said
// "2 cases, 2 conversations with 6 turns", run "16 cases", an
// interrupted run of a scenario suite "41 of 40". Now a case is one
// checked reply everywhere: validate counts 8 (2 single-turn, 6 in 2
// conversations); run --repeat 2 counts 16 in its progress, its
// interrupted message ("N of 16 cases (--repeat 2: each of the 8 selected
// cases 2 times)", N the results recorded), the resume notice, the
// progress of the resumed session and the verdict.
func TestCountsAgree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := countingNLU(t, 7, cancel)
	suite := countSuite(t, srv.URL, "你好")
	code, out, errs := runCLI(t, t.TempDir(), nil, "validate", suite)
	if code != ExitPass || !strings.Contains(out, "8 cases (2 single-turn, 6 in 2 conversations)") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}

	dir := filepath.Join(t.TempDir(), "run")
	var so, se bytes.Buffer
	app := &App{Stdout: &so, Stderr: &se, Getwd: t.TempDir(), Env: func(string) (string, bool) { return "", false }, Now: time.Now}
	if code := app.Run(ctx, []string{"run", suite, "--repeat", "2", "--out", dir, "--quiet"}); code != ExitInterrupted {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	recorded := resultLines(t, dir)
	got := lastMatch(interruptedRe, se.String())
	if len(got) != 2 || got[0] != recorded || got[1] != 16 || recorded == 0 || recorded >= 16 {
		t.Errorf("interrupted message %v, want [%d 16]:\n%s", got, recorded, se.String())
	}
	if !strings.Contains(se.String(), "of 16 cases (--repeat 2: each of the 8 selected cases 2 times)") {
		t.Errorf("the interrupted message does not relate 16 to validate's 8:\n%s", se.String())
	}
	if got := lastMatch(doneRe, se.String()); len(got) == 2 && (got[1] != 16 || got[0] > recorded) {
		t.Errorf("progress %v of the interrupted session", got)
	}

	so.Reset()
	se.Reset()
	if code := app.Run(context.Background(), []string{"run", "--resume", dir, "--quiet"}); code != ExitPass {
		t.Fatalf("resume: exit %d\n%s", code, se.String())
	}
	if got := lastMatch(resumingRe, se.String()); len(got) != 2 || got[0] != recorded || got[1] != 16 {
		t.Errorf("resume notice %v, want [%d 16]:\n%s", got, recorded, se.String())
	}
	if got := lastMatch(doneRe, se.String()); len(got) != 2 || got[0] != 16 || got[1] != 16 {
		t.Errorf("progress %v, want 16/16:\n%s", got, se.String())
	}
	if got := lastMatch(verdictRe, so.String()); len(got) != 1 || got[0] != 16 || resultLines(t, dir) != 16 {
		t.Errorf("verdict %v, want 16 cases:\n%s", got, so.String())
	}
}

// TestCountsFollowScriptsThatEndEarly: a conversation whose second turn's
// call errors ends there, so its third turn is never a case: the
// progress and the verdict count the 6 cases that ran (2 + 2 × 2), not
// 6 of 8.
func TestCountsFollowScriptsThatEndEarly(t *testing.T) {
	srv := countingNLU(t, 0, nil)
	suite := countSuite(t, srv.URL, "故障")
	code, out, errs := runCLI(t, t.TempDir(), nil, "run", suite, "--out", filepath.Join(t.TempDir(), "r"), "--quiet")
	if code != ExitFail {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got := lastMatch(doneRe, errs); len(got) != 2 || got[0] != 6 || got[1] != 6 {
		t.Errorf("progress %v, want 6/6:\n%s", got, errs)
	}
	if !strings.Contains(errs, "conversation 寒暄: 4 cases, 2 passed, 0 failed, 2 errored · 6/6 cases done") {
		t.Errorf("the conversation block's line is missing:\n%s", errs)
	}
	if got := lastMatch(verdictRe, out); len(got) != 1 || got[0] != 6 {
		t.Errorf("verdict %v, want 6 cases:\n%s", got, out)
	}
}

// TestCountsWithScenarios: a scenario's cases are its turns, known as it
// runs. validate says "at least 40 cases"; an interrupted run says how
// many cases it recorded of how many it has so far — never more than
// that ("41 of 40" before) — with "at least" while scenarios are to
// come; the finished run's progress and verdict agree on 69.
func TestCountsWithScenarios(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "booking-simulated")
	code, out, errs := runCLI(t, t.TempDir(), nil, "validate", suite)
	if code != ExitPass || !strings.Contains(out, "at least 40 cases (at least 8 in 8 scenarios, 32 in 8 conversations)") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, t.TempDir(), nil, "run", suite, "--out", filepath.Join(t.TempDir(), "r"), "--quiet")
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	if got := lastMatch(doneRe, errs); len(got) != 2 || got[0] != 69 || got[1] != 69 {
		t.Errorf("progress %v, want 69/69:\n%s", got, errs)
	}
	if got := lastMatch(verdictRe, out); len(got) != 1 || got[0] != 69 {
		t.Errorf("verdict %v, want 69:\n%s", got, out)
	}

	// Interrupted at 1 s, at 20 calls a second: part of the way.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "r")
	var so, se bytes.Buffer
	app := &App{Stdout: &so, Stderr: &se, Getwd: t.TempDir(), Env: func(string) (string, bool) { return "", false }, Now: time.Now}
	if code := app.Run(ctx, []string{"run", suite, "--out", dir, "--rate", "20", "--quiet"}); code != ExitInterrupted {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	got := interruptedRe.FindStringSubmatch(se.String())
	if got == nil {
		t.Fatalf("no interrupted message:\n%s", se.String())
	}
	n, _ := strconv.Atoi(got[1])
	m, _ := strconv.Atoi(got[3])
	if n != resultLines(t, dir) || n > m || m > 69 || n == 69 {
		t.Errorf("interrupted after %d of %d cases with %d results recorded:\n%s", n, m, resultLines(t, dir), se.String())
	}
}
