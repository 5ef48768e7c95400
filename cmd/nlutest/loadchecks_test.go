package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The mistakes validate reports from testdata/validate's threshold-type,
// rubric-scale and sensitive-inform suites stop run the same way: exit 2
// with the diagnostics at file:line:col, before any call, and no run
// directory or report left behind.
func TestLoadChecksStopRun(t *testing.T) {
	for name, want := range map[string][]string{
		"threshold-type":   {"threshold-type.nlutest.hcl:13:35", "threshold-type.nlutest.hcl:17:15", "threshold-type.nlutest.hcl:21:15"},
		"rubric-scale":     {"rubric-scale.nlutest.hcl:19:18", "rubric-scale.nlutest.hcl:24:18"},
		"sensitive-inform": {"sensitive-inform.nlutest.hcl:10:41"},
	} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "validate", name+".nlutest.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, name+".nlutest.hcl")
			if err := os.WriteFile(file, src, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			code, _, errs := runCLI(t, dir, map[string]string{"BANK_PIN": "73914628"}, "run", file, "--out", out, "--report-junit", filepath.Join(dir, "r.xml"))
			if code != ExitInvalid {
				t.Fatalf("run: exit %d, want %d\n%s", code, ExitInvalid, errs)
			}
			for _, at := range want {
				if !strings.Contains(errs, at) {
					t.Errorf("no diagnostic at %s in\n%s", at, errs)
				}
			}
			for _, f := range []string{out, filepath.Join(dir, "r.xml")} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("run left %s behind", f)
				}
			}
		})
	}
}
