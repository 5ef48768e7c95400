package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileNamesSuite has targets whose names are paths: "..", ".", "a/b"
// and "a-b", "OK" and "ok", a Chinese one and a very long one, all the
// embedded demo NLU; two cases.
func hostileNamesSuite(t *testing.T) string {
	long := strings.Repeat("很长的目标名", 30)
	var b strings.Builder
	b.WriteString("suite \"名字\" {\n  schema = \"rasa\"\n}\n")
	for _, n := range []string{"..", ".", "a/b", "a-b", "OK", "ok", "生产", long, `..\\..\\x`} {
		b.WriteString("target \"" + n + "\" {\n  demo {}\n}\n")
	}
	b.WriteString(`materials "城市" { values = ["北京", "上海"] }
template "订票" {
  text   = "订一张去{城市}的机票"
  expect = { "$.intent.name" = "book_flight" }
}
`)
	return writeSuite(t, b.String())
}

// names lists a directory.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestTargetNamedDotDotStaysInOut (issue 35, N2): `--target ..` with
// --out par/child wrote results.jsonl, run.json, .lock and report.json
// into par/, over the user's report.json there; `--target .` put a run in
// DIR itself beside comparison.json. Each target's run now goes into a
// directory of its own under DIR, and par/ is left as it was.
func TestTargetNamedDotDotStaysInOut(t *testing.T) {
	suite := hostileNamesSuite(t)
	work := t.TempDir()
	par := filepath.Join(work, "par")
	if err := os.MkdirAll(par, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := []byte(`{"mine":"a report I keep here"}`)
	if err := os.WriteFile(filepath.Join(par, "report.json"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, work, nil, "run", suite, "--target", "..", "--target", "ok", "--out", filepath.Join(par, "child"), "--quiet")
	if code != ExitPass {
		t.Fatalf("run --target .. --target ok: exit %d\n%s", code, errs)
	}
	if got := names(t, par); !slices.Equal(got, []string{"child", "report.json"}) {
		t.Errorf("par/ holds %v, want [child report.json]", got)
	}
	if b, _ := os.ReadFile(filepath.Join(par, "report.json")); string(b) != string(mine) {
		t.Errorf("par/report.json was replaced: %.60s", b)
	}
	child := filepath.Join(par, "child")
	for _, f := range []string{"_.._/run.json", "_.._/results.jsonl", "_.._/report.json", "ok/report.json", "comparison.json"} {
		if _, err := os.Stat(filepath.Join(child, f)); err != nil {
			t.Errorf("child/%s: %v", f, err)
		}
	}

	// "." gets a directory of its own too, not DIR.
	dot := filepath.Join(work, "dot")
	if code, _, errs := runCLI(t, work, nil, "run", suite, "--target", ".", "--target", `..\..\x`, "--out", dot, "--quiet"); code != ExitPass {
		t.Fatalf("run --target .: exit %d\n%s", code, errs)
	}
	for _, f := range []string{"_._/results.jsonl", "_..-..-x/results.jsonl", "comparison.json"} {
		if _, err := os.Stat(filepath.Join(dot, f)); err != nil {
			t.Errorf("dot/%s: %v", f, err)
		}
	}
	for _, f := range []string{"results.jsonl", "run.json", "report.json"} {
		if _, err := os.Stat(filepath.Join(dot, f)); err == nil {
			t.Errorf("dot/%s exists: a target's run shares DIR with the comparison", f)
		}
	}
	if got := names(t, work); !slices.Equal(got, []string{"dot", "par"}) {
		t.Errorf("the working directory holds %v", got)
	}
}

// TestTargetNamesSharingADirectoryRefused: names that become one
// directory on some file system ("a/b" and "a-b"; "OK" and "ok" on
// macOS's or Windows's) are refused before anything runs; a Chinese and
// a very long name run into directories of their own.
func TestTargetNamesSharingADirectoryRefused(t *testing.T) {
	suite := hostileNamesSuite(t)
	for _, pair := range [][3]string{{"a/b", "a-b", "both become the directory name a-b"}, {"OK", "ok", "their directories OK and ok are one on a file system that ignores case"}} {
		out := filepath.Join(t.TempDir(), "r")
		code, _, errs := runCLI(t, t.TempDir(), nil, "run", suite, "--target", pair[0], "--target", pair[1], "--out", out)
		if code != ExitInvalid || !strings.Contains(errs, "would share one run directory") || !strings.Contains(errs, pair[2]) {
			t.Errorf("%s and %s: exit %d\n%s", pair[0], pair[1], code, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s and %s: %s was made", pair[0], pair[1], out)
		}
	}
	long := strings.Repeat("很长的目标名", 30)
	out := filepath.Join(t.TempDir(), "r")
	if code, _, errs := runCLI(t, t.TempDir(), nil, "run", suite, "--target", "生产", "--target", long, "--out", out, "--quiet"); code != ExitPass {
		t.Fatalf("Chinese and long names: exit %d\n%s", code, errs)
	}
	var dirs []string
	for _, n := range names(t, out) {
		if !strings.HasSuffix(n, ".json") {
			dirs = append(dirs, n)
		}
	}
	if len(dirs) != 2 || !slices.Contains(dirs, "生产") {
		t.Fatalf("DIR holds the run directories %v", dirs)
	}
	for _, n := range dirs {
		if len(n) > 96 || !strings.HasPrefix(n, "很长的目标名") && n != "生产" {
			t.Errorf("%s: %d bytes", n, len(n))
		}
	}
}
