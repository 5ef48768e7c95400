package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitThenRun: `nlutest init` in an empty directory, for every engine,
// writes a suite that is formatted, validates, and runs against the demo
// NLU with exit 0; init refuses a directory that already holds a suite and
// an unknown engine.
func TestInitThenRun(t *testing.T) {
	for _, engine := range []string{"demo", "rasa", "http", "openai"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			if code, out, errs := runCLI(t, dir, nil, "init", "--engine", engine); code != ExitPass {
				t.Fatalf("init: exit %d\n%s%s", code, out, errs)
			}
			name := filepath.Base(dir)
			raw, err := os.ReadFile(filepath.Join(dir, name+".nlutest.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			if engine != "demo" && !strings.Contains(string(raw), "target \"") {
				t.Errorf("no %s target scaffolded", engine)
			}
			for _, args := range [][]string{{"fmt", "--check", dir}, {"validate", dir}, {"run", dir, "--out", filepath.Join(dir, "run"), "--quiet"}} {
				if code, out, errs := runCLI(t, dir, nil, args...); code != ExitPass {
					t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
				}
			}
			if code, _, errs := runCLI(t, dir, nil, "init", dir); code != ExitInvalid || !strings.Contains(errs, "already holds a suite") {
				t.Errorf("init over a suite: exit %d, %s", code, errs)
			}
		})
	}
	if code, _, _ := runCLI(t, t.TempDir(), nil, "init", "--engine", "dialogflow"); code != ExitInvalid {
		t.Errorf("unknown engine: exit %d, want 2", code)
	}
}
