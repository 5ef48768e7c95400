package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
)

// A record that does not decode stops eval with its file and line, exit 2,
// and leaves the run directory's report alone.
func TestEvalReportsTheLineOfABadRecord(t *testing.T) {
	dir := t.TempDir()
	_, path, err := writeEvalBench(dir, 2000, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// Line 1500 (in the third batch): a record cut short inside its slots.
	lines[1499] = append(bytes.TrimRight(lines[1499][:len(lines[1499])/3], "\n"), '\n')
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Dir(path)
	code, _, errs := runCLI(t, dir, nil, "eval", runDir)
	if code != ExitInvalid {
		t.Fatalf("eval exit %d, want %d\n%s", code, ExitInvalid, errs)
	}
	if want := runner.ResultsFile + ":1500: not a result record"; !strings.Contains(errs, want) {
		t.Errorf("stderr should name the line (%q):\n%s", want, errs)
	}
	if _, err := os.Stat(filepath.Join(runDir, "report.json")); !os.IsNotExist(err) {
		t.Errorf("no report.json should be written after a bad record (stat: %v)", err)
	}
}
