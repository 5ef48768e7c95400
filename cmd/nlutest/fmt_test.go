package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const messySuite = `# 未格式化的套件
suite "乱" {
description="对齐"   # 注释保留
  schema =    "rasa"
}
materials "城市" {
        values = [ "北京","上海" ]
}
template "订机票" {
  text = "订一张去{城市}的机票"
  expect = {
    "$.intent.name" = "book_flight"
    "$.entities[?(@.entity == 'city')].value"  =  ["{城市}"]
  }
}
`

func readAll(t *testing.T, files ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}

func TestFmtCheckAndWrite(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "a", "messy.nlutest.hcl")
	tidy := filepath.Join(dir, "b", "tidy.nlutest.hcl")
	hidden := filepath.Join(dir, ".cache", "x.nlutest.hcl")
	testdata := filepath.Join(dir, "a", "testdata", "y.nlutest.hcl")
	other := filepath.Join(dir, "a", "notes.hcl")
	for _, f := range []string{messy, tidy, hidden, testdata, other} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		body := messySuite
		if f == tidy {
			body = "suite \"整齐\" {\n  schema = \"rasa\"\n}\n"
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := readAll(t, messy, tidy, hidden, testdata, other)

	code, out, errs := runCLI(t, dir, nil, "fmt", "--check", dir)
	if code != ExitFail || out != messy+"\n" || !strings.Contains(errs, "1 of 2 suite files not formatted") {
		t.Fatalf("fmt --check: exit %d, stdout %q\n%s", code, out, errs)
	}
	if after := readAll(t, messy, tidy, hidden, testdata, other); !equalMaps(after, before) {
		t.Fatal("fmt --check wrote a file")
	}

	code, out, errs = runCLI(t, dir, nil, "fmt", dir)
	if code != ExitPass || out != messy+"\n" {
		t.Fatalf("fmt: exit %d, stdout %q\n%s", code, out, errs)
	}
	after := readAll(t, messy, tidy, hidden, testdata, other)
	if after[messy] == before[messy] {
		t.Error("fmt did not rewrite the messy file")
	}
	for _, f := range []string{tidy, hidden, testdata, other} {
		if after[f] != before[f] {
			t.Errorf("fmt touched %s", f)
		}
	}
	for _, want := range []string{`  description = "对齐" # 注释保留`, `  schema      = "rasa"`, `    "$.intent.name"                           = "book_flight"`} {
		if !strings.Contains(after[messy], want+"\n") {
			t.Errorf("formatted file lacks %q:\n%s", want, after[messy])
		}
	}

	// Once formatted, fmt changes nothing and --check passes.
	code, out, _ = runCLI(t, dir, nil, "fmt", dir)
	if again := readAll(t, messy)[messy]; code != ExitPass || out != "" || again != after[messy] {
		t.Errorf("second fmt: exit %d, stdout %q", code, out)
	}
	if code, out, errs := runCLI(t, dir, nil, "fmt", "--check", dir); code != ExitPass || out != "" {
		t.Errorf("fmt --check after fmt: exit %d\n%s%s", code, out, errs)
	}
	// A file given by name is formatted whatever its name.
	if code, out, _ := runCLI(t, dir, nil, "fmt", other); code != ExitPass || out != other+"\n" {
		t.Errorf("fmt FILE: exit %d, stdout %q", code, out)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestFmtBrokenFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.nlutest.hcl")
	good := filepath.Join(dir, "good.nlutest.hcl")
	badSrc := "suite \"坏\" {\n  description = \"没有闭合的引号\n}\n"
	if err := os.WriteFile(bad, []byte(badSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte(messySuite), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{true, false} {
		args := []string{"fmt", dir}
		if check {
			args = []string{"fmt", "--check", dir}
		}
		code, _, errs := runCLI(t, dir, nil, args...)
		if code != ExitInvalid || !strings.Contains(errs, bad+":2:") || !strings.Contains(errs, "could not be parsed and were left untouched") {
			t.Errorf("%v: exit %d, want 2 with %s:2:COL\n%s", args, code, bad, errs)
		}
		if b, _ := os.ReadFile(bad); string(b) != badSrc {
			t.Error("the broken file was changed")
		}
	}
	if b, _ := os.ReadFile(good); string(b) == messySuite {
		t.Error("the good file beside the broken one was not formatted")
	}
}

// TestFmtExampleSuites: fmt twice is fmt once, byte for byte, on every
// example suite; and the repository's suites are formatted (CI runs
// nlutest fmt --check suites/ too).
func TestFmtExampleSuites(t *testing.T) {
	root := filepath.Join("..", "..", "suites")
	if code, out, errs := runCLI(t, ".", nil, "fmt", "--check", root); code != ExitPass {
		t.Errorf("suites/ is not formatted (run go run ./cmd/nlutest fmt suites/): exit %d\n%s%s", code, out, errs)
	}
	dir := t.TempDir()
	copyTree(t, root, dir)
	files, err := fmtFiles(dir)
	if err != nil || len(files) < 2 {
		t.Fatalf("suites: %v %v", files, err)
	}
	if code, _, errs := runCLI(t, dir, nil, "fmt", dir); code != ExitPass {
		t.Fatalf("fmt: exit %d\n%s", code, errs)
	}
	once := readAll(t, files...)
	code, out, errs := runCLI(t, dir, nil, "fmt", dir)
	if code != ExitPass || out != "" {
		t.Errorf("second fmt: exit %d, changed %q\n%s", code, out, errs)
	}
	if twice := readAll(t, files...); !equalMaps(once, twice) {
		t.Error("fmt twice differs from fmt once")
	}
	if code, out, errs := runCLI(t, dir, nil, "validate", filepath.Join(dir, "iao-hotel")); code != ExitPass {
		t.Errorf("formatted iao-hotel does not validate: %d\n%s%s", code, out, errs)
	}
}

func TestFmtUsage(t *testing.T) {
	for _, args := range [][]string{{"fmt"}, {"fmt", filepath.Join(t.TempDir(), "nope")}, {"fmt", "--color", "sometimes", "."}, {"fmt", t.TempDir()}} {
		if code, _, errs := runCLI(t, ".", nil, args...); code != ExitInvalid {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}
}
