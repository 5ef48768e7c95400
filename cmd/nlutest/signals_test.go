package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// childCmd runs the test binary as the nlutest command (see TestMain).
func childCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NLUTEST_TEST_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// withLongGrace makes cmd's grace after the first interrupt 10 minutes
// instead of a second: the child then ends only by finishing its own
// stop (or on a second interrupt), which a test can rely on however
// loaded the machine; with the 1 s grace a slow stop is cut short.
func withLongGrace(cmd *exec.Cmd) *exec.Cmd {
	cmd.Env = append(cmd.Env, "NLUTEST_TEST_STOP_GRACE=10m")
	return cmd
}

// exitCode is the child's exit code, or -1 when a signal killed it.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -2
	}
	return 0
}

// hangingNLU accepts calls and never answers (until the test ends).
func hangingNLU(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

const signalSuite = `
suite "信号" {}
variable "url" { default = "http://127.0.0.1:9" }
target "nlu" {
  http {
    url  = var.url
    body = jsonencode({ text = case.text })
  }
  concurrency = 4
  timeout     = "60s"
}
target "demo" {
  demo {}
}
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
template "查天气" {
  text   = "{城市}天气怎么样"
  expect = { "$.city" = "{城市}" }
}
`

// bigSuite has a product of 10^8 cases with an explicit limit, so
// counting them takes far longer than the test waits.
func bigSuite() string {
	var vals []string
	for i := range 100 {
		vals = append(vals, fmt.Sprintf(`"v%03d"`, i))
	}
	list := strings.Join(vals, ", ")
	return signalSuite + fmt.Sprintf(`
materials "a" { values = [%s] }
materials "b" { values = [%s] }
materials "c" { values = [%s] }
materials "d" { values = [%s] }
template "大" {
  text     = "{a}{b}{c}{d}"
  strategy = "product"
  limit    = 100000000
}
`, list, list, list, list)
}

// interruptChild starts cmd, waits until ready says it is busy, sends
// SIGINT (and, when again > 0, SIGINT again every again until the child
// exits: two signals sent close together may be merged into one), and
// returns the exit code and how long the child took to exit after the
// first signal (for the log: a loaded machine may be slow).
func interruptChild(t *testing.T, cmd *exec.Cmd, ready func() bool, again time.Duration) (int, time.Duration, string) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	for deadline := time.Now().Add(hangLimit); !ready(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command never got busy; stderr:\n%s", stderr.String())
		}
	}
	time.Sleep(100 * time.Millisecond) // let it settle into the blocking step; not an assertion
	start := time.Now()
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var tick <-chan time.Time
	if again > 0 {
		ticker := time.NewTicker(again)
		defer ticker.Stop()
		tick = ticker.C
	}
	limit := time.After(hangLimit)
	for {
		select {
		case err := <-done:
			return exitCode(err), time.Since(start), stderr.String()
		case <-tick:
			_ = cmd.Process.Signal(os.Interrupt)
		case <-limit:
			t.Fatalf("still running %s after SIGINT; stderr:\n%s", hangLimit, stderr.String())
		}
	}
}

// opened returns a readiness check that holds once a reader has opened
// the FIFO at path: the child is then past its signal set-up and blocked
// in the read. The check keeps a writer open (without writing), so the
// reader stays blocked.
func opened(t *testing.T, path string) func() bool {
	return func() bool {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return false // ENXIO: no reader yet
		}
		t.Cleanup(func() { f.Close() })
		return true
	}
}

// busyCPU returns a readiness check that holds once cmd's process has
// used d of CPU time (Linux /proc; elsewhere, d after the first call): a
// child that has, is past its start-up and into its work however loaded
// the machine, where a wall-clock wait may end before it has started.
func busyCPU(cmd *exec.Cmd, d time.Duration) func() bool {
	wall := after(d)
	return func() bool {
		used, ok := cpuTimeOf(cmd.Process.Pid)
		if !ok {
			return wall()
		}
		return used >= d
	}
}

// cpuTimeOf is the user and system CPU time process pid has used, from
// /proc/PID/stat (utime and stime, fields 14 and 15, in clock ticks of
// 1/100 s, the USER_HZ of every Linux architecture Go supports).
func cpuTimeOf(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces; the fields after its
	// closing parenthesis start at field 3.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, true
}

// after returns a readiness check that holds d after its first call.
func after(d time.Duration) func() bool {
	var start time.Time
	return func() bool {
		if start.IsZero() {
			start = time.Now()
		}
		return time.Since(start) >= d
	}
}

// fifo makes a named pipe nobody writes to: reading it blocks, the way a
// hanging input does.
func fifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

func TestSIGINTEndsEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("signals child processes; skipped with -short")
	}
	dir := writeSuite(t, signalSuite)
	big := writeSuite(t, bigSuite())
	// A finished run and its directory, for eval and merge.
	runDir := filepath.Join(t.TempDir(), "run")
	if out, err := childCmd("run", dir, "--target", "demo", "--out", runDir, "--quiet").CombinedOutput(); exitCode(err) > 1 {
		t.Fatalf("demo run: %v\n%s", err, out)
	}
	// A copy of it whose results.jsonl is a FIFO: eval and merge block
	// reading it. (A FIFO a suite names, or a --var-file, is refused
	// before anything reads it: TestPathAttributesFollowFileRules.)
	fifoRun := filepath.Join(t.TempDir(), "fifo-run")
	if err := os.Mkdir(fifoRun, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(runDir, pipeline.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fifoRun, pipeline.MetaFile), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	results := fifo(t, filepath.Join(fifoRun, runner.ResultsFile))
	hang := hangingNLU(t)
	// How each command is known to be busy: blocked reading the FIFO,
	// 300 ms of CPU time into counting or generating 10^8 cases, or calls
	// in flight.
	const (
		readingFIFO = iota
		counting
		calling
	)
	tests := []struct {
		name  string
		args  []string
		ready int
	}{
		{"validate", []string{"validate", big}, counting},
		{"generate", []string{"generate", big}, counting},
		{"stats", []string{"stats", big}, counting},
		{"eval", []string{"eval", fifoRun, "--suite", dir}, readingFIFO},
		{"merge", []string{"merge", "--out", "OUT", fifoRun, "--suite", dir}, readingFIFO},
		{"run counting", []string{"run", big, "--out", "OUT"}, counting},
		{"generate 10^8 cases", []string{"generate", big, "-o", "OUT"}, counting},
		{"run calling a hanging service", []string{"run", dir, "--var", "url=" + hang.URL, "--out", "OUT"}, calling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				if a == "OUT" {
					a = out
				}
				args[i] = a
			}
			cmd := childCmd(args...)
			if tt.ready == calling {
				// The run stops by itself (calls cut short, reports
				// written), however long that takes on a loaded machine.
				withLongGrace(cmd)
			}
			ready := map[int]func() bool{
				readingFIFO: opened(t, results),
				counting:    busyCPU(cmd, 300*time.Millisecond),
				calling:     func() bool { return fileExists(filepath.Join(out, runner.ResultsFile)) },
			}[tt.ready]
			// Ended by the interrupt, or by the 1 s grace after it (a read
			// that blocks, a count that does not look at the interrupt):
			// a command that ignored it would still be running at
			// hangLimit. How fast it ended is logged, not checked.
			code, took, stderr := interruptChild(t, cmd, ready, 0)
			t.Logf("exit %d %s after SIGINT", code, took.Round(time.Millisecond))
			if code != ExitInterrupted {
				t.Errorf("exit %d after SIGINT, want %d; stderr:\n%s", code, ExitInterrupted, stderr)
			}
			if tt.ready == calling {
				checkInterruptedRun(t, out)
			}
		})
	}
}

// checkInterruptedRun: calls cut short by the interrupt are not recorded
// (--resume calls them again), and report.json is written.
func checkInterruptedRun(t *testing.T, dir string) {
	t.Helper()
	err := runner.ReadResults(filepath.Join(dir, runner.ResultsFile), func(r *schema.Result) error {
		return fmt.Errorf("case %s recorded (%+v) though its call was cut short by the interrupt", r.ID, r.Error)
	})
	if err != nil {
		t.Error(err)
	}
	if !fileExists(filepath.Join(dir, pipeline.ReportFile)) {
		t.Errorf("no %s after the interrupt", pipeline.ReportFile)
	}
}

func TestSecondSIGINTQuitsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("signals child processes; skipped with -short")
	}
	big := writeSuite(t, bigSuite())
	// validate counts 10^8 cases without looking at the interrupt, and a
	// 10-minute grace is not over: only a second interrupt ends it,
	// whatever the machine's speed. (It used to block on a --var-file
	// FIFO, which is now refused before anything reads it.)
	cmd := withLongGrace(childCmd("validate", big))
	code, took, stderr := interruptChild(t, cmd, busyCPU(cmd, 300*time.Millisecond), 200*time.Millisecond)
	t.Logf("exit %d %s after the first SIGINT", code, took.Round(time.Millisecond))
	if code != ExitInterrupted {
		t.Errorf("exit %d after a second SIGINT, want %d; stderr:\n%s", code, ExitInterrupted, stderr)
	}
	if !strings.Contains(stderr, "interrupted again") {
		t.Errorf("stderr does not say why it quit:\n%s", stderr)
	}
}

func TestRunIntoClosedPipeWritesReports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process; skipped with -short")
	}
	dir := writeSuite(t, signalSuite)
	tmp := t.TempDir()
	out, extra := filepath.Join(tmp, "run"), filepath.Join(tmp, "extra.json")
	cmd := childCmd("run", dir, "--target", "demo", "--out", out, "--report-json", extra, "--report-markdown", filepath.Join(tmp, "r.md"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// `| head -1` that has its line already: the pipe is closed before
	// the report reaches stdout.
	stdout.Close()
	err = cmd.Wait()
	if code := exitCode(err); code != ExitPass && code != ExitFail {
		t.Errorf("exit %d (%v), want the verdict's 0 or 1 (not death by SIGPIPE); stderr:\n%s", code, err, stderr.String())
	}
	for _, p := range []string{filepath.Join(out, pipeline.ReportFile), extra, filepath.Join(tmp, "r.md")} {
		if !fileExists(p) {
			t.Errorf("%s not written", p)
		}
	}
	if strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("a closed stdout is reported as an error:\n%s", stderr.String())
	}
}

// Minor 11 of the 2026-12-01 security audit: `generate | head -1` exited 3
// with "generate: write /dev/stdout: broken pipe". A reader that closed
// stdout ends generate normally (exit 0), as run and eval already did. The
// child writes far more than a pipe holds, so its writes fail with EPIPE
// whenever the pipe is closed.
func TestGenerateIntoClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process; skipped with -short")
	}
	var vals []string
	for i := range 3000 {
		vals = append(vals, fmt.Sprintf(`"城市%04d"`, i))
	}
	dir := writeSuite(t, `
suite "管道" {}
target "demo" {
  demo {}
}
materials "城市" { values = [`+strings.Join(vals, ", ")+`] }
template "查天气" { text = "{城市}明天天气怎么样" }
`)
	cmd := childCmd("generate", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// `| head -1`: one line read, then the pipe closed.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.HasPrefix(line, `{"id":`) {
		t.Errorf("first line %q, %v", line, err)
	}
	stdout.Close()
	if code := exitCode(cmd.Wait()); code != ExitPass {
		t.Errorf("exit %d, want 0 (a closed stdout is a normal end); stderr:\n%s", code, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// closedWriter fails every write as a pipe whose reader has gone does.
type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// generate, stats and diff end normally when their reader closed stdout;
// another write error is still exit 3.
func TestStdoutClosedPipe(t *testing.T) {
	dir := writeSuite(t, signalSuite)
	run := filepath.Join(t.TempDir(), "run")
	if code, _, errs := runCLI(t, dir, nil, "run", dir, "--target", "demo", "--out", run, "--quiet"); code > ExitFail {
		t.Fatalf("demo run: exit %d\n%s", code, errs)
	}
	for _, args := range [][]string{
		{"generate", dir},
		{"generate", dir, "--format", "csv"},
		{"stats", dir},
		{"diff", run, run},
	} {
		var errb strings.Builder
		app := &App{Stdout: closedWriter{}, Stderr: &errb, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
		if code := app.Run(context.Background(), args); code != ExitPass || errb.Len() > 0 {
			t.Errorf("%s into a closed pipe: exit %d, stderr %q; want 0 and nothing", strings.Join(args[:1], " "), code, errb.String())
		}
	}
	var errb strings.Builder
	app := &App{Stdout: failWriter{}, Stderr: &errb, Getwd: dir, Env: func(string) (string, bool) { return "", false }}
	if code := app.Run(context.Background(), []string{"generate", dir}); code != ExitCannotRun {
		t.Errorf("generate into a full disk: exit %d, want 3; stderr %q", code, errb.String())
	}
}

// failWriter fails every write as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }
