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
// testfamily_test.go, tsv_importer_test.go, and csvRenderer below) and one
// line here. Only the tests that run with this set see them.
func testExtensions() *extensions.Set {
	x := extensions.Default()
	x.Sources = append(x.Sources, fixtureKind{})
	x.Targets = append(x.Targets, echoKind{})
	x.Families = append(x.Families, charsFamily{})
	x.Renderers = append(x.Renderers, csvRenderer)
	x.Importers = append(x.Importers, tsvFormat{})
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
// give a source kind, target kind, family, renderer and importer that
// every command knows: validate checks their names, run calls the echo
// target (its confidence read with the decoders' Number) for the
// fixture's cases, the chars family is in every report and in
// --list-metrics, --report-csv exists on run, eval and merge and writes the
// cases, the guard that keeps reports off the run's own files covers the
// new flag too, and import tsv writes a suite that runs (TestTSVImporter).
// The default set knows none of them.
func TestExtensionRecipes(t *testing.T) {
	x := testExtensions()
	dir := writeSuite(t, `suite "扩展" {}
variable "置信度" { default = 0.8 }
target "回声" {
  echo {
    intent     = "greet"
    confidence = var.置信度
  }
}
fixture "问候" {
  utterances = ["你好", "早上好，今天天气真不错呀"]
  expect     = { "$.intent.name" = "greet", "$.intent.confidence" = 0.8 }
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

// The importer recipe, followed in tsv_importer_test.go: `import tsv`
// exists with the test set only (usage lines, -h, the messages that list
// the formats), writes a suite that validates and runs against the echo
// target, and a line it cannot translate is a located diagnostic, exit 2
// and nothing written — or, with --partial, an UNTRANSLATED comment.
func TestTSVImporter(t *testing.T) {
	x := testExtensions()
	dir := t.TempDir()
	list := filepath.Join(dir, "意图.tsv")
	if err := os.WriteFile(list, []byte("你好\tgreet\n# 注释\n早上好\tgreet\n\n再见\tbye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "imported")
	code, stdout, errs := runCLIWith(t, x, dir, nil, "import", "tsv", list, "-o", out)
	if code != ExitPass || !strings.Contains(stdout, "0 conversations, 3 templates, 3 turns") {
		t.Fatalf("import tsv: exit %d\n%s%s", code, stdout, errs)
	}
	suite := filepath.Join(out, "意图.nlutest.hcl")
	if code, _, errs := runCLIWith(t, x, dir, nil, "validate", out); code != ExitPass {
		t.Fatalf("the imported suite does not validate: %s", errs)
	}
	run := filepath.Join(dir, "run")
	code, stdout, errs = runCLIWith(t, x, dir, nil, "run", out, "--out", run, "--report-csv", filepath.Join(dir, "cases.csv"))
	if code != ExitFail || !strings.Contains(stdout, "2 passed") || !strings.Contains(stdout, "1 failed") {
		t.Errorf("run of the imported suite (再见 expects bye, the echo says greet): exit %d\n%s%s", code, stdout, errs)
	}
	rows, err := csv.NewReader(mustOpen(t, filepath.Join(dir, "cases.csv"))).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Errorf("the csv report of the imported run: %v %q", err, rows)
	}

	// A line that is not one: refused at its place, nothing written.
	if err := os.WriteFile(list, []byte("你好\tgreet\n坏行\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	code, _, errs = runCLIWith(t, x, dir, nil, "import", "tsv", list, "-o", bad, "--color", "never")
	if code != ExitInvalid || !strings.Contains(errs, "Error: Not an utterance and an intent") || !strings.Contains(errs, "on 意图.tsv:2:1:") || !strings.Contains(errs, "--partial") {
		t.Errorf("a bad line: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote %s (%v)", bad, err)
	}
	code, _, errs = runCLIWith(t, x, dir, nil, "import", "tsv", list, "-o", bad, "--partial")
	if b, _ := os.ReadFile(filepath.Join(bad, "意图.nlutest.hcl")); code != ExitPass ||
		!strings.Contains(string(b), `# UNTRANSLATED 意图.tsv:2 坏行 (the line is not "utterance<TAB>intent")`) {
		t.Errorf("--partial: exit %d\n%s\n%s", code, errs, b)
	}

	// Usage: the format is listed where the formats are, with the test
	// set only; its arguments are checked.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, ExitPass, "  nlutest import tsv FILE -o SUITE_DIR"},
		{[]string{"import", "-h"}, ExitPass, "nlutest import tsv FILE -o SUITE_DIR [--partial]"},
		{[]string{"import", "dialogflow", list, "-o", "x"}, ExitInvalid, `import reads botium, rasa-e2e or tsv, not "dialogflow"`},
		{[]string{"import", "tsv", list, list, "-o", "x"}, ExitInvalid, "import tsv takes one file, got 2 paths"},
		{[]string{"import", "tsv", list, "-o", "x", "--domain", "d.yml"}, ExitInvalid, "--domain is for import rasa-e2e; import tsv reads no bot model"},
	} {
		code, stdout, errs := runCLIWith(t, x, dir, nil, c.args...)
		if code != c.code || !strings.Contains(stdout+errs, c.want) {
			t.Errorf("%q: exit %d, want %d and %q\n%s%s", c.args, code, c.code, c.want, stdout, errs)
		}
		if _, plain, perrs := runCLI(t, dir, nil, c.args...); strings.Contains(plain+perrs, "tsv FILE") {
			t.Errorf("%q: the default set knows the tsv format:\n%s%s", c.args, plain, perrs)
		}
	}
	if b, _ := os.ReadFile(suite); !strings.Contains(string(b), "# from 意图.tsv:5") {
		t.Errorf("the imported suite does not name each test's line:\n%s", b)
	}
}
