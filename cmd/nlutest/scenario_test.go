package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScenarios runs the end-to-end scenarios of testdata/scenarios/*.txtar
// (format: docs/testing.md). Each one is a txtar archive holding the suite
// files, the command lines (section "cmd"), the expected exit code ("exit"),
// stdout and stderr, and optionally files the last command must write
// ("want/PATH"). The CLI runs in-process in a fresh directory holding the
// archive's other files; -update rewrites the expectations.
func TestScenarios(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no scenarios under testdata/scenarios")
	}
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runScenario(t, abs)
		})
	}
}

// scenario sections with a meaning; every other file is written to the
// scenario's directory.
const (
	secCmd    = "cmd"
	secExit   = "exit"
	secStdout = "stdout"
	secStderr = "stderr"
	secEnv    = "env"
	wantDir   = "want/"
)

func runScenario(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseTxtar(data)
	work := t.TempDir()
	env := map[string]string{}
	var cmds [][]string
	for _, f := range ar.files {
		switch {
		case f.name == secCmd:
			cmds = scenarioCommands(t, string(f.data), work)
		case f.name == secEnv:
			for _, line := range strings.Split(string(f.data), "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
					env[k] = v
				}
			}
		case f.name == secExit || f.name == secStdout || f.name == secStderr || strings.HasPrefix(f.name, wantDir):
		default:
			p := filepath.Join(work, filepath.FromSlash(f.name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("%s has no %q section with a command line", path, secCmd)
	}
	t.Chdir(work)
	var code int
	var stdout, stderr string
	for i, args := range cmds {
		code, stdout, stderr = runScenarioCommand(env, args)
		if i < len(cmds)-1 && code != ExitPass && code != ExitFail {
			t.Fatalf("setup command %q exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	got := map[string]string{
		secExit:   strconv.Itoa(code) + "\n",
		secStdout: normalizeOutput(stdout, work),
		secStderr: normalizeOutput(stderr, work),
	}
	for _, f := range ar.files {
		if name, ok := strings.CutPrefix(f.name, wantDir); ok {
			b, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(name)))
			if err != nil {
				got[f.name] = fmt.Sprintf("(not written: %v)\n", err)
				continue
			}
			got[f.name] = normalizeOutput(string(b), work)
		}
	}
	if *update {
		ar.setExpectations(got)
		if err := os.WriteFile(path, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	checkScenario(t, &ar, got, work)
}

// checkScenario compares each expectation with what the run gave; a
// section left out expects empty output (exit: 0).
func checkScenario(t *testing.T, ar *txtar, got map[string]string, work string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := ""
		if f := ar.file(name); f != nil {
			want = string(f.data)
		} else if name == secExit {
			want = "0\n"
		}
		if name != secExit {
			want = normalizeOutput(want, work)
		}
		if strings.TrimSpace(want) != strings.TrimSpace(got[name]) {
			t.Errorf("%s differs at %s (go test ./cmd/nlutest -run TestScenarios -update rewrites it after review)\n--- want ---\n%s\n--- got ---\n%s",
				name, firstDiff(want, got[name]), want, got[name])
		}
	}
}

// firstDiff names the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(strings.TrimSpace(want), "\n"), strings.Split(strings.TrimSpace(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, a, b)
		}
	}
	return "the end"
}

// runScenarioCommand runs one command line in-process, as from a shell
// without a terminal, with a fixed clock.
func runScenarioCommand(env map[string]string, args []string) (int, string, string) {
	var out, errb bytes.Buffer
	app := &App{
		Stdout: &out, Stderr: &errb, Getwd: ".",
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Now: func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) },
	}
	code := app.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// scenarioCommands splits the cmd section into command lines (blank lines
// and # comments skipped), each into words: double or single quotes group
// words, $WORK is the scenario's directory. Every line starts with nlutest.
func scenarioCommands(t *testing.T, section, work string) [][]string {
	var cmds [][]string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(strings.ReplaceAll(line, "$WORK", work))
		if err != nil {
			t.Fatalf("cmd %q: %v", line, err)
		}
		if words[0] != "nlutest" {
			t.Fatalf("cmd %q: a command line starts with nlutest", line)
		}
		cmds = append(cmds, words[1:])
	}
	return cmds
}

func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var (
	reDuration = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b|\b\d+m\d\ds\b|\b\d+h\d\dm\b`)
	// A latency table row: a bucket name, a count, then figures in ms.
	reLatencyRow = regexp.MustCompile(`^[\s|]*(all|<=20|&lt;=20|21-50|51-100|101-200|>200|&gt;200)[\s|]+\d+[\s|]+\d+\.\d`)
	reDecimal    = regexp.MustCompile(`\d+\.\d+(e[+-]\d+)?|\d+e[+-]\d+`)
	reJSONTiming = regexp.MustCompile(`("[a-z0-9_]*(_ms|seconds)"\s*:\s*)-?[0-9.eE+-]+`)
	reLoopback   = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	reRule       = regexp.MustCompile(`─{3,}`)
	reSpaces     = regexp.MustCompile(`(\S)  +`)
)

// normalizeOutput makes output comparable across machines and runs: the
// scenario directory reads $WORK, durations <dur>, latency figures <ms>
// (latency table rows and lines naming a latency), JSON timings <n>, the
// demo target's port 127.0.0.1:<port>. In
// console tables (a header, a rule of ─, rows up to a blank line), whose
// column widths follow the figures, runs of spaces become two spaces and
// the rule three dashes. Trailing spaces go.
func normalizeOutput(s, work string) string {
	if work != "" {
		s = strings.ReplaceAll(s, work, "$WORK")
		if real, err := filepath.EvalSymlinks(work); err == nil && real != work {
			s = strings.ReplaceAll(s, real, "$WORK")
		}
	}
	lines := strings.Split(s, "\n")
	inTable := false
	for i, l := range lines {
		l = reDuration.ReplaceAllString(l, "<dur>")
		if reLatencyRow.MatchString(l) || strings.Contains(strings.ToLower(l), "latency") {
			l = reDecimal.ReplaceAllString(l, "<ms>")
		}
		l = reJSONTiming.ReplaceAllString(l, "${1}<n>")
		l = reLoopback.ReplaceAllString(l, "127.0.0.1:<port>")
		switch {
		case strings.Contains(l, "───"):
			inTable = true
			l = reRule.ReplaceAllString(l, "───")
			if i > 0 {
				lines[i-1] = reSpaces.ReplaceAllString(lines[i-1], "$1  ")
			}
		case strings.TrimSpace(l) == "":
			inTable = false
		case inTable:
			l = reSpaces.ReplaceAllString(l, "$1  ")
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// txtar is a txtar archive (golang.org/x/tools/txtar's format): a comment,
// then files, each introduced by a line "-- NAME --".
type txtar struct {
	comment []byte
	files   []txtarFile
}

type txtarFile struct {
	name string
	data []byte
}

func parseTxtar(data []byte) txtar {
	var ar txtar
	cur := &ar.comment
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if name, ok := txtarMarker(line); ok {
			ar.files = append(ar.files, txtarFile{name: name})
			cur = &ar.files[len(ar.files)-1].data
			continue
		}
		*cur = append(*cur, line...)
	}
	return ar
}

func txtarMarker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}

func (ar *txtar) file(name string) *txtarFile {
	for i := range ar.files {
		if ar.files[i].name == name {
			return &ar.files[i]
		}
	}
	return nil
}

// setExpectations writes what a run gave into the archive: exit, stdout
// and stderr after cmd (left out when empty, exit when 0), want/ files in
// place.
func (ar *txtar) setExpectations(got map[string]string) {
	var files []txtarFile
	for _, f := range ar.files {
		switch {
		case f.name == secExit || f.name == secStdout || f.name == secStderr:
			continue
		case strings.HasPrefix(f.name, wantDir):
			f.data = []byte(got[f.name])
		}
		files = append(files, f)
		if f.name == secCmd {
			if got[secExit] != "0\n" {
				files = append(files, txtarFile{name: secExit, data: []byte(got[secExit])})
			}
			for _, name := range []string{secStdout, secStderr} {
				if strings.TrimSpace(got[name]) != "" {
					files = append(files, txtarFile{name: name, data: []byte(got[name])})
				}
			}
		}
	}
	ar.files = files
}

func (ar *txtar) format() []byte {
	var b bytes.Buffer
	b.Write(ar.comment)
	for _, f := range ar.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func TestScenarioFormat(t *testing.T) {
	words, err := splitWords(`nlutest run "my suite" --var 'q=a b' --out $WORK/r`)
	if err != nil || strings.Join(words, "|") != "nlutest|run|my suite|--var|q=a b|--out|$WORK/r" {
		t.Errorf("splitWords = %q, %v", words, err)
	}
	if _, err := splitWords(`nlutest run "open`); err == nil {
		t.Error("an unclosed quote is an error")
	}
	src := "comment\n-- cmd --\nnlutest stats s\n-- s/a.hcl --\nx\n-- stdout --\nold\n"
	ar := parseTxtar([]byte(src))
	if string(ar.format()) != src {
		t.Errorf("round trip:\n%s", ar.format())
	}
	ar.setExpectations(map[string]string{secExit: "1\n", secStdout: "new\n", secStderr: ""})
	want := "comment\n-- cmd --\nnlutest stats s\n-- exit --\n1\n-- stdout --\nnew\n-- s/a.hcl --\nx\n"
	if string(ar.format()) != want {
		t.Errorf("after update:\n%s\nwant:\n%s", ar.format(), want)
	}
	in := "PASS  x (3.2s)\n   a    b\n  ──────\n   all   3  1.5  2.0\n\n   keep    spaces  31ms\n"
	wantN := "PASS  x (<dur>)\n   a  b\n  ───\n   all  3  <ms>  <ms>\n\n   keep    spaces  <dur>"
	if got := normalizeOutput(in, ""); strings.TrimSpace(got) != strings.TrimSpace(wantN) {
		t.Errorf("normalizeOutput:\n%q\nwant\n%q", got, wantN)
	}
}
