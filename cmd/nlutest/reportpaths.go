package main

import (
	"os"
	"path/filepath"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/spec"
)

// reportPaths lists every report file the flags ask for, of every
// renderer.
func (rf *runFlags) reportPaths() []string {
	var out []string
	for _, f := range rf.reports {
		out = append(out, f.paths...)
	}
	return out
}

// checkReportPaths refuses, before anything runs or is evaluated, a report
// path that names a file of the run directory (results.jsonl, run.json,
// the lock: --report-json DIR/results.jsonl would overwrite the results),
// a directory, or a place that cannot be written.
func checkReportPaths(runDir string, paths []string) error {
	return checkOutputPaths("report", runDir, paths, runner.ResultsFile, pipeline.MetaFile, pipeline.LockFile)
}

// checkOutputPaths refuses an output path (what: "report", "sheet") that
// names one of the files own of the run directory, a directory, or a place
// that cannot be written.
func checkOutputPaths(what, runDir string, paths []string, own ...string) error {
	owned := map[string]bool{}
	for _, f := range own {
		owned[absOr(filepath.Join(runDir, f))] = true
	}
	for _, p := range paths {
		if owned[absOr(p)] {
			return usagef("%s path %s is a file of the run directory %s; write it elsewhere", what, p, runDir)
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return usagef("%s path %s is a directory; give a file name", what, p)
		}
		if err := writableDir(filepath.Dir(p)); err != nil {
			return usagef("%s path %s cannot be written: %s", what, p, spec.FileError(err))
		}
	}
	return nil
}

// writableDir checks that a file can be created in dir, or in its nearest
// existing ancestor when dir does not exist yet (reports create their
// directories).
func writableDir(dir string) error {
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return &os.PathError{Op: "mkdir", Path: dir, Err: os.ErrExist}
			}
			f, err := os.CreateTemp(dir, ".nlutest-check-*")
			if err != nil {
				return err
			}
			f.Close()
			return os.Remove(f.Name())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return err
		}
		dir = parent
	}
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
