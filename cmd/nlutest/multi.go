package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// ComparisonFile is the comparison of a run against several targets, in
// its run directory beside one run directory per target.
const ComparisonFile = pipeline.ComparisonFile

// runTargets runs the suite against several targets, one after the other,
// each into a run directory of its own (DIR/TARGET, an ordinary run that
// resume, eval and merge read as any other), then compares their reports
// side by side. It exits 1 when any target's verdict fails.
func (a *App) runTargets(ctx context.Context, s *spec.Suite, suitePath string, names []string, sel pipeline.Selection, rf *runFlags, baseline *schema.Report) int {
	if rf.resume != "" || rf.onlyFailed != "" || baseline != nil {
		return a.fail(usagef("--resume, --only-failed and --baseline name one target's run: give one --target and that target's directory (DIR/TARGET) when comparing several targets"))
	}
	targets, err := pickTargets(s, names)
	if err != nil {
		return a.fail(err)
	}
	if err := pipeline.CheckBotFirst(s, targets, sel); a.refused(err, s, rf) {
		return ExitInvalid // before the first target's first call
	}
	dir := rf.out
	if dir == "" {
		dir = pipeline.DefaultDir(a.Getwd, s.Name, a.now())
	}
	if _, err := os.Stat(filepath.Join(dir, ComparisonFile)); err == nil {
		return a.fail(usagef("%s already holds a run against several targets; give another --out", dir))
	}
	if err := checkOutputPaths("report", dir, rf.reportPaths(), ComparisonFile); err != nil {
		return a.fail(err)
	}
	var runs []pipeline.TargetRun
	for i, t := range targets {
		one := *rf
		if one.out, err = pipeline.TargetDir(dir, t.Name); err != nil {
			return a.fail(err)
		}
		one.target, one.reports = t.Name, nil
		fmt.Fprintf(a.Stderr, "nlutest: target %s (%d of %d) → %s\n", t.Name, i+1, len(targets), one.out)
		code := a.runOne(ctx, s, suitePath, t, sel, &one, func(d string, rep *schema.Report) int {
			runs = append(runs, pipeline.TargetRun{Name: t.Name, Dir: d, Report: rep})
			return a.writeFile("json", filepath.Join(d, pipeline.ReportFile), false, func(w io.Writer) error { return reporters.JSON(w, rep) })
		})
		if code != ExitPass {
			return code
		}
	}
	return a.writeComparison(pipeline.Compare(dir, runs), runs, rf, dir)
}

// pickTargets finds the target blocks names, each once and each with a
// run directory name of its own: two names whose directories a file
// system could take for one (pipeline.PathKey: "a/b" and "a-b", "A" and
// "a") are refused.
func pickTargets(s *spec.Suite, names []string) ([]*spec.Target, error) {
	var out []*spec.Target
	dirs := map[string]string{}
	for _, n := range names {
		t, err := pickTarget(s, n, "README: Targets")
		if err != nil {
			return nil, err
		}
		d := pipeline.PathName(n)
		if prev, ok := dirs[pipeline.PathKey(d)]; ok {
			if prev == n {
				return nil, usagef("--target %s is given twice; name each target once", n)
			}
			return nil, usagef("--target %q and --target %q would share one run directory (%s and %s are one name on a file system that ignores case, as macOS's and Windows's do, or once made file names); compare them in two runs, or rename one of the targets", prev, n, pipeline.PathName(prev), d)
		}
		dirs[pipeline.PathKey(d)] = n
		out = append(out, t)
	}
	return out, nil
}

// writeFile writes one report file, saying so on failure; appendTo adds
// to the file instead (the job summary).
func (a *App) writeFile(kind, path string, appendTo bool, render func(io.Writer) error) int {
	write := reporters.WriteFile
	if appendTo {
		write = reporters.AppendFile
	}
	if err := write(path, render); err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: cannot write %s report %s: %s\n", kind, path, err)
		return ExitCannotRun
	}
	return ExitPass
}

// writeComparison writes comparison.json and every --report-NAME file in
// its comparison form, then the comparison on the console. It returns 1
// when any target's verdict fails, 3 when a file could not be written.
func (a *App) writeComparison(c *schema.Comparison, runs []pipeline.TargetRun, rf *runFlags, dir string) int {
	opts := reporters.Options{Color: a.useColor(rf.color, a.StdoutTTY), JUnitCases: rf.junitCases, MaxFailures: rf.maxFailures}
	fopts := opts
	fopts.Color = false
	reps := make([]*schema.Report, len(runs))
	for i := range runs {
		reps[i] = runs[i].Report
	}
	code := a.writeFile("json", filepath.Join(dir, ComparisonFile), false, func(w io.Writer) error { return reporters.ComparisonJSON(w, c) })
	written := []string{"comparison → " + filepath.Join(dir, ComparisonFile)}
	summary := a.getenv("GITHUB_STEP_SUMMARY")
	for _, f := range rf.reports {
		for _, p := range f.paths {
			if f.r.Compare == nil {
				fmt.Fprintf(a.Stderr, "nlutest: the %s format has no comparison of several targets; %s not written (each target's report.json is in %s)\n", f.r.Name, p, dir)
				continue
			}
			appendTo := f.r.Summary && summary != "" && filepath.Clean(p) == filepath.Clean(summary)
			if a.writeFile(f.r.Name, p, appendTo, func(w io.Writer) error { f.r.Expand(reps...); return f.r.Compare(w, c, reps, fopts) }) != ExitPass {
				code = ExitCannotRun
				continue
			}
			written = append(written, f.r.Name+" → "+p)
		}
	}
	fmt.Fprintf(a.Stderr, "Reports: %s\n", strings.Join(written, " · "))
	v := reporters.ComparisonView(c, opts)
	if rf.quiet {
		v.Sections = nil
	}
	if err := reporters.ConsoleView(a.Stdout, v, opts); err != nil && !closedPipe(err) {
		fmt.Fprintf(a.Stderr, "nlutest: console report: %s\n", err)
	}
	if code != ExitPass {
		return code
	}
	if c.Outcome != schema.Pass {
		return ExitFail
	}
	return ExitPass
}
