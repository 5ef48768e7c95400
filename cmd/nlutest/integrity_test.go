package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// Report paths are checked before the run: a run directory's own file, a
// directory or an unwritable place is a usage error and nothing is called.
func TestReportPathsCheckedBeforeTheRun(t *testing.T) {
	srv := fakeNLU(t)
	dir := writeSuite(t, offlineSuite)
	run := filepath.Join(dir, "run")
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, path, want string
	}{
		{"the run's results", "--report-json", filepath.Join(run, "results.jsonl"), "is a file of the run directory"},
		{"the run's run.json", "--report-junit", filepath.Join(run, "run.json"), "is a file of the run directory"},
		{"a directory", "--report-markdown", dir, "is a directory"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		tests = append(tests, struct{ name, flag, path, want string }{"unwritable", "--report-json", filepath.Join(locked, "sub", "r.json"), "cannot be written"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			path := strings.Replace(tt.path, run, out, 1)
			code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", out, tt.flag, path)
			if code != ExitInvalid || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, ExitInvalid, tt.want, errs)
			}
			if fileExists(filepath.Join(out, "results.jsonl")) {
				t.Errorf("the run went ahead")
			}
		})
	}
}

// A product without limit is capped, and validate says so with the
// product's size; a template that generates no case is flagged.
func TestValidateShowsGenerationWarnings(t *testing.T) {
	var vals []string
	for i := range 1000 {
		vals = append(vals, `"v`+itoa3(i)+`"`)
	}
	list := strings.Join(vals, ", ")
	dir := writeSuite(t, suiteHeader+`
materials "a" { values = [`+list+`] }
materials "b" { values = [`+list+`] }
materials "c" { values = [`+list+`] }
materials "d" {
  values = ["x", "y", "z", "w"]
  level  = "M1"
}
template "大" {
  text     = "{d}{a}{b}{c}"
  strategy = "product"
}
template "空" {
  text            = "{d}"
  material_levels = ["M2"]
}
`)
	code, out, errs := runCLI(t, dir, nil, "validate", dir, "--var", "url=x")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{`makes 4000000000 cases (4 × 1000 × 1000 × 1000 values)`, `only the first 100000`, `template "空" generates no cases`} {
		if !strings.Contains(errs, want) {
			t.Errorf("validate's stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "1000") || strings.Contains(out, "4000000") {
		t.Errorf("validate: %s", out)
	}
}

func itoa3(i int) string {
	return string([]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)})
}

// The suite is named after its directory when PATH is ".".
func TestSuiteNamedAfterItsDirectoryForDot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "出行")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(`variable "url" {}
target "nlu" {
  http { url = var.url }
}
materials "城市" { values = ["北京"] }
template "t" { text = "{城市}" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errs := runCLI(t, dir, nil, "validate", ".", "--var", "url=x")
	if code != ExitPass || !strings.Contains(out, `suite "出行"`) {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
}

// fmt follows symlinked suite files and directories, and fmt (like
// annotate --write, through reporters.WriteFile) keeps a symlink a
// symlink, rewriting the file it points to.
func TestFmtFollowsAndKeepsSymlinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	messy := "suite \"x\" {}\nmaterials   \"m\" {   values = [\"a\"] }\n"
	for _, f := range []string{"a.nlutest.hcl", "sub/b.nlutest.hcl"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte(messy), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree := filepath.Join(root, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tree, "linked.nlutest.hcl")
	for _, l := range [][2]string{{filepath.Join(real, "a.nlutest.hcl"), link}, {filepath.Join(real, "sub"), filepath.Join(tree, "suites")}, {tree, filepath.Join(tree, "loop")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI(t, root, nil, "fmt", "--check", tree)
	if code != ExitFail || !strings.Contains(out, "linked.nlutest.hcl") || !strings.Contains(out, filepath.Join("suites", "b.nlutest.hcl")) {
		t.Fatalf("fmt --check: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, root, nil, "fmt", tree); code != ExitPass {
		t.Fatalf("fmt: exit %d\n%s%s", code, out, errs)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("fmt replaced the symlink %s with a file (%v)", link, err)
	}
	b, _ := os.ReadFile(filepath.Join(real, "a.nlutest.hcl"))
	if string(b) == messy {
		t.Errorf("the linked file was not formatted")
	}
}

// Minor 13 of the 2026-12-01 security audit: fmt split a hard-linked
// suite file (its rename gave the path a new inode; the other name kept
// the old text). It now rewrites such a file in place.
func TestFmtKeepsHardLinks(t *testing.T) {
	dir := t.TempDir()
	messy := "suite \"硬链接\" {}\ntarget \"demo\" {\n demo {}\n}\nmaterials \"城市\" {   values = [\"北京\"]   }\ntemplate \"t\" {   text = \"去{城市}\"   }\n"
	suite, other := filepath.Join(dir, "a.nlutest.hcl"), filepath.Join(dir, "other.txt")
	if err := os.WriteFile(suite, []byte(messy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(suite, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if code, out, errs := runCLI(t, dir, nil, "fmt", dir); code != ExitPass || !strings.Contains(out, "a.nlutest.hcl") {
		t.Fatalf("fmt: exit %d\n%s%s", code, out, errs)
	}
	a, errA := os.Stat(suite)
	b, errB := os.Stat(other)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Fatalf("fmt split the hard link (%v, %v)", errA, errB)
	}
	got, _ := os.ReadFile(other)
	if string(got) == messy || !strings.Contains(string(got), `values = ["北京"]`) {
		t.Errorf("the other link holds:\n%s", got)
	}
	if code, out, errs := runCLI(t, dir, nil, "fmt", "--check", dir); code != ExitPass {
		t.Errorf("fmt --check after fmt: exit %d\n%s%s", code, out, errs)
	}
}

// generate -o /dev/stdout (any non-regular file) streams: the first case
// arrives while 10^8 are still being generated.
func TestGenerateToAPipeStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process; skipped with -short")
	}
	dir := writeSuite(t, bigSuite())
	pipe := fifo(t, filepath.Join(t.TempDir(), "out"))
	cmd := childCmd("generate", dir, "-o", pipe)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(pipe)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if !strings.HasPrefix(line, `{"id":`) {
			t.Errorf("first line %q", line)
		}
	case <-time.After(hangLimit):
		t.Fatalf("no case within %s: generate buffers its output", hangLimit)
	}
}

// serve demo warns when it listens beyond loopback.
func TestServeDemoWarnsOffLoopback(t *testing.T) {
	for _, tt := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb bytes.Buffer
		app := &App{Stdout: &out, Stderr: &errb}
		done := make(chan int)
		go func() { done <- app.Run(ctx, []string{"serve", "demo", "--addr", tt.addr}) }()
		time.Sleep(200 * time.Millisecond) // not an assertion: serve warns before it looks at ctx
		cancel()
		<-done
		if got := strings.Contains(errb.String(), "not a loopback address"); got != tt.warn {
			t.Errorf("--addr %s: warning %v, want %v: %s", tt.addr, got, tt.warn, errb.String())
		}
	}
}

// Ctrl-C during a demo run records no error made by the interruption (the
// embedded service stopping, calls cut short), so --resume completes the
// run with the verdict and figures of an uninterrupted one.
func TestDemoInterruptRecordsNoFakeErrors(t *testing.T) {
	var vals []string
	for i := range 60 {
		vals = append(vals, fmt.Sprintf(`"城市%02d"`, i))
	}
	dir := writeSuite(t, fmt.Sprintf(`
suite "演示" { schema = "rasa" }
target "demo" {
  demo {}
  concurrency = 8
}
materials "城市" { values = [%s] }
materials "日期" { values = ["明天", "后天", "下周一", "周五", "今天"] }
template "订机票" {
  text     = "帮我订{日期}去{城市}的机票"
  strategy = "product"
  expect   = { "$.intent.name" = "book_flight" }
}
`, strings.Join(vals, ", ")))
	whole := filepath.Join(t.TempDir(), "whole")
	wantCode, _, errs := runCLI(t, dir, nil, "run", dir, "--out", whole, "--quiet")
	if wantCode > ExitFail {
		t.Fatalf("uninterrupted run: %d\n%s", wantCode, errs)
	}
	run := filepath.Join(t.TempDir(), "run")
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithCancel(context.Background())
		app := &App{Stdout: io.Discard, Stderr: io.Discard, Getwd: dir}
		go func() {
			for !fileExists(filepath.Join(run, "results.jsonl")) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(5 * time.Millisecond)
			cancel()
		}()
		code := app.Run(ctx, []string{"run", dir, "--out", run, "--quiet"})
		cancel()
		if code == ExitInterrupted {
			break
		}
		if attempt == 3 {
			t.Skip("every run finished before the interrupt")
		}
		os.RemoveAll(run) // finished before the interrupt: try again
	}
	errorsRecorded := 0
	_ = runner.ReadResults(filepath.Join(run, "results.jsonl"), func(r *schema.Result) error {
		if r.Error != nil {
			errorsRecorded++
		}
		return nil
	})
	if errorsRecorded > 0 {
		t.Errorf("%d errors recorded by an interrupted demo run", errorsRecorded)
	}
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--resume", run, "--quiet")
	if code != wantCode {
		t.Errorf("resumed run exits %d, the uninterrupted one %d\n%s", code, wantCode, errs)
	}
	if a, b := loadReport(t, whole).Metrics, loadReport(t, run).Metrics; a.Total != b.Total || a.Passed != b.Passed || a.Errored != b.Errored {
		t.Errorf("resumed: %d of %d passed, %d errors; uninterrupted: %d of %d, %d errors", b.Passed, b.Total, b.Errored, a.Passed, a.Total, a.Errored)
	}
}
