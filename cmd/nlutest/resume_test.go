package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// TestMain lets the test binary act as the nlutest command, so tests can
// run it as a child process and kill it. NLUTEST_TEST_STOP_GRACE sets the
// child's grace after an interrupt (see childCmd). NLUTEST_TEST_HWM names a
// file the child writes its /proc/self/status to as it ends (maxRSSOf).
func TestMain(m *testing.M) {
	if os.Getenv("NLUTEST_TEST_CHILD") == "1" {
		if g, err := time.ParseDuration(os.Getenv("NLUTEST_TEST_STOP_GRACE")); err == nil {
			stopGrace = g
		}
		code := mainCode(os.Args[1:])
		if path := os.Getenv("NLUTEST_TEST_HWM"); path != "" {
			// the peak resident set of this process (VmHWM; getrusage's
			// ru_maxrss would count the parent's pages before the exec)
			status, _ := os.ReadFile("/proc/self/status")
			_ = os.WriteFile(path, status, 0o644)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func resumeSuite(n int) string {
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf(`"城市%03d"`, i))
	}
	return fmt.Sprintf(`
suite "续跑" {}
variable "url" {}
target "nlu" {
  http {
    url  = var.url
    body = jsonencode({ text = case.text })
  }
  concurrency = 4
}
materials "城市" { values = [%s] }
template "查天气" {
  text   = "{城市}天气怎么样"
  expect = { "$.city" = "{城市}" }
}
`, strings.Join(vals, ", "))
}

// slowNLU answers after a short pause; cities ending in 7 come back wrong.
// Its requests pass through g (which holds them once armed), so a run
// against it can be stopped in the middle.
func slowNLU(t *testing.T, g *gate) *httptest.Server {
	srv := httptest.NewServer(g.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(2 * time.Millisecond)
		city := strings.TrimSuffix(req.Text, "天气怎么样")
		if strings.HasSuffix(city, "7") {
			city = "上海"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"city": city, "text": req.Text})
	})))
	t.Cleanup(srv.Close)
	return srv
}

type recorded struct {
	outcome  string
	response string
}

func readRecorded(t *testing.T, path string) map[string]recorded {
	t.Helper()
	out := map[string]recorded{}
	err := runner.ReadResults(path, func(r *schema.Result) error {
		if _, dup := out[r.ID]; dup {
			t.Errorf("case %s recorded twice", r.ID)
		}
		out[r.ID] = recorded{r.Outcome.String(), string(r.Response)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResumeAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	g := newGate(t)
	srv := slowNLU(t, g)
	dir := writeSuite(t, resumeSuite(300))
	child := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "NLUTEST_TEST_CHILD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	// The uninterrupted run, for comparison.
	want := filepath.Join(dir, "whole")
	if out, err := child("run", dir, "--var", "url="+srv.URL, "--out", want, "--quiet").CombinedOutput(); err != nil && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	// 20 runs killed at random points, each resuming the last: each one
	// held at its n-th request (n from 1 to 10: 20 runs stay short of the
	// 300 cases), so it cannot finish before the kill however fast or
	// slow the machine.
	run := filepath.Join(dir, "killed")
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for i := 0; i < 20; i++ {
		args := []string{"run", dir, "--var", "url=" + srv.URL, "--quiet"}
		if fileExists(filepath.Join(run, RunMetaFile)) {
			args = append(args, "--resume", run)
		} else {
			args = append(args, "--out", run)
		}
		if killHeld(t, child(args...), g, 1+rng.IntN(10), time.Duration(rng.IntN(40))*time.Millisecond) {
			kills++
		}
	}
	if kills != 20 {
		t.Fatalf("only %d of 20 runs were killed mid-way; the test does not exercise resume", kills)
	}
	out, err := child("run", dir, "--var", "url="+srv.URL, "--resume", run, "--quiet").CombinedOutput()
	if !fileExists(filepath.Join(run, RunMetaFile)) {
		t.Fatalf("no run was under way when killed:\n%s", out)
	}
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("final resume: %v\n%s", err, out)
	}
	got := readRecorded(t, filepath.Join(run, runner.ResultsFile))
	exp := readRecorded(t, filepath.Join(want, runner.ResultsFile))
	if len(got) != 300 || len(exp) != 300 {
		t.Fatalf("want 300 results in both runs, got %d resumed and %d whole", len(got), len(exp))
	}
	var diffs []string
	for id, e := range exp {
		if got[id] != e {
			diffs = append(diffs, id)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%d cases differ between the killed-and-resumed run and the whole run, e.g. %s", len(diffs), diffs[0])
	}
	a, b := loadReport(t, want), loadReport(t, run)
	if withoutLatency(a.Metrics) != withoutLatency(b.Metrics) {
		t.Errorf("metrics of the resumed run differ from the whole run")
	}
	t.Logf("%d of 20 runs killed mid-way; final run completed %d cases", kills, len(got))
}

// results.jsonl is written in groups (runner.ResultsWriter.Add, flushed
// whenever the run has handed on every finished call): a run killed while
// it waits for its calls in flight has kept every call that was answered.
// The service answers n-1 calls and holds the rest; once the results file
// holds those n-1 (a wait only a run that never writes would not end), the
// run is killed and must have kept exactly them, whole, and a resume
// completes the run.
func TestKilledRunKeepsEveryAnsweredCall(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	g := newGate(t)
	srv := slowNLU(t, g)
	dir := writeSuite(t, resumeSuite(300))
	for _, n := range []int{1, 2, 9, 70, 200} {
		run := filepath.Join(dir, fmt.Sprintf("killed-%d", n))
		results := filepath.Join(run, runner.ResultsFile)
		held := g.arm(n)
		cmd := exec.Command(os.Args[0], "run", dir, "--var", "url="+srv.URL, "--out", run, "--quiet")
		cmd.Env = append(os.Environ(), "NLUTEST_TEST_CHILD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }
		select {
		case <-held:
		case <-time.After(hangLimit):
			kill()
			t.Fatalf("n=%d: the run never reached its %d-th request", n, n)
		}
		lines := func() int {
			b, _ := os.ReadFile(results)
			return strings.Count(string(b), "\n")
		}
		deadline := time.Now().Add(hangLimit)
		for lines() < n-1 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		kill()
		g.release()
		if got := len(readRecorded(t, results)); got != n-1 || lines() != n-1 {
			t.Fatalf("n=%d: the killed run kept %d results (%d lines), want the %d answered calls", n, got, lines(), n-1)
		}
		resume := exec.Command(os.Args[0], "run", "--resume", run, "--var", "url="+srv.URL, "--quiet")
		resume.Env = append(os.Environ(), "NLUTEST_TEST_CHILD=1")
		out, err := resume.CombinedOutput()
		if err != nil && !strings.Contains(err.Error(), "exit status 1") {
			t.Fatalf("n=%d: resume: %v\n%s", n, err, out)
		}
		if got := len(readRecorded(t, results)); got != 300 {
			t.Errorf("n=%d: the resumed run holds %d results, want 300", n, got)
		}
	}
}
