package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// testExtensions is nlutest's default set plus one of each extension point,
// added the way docs/architecture.md's recipes say a contributor adds
// them: a file each (fixture_source_test.go, echo_target_test.go,
// testfamily_test.go, and csvRenderer below) and one line here. Only the
// tests that run with this set see them.
func testExtensions() *extensions.Set {
	x := extensions.Default()
	x.Sources = append(x.Sources, fixtureKind{})
	x.Targets = append(x.Targets, echoKind{})
	x.Families = append(x.Families, charsFamily{})
	x.Renderers = append(x.Renderers, csvRenderer)
	return x
}

// csvRenderer is a test-only report format: one row per listed case (id,
// outcome, text).
var csvRenderer = reporters.Renderer{
	Name: "csv",
	Help: "write the listed cases as CSV to FILE (repeatable; test-only)",
	Write: func(w io.Writer, rep *schema.Report, _ reporters.Options) error {
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"id", "outcome", "text"})
		for _, c := range rep.Cases {
			_ = cw.Write([]string{c.ID, c.Outcome.String(), c.Text})
		}
		cw.Flush()
		return cw.Error()
	},
}

// The recipes of docs/architecture.md, followed in the test files above,
// give a source kind, target kind, family and renderer that every command
// knows: validate checks their names, run calls the echo target for the
// fixture's cases, the chars family is in every report and in
// --list-metrics, --report-csv exists on run, eval and merge and writes the
// cases, and the guard that keeps reports off the run's own files covers
// the new flag too. The default set knows none of them.
func TestExtensionRecipes(t *testing.T) {
	x := testExtensions()
	dir := writeSuite(t, `suite "扩展" {}
target "回声" {
  echo {
    intent = "greet"
  }
}
fixture "问候" {
  utterances = ["你好", "早上好，今天天气真不错呀"]
  expect     = { "$.intent.name" = "greet" }
}
threshold "输入" { condition = metrics.chars.cases == 2 && metrics.fixture["问候"].accuracy >= 1 }
`)
	if code, _, errs := runCLIWith(t, x, dir, nil, "validate", dir); code != ExitPass {
		t.Fatalf("validate with the test set: exit %d\n%s", code, errs)
	}
	if code, _, errs := runCLI(t, dir, nil, "validate", dir); code != ExitInvalid ||
		!strings.Contains(errs, `Unsupported block type`) || !strings.Contains(errs, `"fixture"`) {
		t.Errorf("the default set must not know the test's fixture block: exit %d\n%s", code, errs)
	}
	run, csvOut, md := filepath.Join(dir, "run"), filepath.Join(dir, "cases.csv"), filepath.Join(dir, "r.md")
	code, out, errs := runCLIWith(t, x, dir, nil, "run", dir, "--out", run, "--report-csv", csvOut, "--report-markdown", md)
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	rows, err := csv.NewReader(mustOpen(t, csvOut)).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "id" || rows[1][1] != "pass" {
		t.Errorf("the csv report: %v %q", err, rows)
	}
	if !strings.Contains(errs, "csv → "+csvOut) {
		t.Errorf("the reports line does not name the csv report:\n%s", errs)
	}
	if b, _ := os.ReadFile(md); !strings.Contains(out, "metrics.chars") || !strings.Contains(string(b), "metrics.chars") {
		t.Errorf("console or Markdown lacks the chars family:\n%s", out)
	}
	_, list, _ := runCLIWith(t, x, dir, nil, "eval", run, "--list-metrics")
	for _, want := range []string{"metrics.chars.cases = 2", "metrics.fixture.问候.accuracy = 1 (2/2)"} {
		if !strings.Contains(list, want) {
			t.Errorf("--list-metrics lacks %q:\n%s", want, list)
		}
	}
	// The guard: the new renderer's path may not be a file of the run.
	for _, cmd := range [][]string{
		{"eval", run, "--report-csv", filepath.Join(run, runner.ResultsFile)},
		{"run", dir, "--resume", run, "--report-csv", filepath.Join(run, runner.ResultsFile)},
		{"merge", "--out", filepath.Join(dir, "m"), run, "--partial", "--report-csv", filepath.Join(dir, "m", runner.ResultsFile)},
	} {
		before, _ := os.ReadFile(filepath.Join(run, runner.ResultsFile))
		code, _, errs := runCLIWith(t, x, dir, nil, cmd...)
		after, _ := os.ReadFile(filepath.Join(run, runner.ResultsFile))
		if code != ExitInvalid || !strings.Contains(errs, "is a file of the run directory") || string(before) != string(after) {
			t.Errorf("%s --report-csv onto results.jsonl: exit %d (want %d), results kept %v\n%s", cmd[0], code, ExitInvalid, string(before) == string(after), errs)
		}
	}
	// Every command that writes reports has the flag; the default set's do not.
	for _, cmd := range []string{"run", "eval", "merge"} {
		_, _, help := runCLIWith(t, x, dir, nil, cmd, "--help")
		_, _, plain := runCLI(t, dir, nil, cmd, "--help")
		if !strings.Contains(help, "-report-csv") || strings.Contains(plain, "-report-csv") {
			t.Errorf("%s --help: the test set's has --report-csv %v, the default's %v", cmd, strings.Contains(help, "-report-csv"), strings.Contains(plain, "-report-csv"))
		}
	}

}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A program whose extension set clashes (here the test set with a second
// csv renderer, as when nlutest ships a format of a name a program's own
// renderer has) is refused before any command reads anything: exit 3 and
// a message naming the clash and whose mistake it is. Before, run, eval
// and merge crashed into "internal error: run flag redefined:
// report-csv" and validate went on as if nothing were wrong.
func TestExtensionClashRefused(t *testing.T) {
	x := testExtensions()
	x.Renderers = append(x.Renderers, csvRenderer)
	dir := writeSuite(t, echoSuite)
	run := filepath.Join(dir, "run")
	for _, args := range [][]string{
		{"run", dir, "--out", run},
		{"validate", dir},
		{"eval", run},
		{"merge", "--out", filepath.Join(dir, "m"), run},
		{"generate", dir},
	} {
		code, out, errs := runCLIWith(t, x, dir, nil, args...)
		n := len(x.Renderers)
		want := fmt.Sprintf(`renderers %d and %d are both named "csv", so both would be --report-csv`, n-1, n)
		if code != ExitCannotRun || !strings.Contains(errs, "this program's extensions do not fit together, so nothing ran") ||
			!strings.Contains(errs, want) || !strings.Contains(errs, "not in the suite or the command line") ||
			strings.Contains(errs, "internal error") || out != "" {
			t.Errorf("%s: exit %d (want %d)\nstdout %q\nstderr %s", args[0], code, ExitCannotRun, out, errs)
		}
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("run wrote %s (%v)", run, err)
	}
	if code, out, _ := runCLIWith(t, x, dir, nil, "version"); code != ExitPass || !strings.HasPrefix(out, "nlutest ") {
		t.Errorf("version with a clashing set: exit %d %q", code, out)
	}
}
