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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
)

// TestInterruptSaysHowToResume (issue 17, friction 1): a run stopped by
// Ctrl-C (its context cancelled after the 4th call) ends with exit 130
// and a "Continue with:" line; running that line verbatim finishes the
// run, whose progress counts the whole run (10/10 cases done, not the 6
// of this session) and whose time — report.json's seconds, run.json's and
// the verdict line's duration — adds both sessions.
func TestInterruptSaysHowToResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		if calls.Add(1) == 4 {
			cancel() // Ctrl-C, as withSignals turns it into a cancelled context
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"city": strings.TrimSuffix(req.Text, "天气怎么样")})
	}))
	defer srv.Close()
	suite := writeSuite(t, resumeSuite(10))
	tmp := t.TempDir()
	vars := filepath.Join(tmp, "vars.hcl")
	if err := os.WriteFile(vars, []byte(fmt.Sprintf("url = %q\n", srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	// Each reading of the clock is one second later: a session lasts a
	// few seconds, the whole run their sum.
	var mu sync.Mutex
	clock := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	app := func(stdout, stderr *bytes.Buffer) *App {
		return &App{Stdout: stdout, Stderr: stderr, Getwd: tmp, Env: func(string) (string, bool) { return "", false },
			Now: func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }}
	}

	var so, se bytes.Buffer
	code := app(&so, &se).Run(ctx, []string{"run", suite, "--var-file", vars, "--out", out, "--concurrency", "1"})
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, se.String())
	}
	lines := strings.Split(strings.TrimRight(se.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	want := "Continue with: nlutest run --resume " + out + " --var-file " + vars
	if last != want {
		t.Fatalf("last line of stderr\n got %q\nwant %q\n%s", last, want, se.String())
	}
	first, err := pipeline.ReadMeta(out)
	if err != nil || first.Seconds <= 0 {
		t.Fatalf("run.json after the interrupt: %+v, %v", first, err)
	}
	recorded := len(readRecorded(t, filepath.Join(out, "results.jsonl")))
	if recorded == 0 || recorded >= 10 {
		t.Fatalf("%d of 10 cases recorded before the interrupt; the test wants a run cut in the middle", recorded)
	}

	so.Reset()
	se.Reset()
	args := strings.Fields(strings.TrimPrefix(last, "Continue with: nlutest "))
	code = app(&so, &se).Run(context.Background(), args)
	if code != ExitPass {
		t.Fatalf("the printed command exited %d\n%s%s", code, se.String(), so.String())
	}
	if want := fmt.Sprintf("resuming %s: %d of 10 cases already recorded", out, recorded); !strings.Contains(se.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, se.String())
	}
	if want := fmt.Sprintf("template 查天气: %d cases, %d passed, 0 failed, 0 errored · 10/10 cases done", 10-recorded, 10-recorded); !strings.Contains(se.String(), want) {
		t.Errorf("progress does not count the whole run; want %q in\n%s", want, se.String())
	}
	whole, err := pipeline.ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Run struct{ Seconds float64 } `json:"run"`
	}
	raw, _ := os.ReadFile(filepath.Join(out, pipeline.ReportFile))
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	second := whole.Seconds - first.Seconds
	if second < 1 || rep.Run.Seconds != whole.Seconds {
		t.Errorf("the resumed run's time is not both sessions': run.json %.0f s after the first session, %.0f s after both; report.json %.0f s", first.Seconds, whole.Seconds, rep.Run.Seconds)
	}
	if want := fmt.Sprintf("10 passed, 0 failed, 0 errored of 10 cases (%.1fs)", whole.Seconds); !strings.Contains(so.String(), want) {
		t.Errorf("the verdict line lacks the whole run's %q:\n%s", want, so.String())
	}
}

// The hint names --var flags without their values (they may be secrets)
// and repeats variable files and --allow-outside.
func TestResumeHintNamesVars(t *testing.T) {
	rf := runFlags{}
	rf.vars = listFlag{"url=http://127.0.0.1:9/x", "token=s3cret"}
	rf.varFiles = listFlag{"ci vars.hcl"}
	rf.allowOutside = true
	got := rf.resumeHint("runs/一")
	if !strings.HasPrefix(got, "Continue with: nlutest run --resume runs/一 --var-file 'ci vars.hcl' --allow-outside\n") {
		t.Errorf("hint %q", got)
	}
	if !strings.Contains(got, "same --var flags (url, token)") || strings.Contains(got, "s3cret") {
		t.Errorf("hint %q: want the --var names and no value", got)
	}
}
