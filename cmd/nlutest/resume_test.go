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
// run it as a child process and kill it.
func TestMain(m *testing.M) {
	if os.Getenv("NLUTEST_TEST_CHILD") == "1" {
		os.Exit(mainCode(os.Args[1:]))
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

// slowNLU answers after a short pause, so a run lasts long enough to be
// killed in the middle; cities ending in 7 come back wrong.
func slowNLU(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(2 * time.Millisecond)
		city := strings.TrimSuffix(req.Text, "天气怎么样")
		if strings.HasSuffix(city, "7") {
			city = "上海"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"city": city, "text": req.Text})
	}))
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
	srv := slowNLU(t)
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
	// 20 runs killed at random points, each resuming the last.
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
		cmd := child(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the run is under way (slow under -race), then kill it
		// at a random moment.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if fileExists(filepath.Join(run, runner.ResultsFile)) {
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err := cmd.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			kills++
		}
	}
	if kills < 10 {
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
