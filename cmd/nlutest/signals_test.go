package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
// SIGINT (and a second one after again, when again > 0), and returns the
// exit code and how long the child took to exit after the first signal.
func interruptChild(t *testing.T, cmd *exec.Cmd, ready func() bool, again time.Duration) (int, time.Duration, string) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	for deadline := time.Now().Add(20 * time.Second); !ready(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command never got busy; stderr:\n%s", stderr.String())
		}
	}
	time.Sleep(100 * time.Millisecond) // let it settle into the blocking step
	start := time.Now()
	_ = cmd.Process.Signal(os.Interrupt)
	if again > 0 {
		time.Sleep(again)
		_ = cmd.Process.Signal(os.Interrupt)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err), time.Since(start), stderr.String()
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGINT; stderr:\n%s", stderr.String())
	}
	return 0, 0, ""
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
	hang := hangingNLU(t)
	// How each command is known to be busy: blocked reading the FIFO, a
	// second into counting or generating 10^8 cases, or calls in flight.
	const (
		readingFIFO = iota
		aSecondIn
		calling
	)
	tests := []struct {
		name  string
		args  []string
		ready int
	}{
		{"validate", []string{"validate", dir, "--var-file", "FIFO"}, readingFIFO},
		{"generate", []string{"generate", dir, "--var-file", "FIFO"}, readingFIFO},
		{"stats", []string{"stats", dir, "--var-file", "FIFO"}, readingFIFO},
		{"eval", []string{"eval", runDir, "--var-file", "FIFO"}, readingFIFO},
		{"merge", []string{"merge", "--out", "OUT", runDir, "--var-file", "FIFO"}, readingFIFO},
		{"fmt", []string{"fmt", "FIFO"}, readingFIFO},
		{"run counting", []string{"run", big, "--out", "OUT"}, aSecondIn},
		{"generate 10^8 cases", []string{"generate", big, "-o", "OUT"}, aSecondIn},
		{"run calling a hanging service", []string{"run", dir, "--var", "url=" + hang.URL, "--out", "OUT"}, calling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			out, pipe := filepath.Join(tmp, "out"), filepath.Join(tmp, "hang"+spec_suffix)
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				switch a {
				case "FIFO":
					a = fifo(t, pipe)
				case "OUT":
					a = out
				}
				args[i] = a
			}
			ready := map[int]func() bool{
				readingFIFO: opened(t, pipe),
				aSecondIn:   after(time.Second),
				calling:     func() bool { return fileExists(filepath.Join(out, runner.ResultsFile)) },
			}[tt.ready]
			code, took, stderr := interruptChild(t, childCmd(args...), ready, 0)
			if code != ExitInterrupted || took > 2*time.Second {
				t.Errorf("exit %d %s after SIGINT, want %d within 2 s; stderr:\n%s", code, took.Round(time.Millisecond), ExitInterrupted, stderr)
			}
			if tt.ready == calling {
				checkInterruptedRun(t, out)
			}
		})
	}
}

// spec_suffix names the FIFO like a suite file, for fmt.
const spec_suffix = ".nlutest.hcl"

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
	dir := writeSuite(t, signalSuite)
	vars := fifo(t, filepath.Join(t.TempDir(), "vars"))
	code, took, stderr := interruptChild(t, childCmd("validate", dir, "--var-file", vars), opened(t, vars), 200*time.Millisecond)
	if code != ExitInterrupted || took > 1200*time.Millisecond {
		t.Errorf("exit %d %s after the first SIGINT (second at 200ms), want %d at once; stderr:\n%s", code, took.Round(time.Millisecond), ExitInterrupted, stderr)
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
