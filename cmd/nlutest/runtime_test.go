package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// lastResultEnd is when the last call recorded in a results file ended
// (its start plus its latency), the latest over all its results.
func lastResultEnd(t *testing.T, path string) time.Time {
	t.Helper()
	var last time.Time
	err := runner.ReadResults(path, func(r *schema.Result) error {
		if end := r.Started.Add(time.Duration(r.LatencyMS * float64(time.Millisecond))); end.After(last) {
			last = end
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return last
}

// TestKilledSessionCountsInRunTime (issue 35, audit m7): docs/cli.md says
// a resumed run's time covers "the whole run, earlier sessions
// included"; a session killed outright (SIGKILL) was left out, because
// run.json learned its time only when a session ended. The first session
// here records 40 calls of 20 ms and is killed; after a 1 s pause the
// resume makes the other 20. The report's time must hold the killed
// session up to its last result, and the resumed one, but not the pause
// nor the idle wait before the kill.
func TestKilledSessionCountsInRunTime(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process; skipped with -short")
	}
	g := newGate(t)
	srv := httptest.NewServer(g.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(20 * time.Millisecond)
		_ = json.NewEncoder(w).Encode(map[string]any{"city": strings.TrimSuffix(req.Text, "天气怎么样")})
	})))
	t.Cleanup(srv.Close)
	dir := writeSuite(t, resumeSuite(60))
	run := filepath.Join(t.TempDir(), "run")
	results := filepath.Join(run, runner.ResultsFile)

	held := g.arm(41)
	cmd := childCmd("run", dir, "--var", "url="+srv.URL, "--out", run, "--concurrency", "1", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(hangLimit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("the run never reached its 41st call")
	}
	deadline := time.Now().Add(hangLimit)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(results); strings.Count(string(b), "\n") == 40 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // idle, waiting for the held call
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	g.release()
	first, err := pipeline.ReadMeta(run)
	if err != nil {
		t.Fatal(err)
	}
	killed := lastResultEnd(t, results).Sub(first.Started).Seconds()
	if killed < 0.8 {
		t.Fatalf("the killed session recorded only %.2f s of calls; the test wants 40 calls of 20 ms", killed)
	}

	time.Sleep(time.Second) // the pause between the sessions
	if out, err := childCmd("run", "--resume", run, "--var", "url="+srv.URL, "--concurrency", "1", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	whole, err := pipeline.ReadMeta(run)
	if err != nil {
		t.Fatal(err)
	}
	rep := loadReport(t, run)
	span := whole.Finished.Sub(whole.Started).Seconds()
	// The resumed session made 20 calls of 20 ms: at least 0.4 s.
	if rep.Run.Seconds < killed+0.4 || rep.Run.Seconds > span-1.0 {
		t.Errorf("run time %.2f s; want the killed session's %.2f s plus the resumed one's (≥ 0.4 s), and not the 1.4 s of pause and idle wait in the %.2f s from start to finish", rep.Run.Seconds, killed, span)
	}
	if whole.Seconds != rep.Run.Seconds || !whole.Session.IsZero() {
		t.Errorf("run.json: seconds %.2f (report %.2f), session %v", whole.Seconds, rep.Run.Seconds, whole.Session)
	}
}
