package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
// side by side. DIR/targets.json records the targets first, so that
// `run --resume DIR` finishes every target (resuming those that began,
// running the others) and writes the comparison. It exits 1 when any
// target's verdict fails.
func (a *App) runTargets(ctx context.Context, s *spec.Suite, suitePath string, names []string, sel pipeline.Selection, rf *runFlags, baseline *schema.Report) int {
	if rf.onlyFailed != "" || baseline != nil {
		return a.fail(usagef("--only-failed and --baseline name one target's run: give one --target and that target's directory (DIR/TARGET) when comparing several targets"))
	}
	targets, err := pickTargets(s, names)
	if err != nil {
		return a.fail(err)
	}
	if err := pipeline.CheckBotFirst(s, targets, sel); a.refused(err, s, rf) {
		return ExitInvalid // before the first target's first call
	}
	dir, entries, code := a.targetsDir(s, suitePath, names, rf)
	if entries == nil {
		return code
	}
	var runs []pipeline.TargetRun
	for i, t := range targets {
		one := *rf
		one.target, one.reports, one.whole = t.Name, nil, dir
		tdir := filepath.Join(dir, entries[i].Dir)
		one.out, one.resume = tdir, ""
		if rf.resume != "" && fileExists(filepath.Join(tdir, pipeline.MetaFile)) {
			one.out, one.resume = "", tdir
		}
		fmt.Fprintf(a.Stderr, "nlutest: target %s (%d of %d) → %s\n", t.Name, i+1, len(targets), tdir)
		code := a.runOne(ctx, s, suitePath, t, sel, &one, func(d string, rep *schema.Report) int {
			runs = append(runs, pipeline.TargetRun{Name: t.Name, Dir: d, Report: rep})
			return a.reportRun(s, rep, &one.history, func() int {
				return a.writeFile("json", filepath.Join(d, pipeline.ReportFile), false, func(w io.Writer) error { return reporters.JSON(w, rep) })
			})
		})
		if code == ExitInterrupted || code == ExitCannotRun {
			a.comparisonUnfinished(dir, names[i+1:], rf)
		}
		if code == ExitInvalid && i == 0 && rf.resume == "" && !fileExists(filepath.Join(tdir, pipeline.MetaFile)) {
			// Refused before anything ran: nothing to resume.
			_ = os.Remove(filepath.Join(dir, pipeline.TargetsFile))
		}
		if code != ExitPass {
			return code
		}
	}
	return a.writeComparison(pipeline.Compare(s, dir, runs, a.pairOptions(rf)), runs, rf, dir)
}

// targetsDir is the directory of a run against several targets and the
// targets' directories in it: for a new run, a directory holding no
// run, where targets.json is written first; resumed, the one
// targets.json records (written now for a run made before it existed).
// On failure it says why and returns nil entries and the exit code.
func (a *App) targetsDir(s *spec.Suite, suitePath string, names []string, rf *runFlags) (string, []pipeline.TargetEntry, int) {
	dir := rf.out
	if rf.resume != "" {
		dir = rf.resume
	}
	if dir == "" {
		dir = pipeline.DefaultDir(a.Getwd, s.Name, a.now())
	}
	if rf.resume == "" {
		for _, f := range []string{ComparisonFile, pipeline.TargetsFile} {
			if fileExists(filepath.Join(dir, f)) {
				return "", nil, a.fail(usagef("%s already holds a run against several targets; give another --out, or finish it with --resume %s", dir, dir))
			}
		}
	}
	if err := checkOutputPaths("report", dir, rf.reportPaths(), ComparisonFile, pipeline.TargetsFile); err != nil {
		return "", nil, a.fail(err)
	}
	if pipeline.IsTargetsDir(dir) {
		rec, err := pipeline.ReadTargets(dir)
		if err != nil {
			return "", nil, a.fail(usagef("--resume: %v", err))
		}
		return dir, rec.Targets, ExitPass
	}
	entries, err := pipeline.TargetEntries(names)
	if err != nil {
		return "", nil, a.fail(err)
	}
	rec := pipeline.Targets{Tool: "nlutest", Version: version(), Suite: absOr(suitePath), SuiteName: s.Name, Targets: entries,
		Split: rf.split, Filter: rf.filter, Shard: rf.shard, Repeat: rf.repeat, Started: a.now().UTC()}
	if rec.Repeat <= 1 {
		rec.Repeat = 0
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, a.fail(fmt.Errorf("cannot create the run directory %s: %s", dir, spec.FileError(err)))
	}
	if err := pipeline.WriteTargets(dir, rec); err != nil {
		return "", nil, a.fail(fmt.Errorf("cannot record the targets: %w", err))
	}
	return dir, entries, ExitPass
}

// comparisonUnfinished, after a target's run ended early (interrupted, or
// unable to go on), says what of the comparison in dir is missing and
// the command that finishes every target and writes the comparison.
func (a *App) comparisonUnfinished(dir string, notRun []string, rf *runFlags) {
	note := ""
	if len(notRun) > 0 {
		note = fmt.Sprintf("; %s not run yet", strings.Join(notRun, ", "))
	}
	fmt.Fprintf(a.Stderr, "nlutest: the comparison in %s is not finished (no %s)%s\n%s", dir, ComparisonFile, note, rf.resumeHint(dir))
}

// resumeTargets, for run --resume DIR on the directory of a run against
// several targets, sets the targets and selection it records (given
// ones must be the same) and returns the suite path (pos, else the
// recorded one); multi is false for a directory of one run. A directory
// made before targets.json existed is one given several --target flags
// that holds no run.json: the suite and selection then come from a
// target's run.json.
func (rf *runFlags) resumeTargets(pos []string) (suite string, multi bool, err error) {
	dir := rf.resume
	var rec pipeline.Targets
	switch {
	case pipeline.IsTargetsDir(dir):
		if rec, err = pipeline.ReadTargets(dir); err != nil {
			return "", true, usagef("--resume: %v", err)
		}
		if len(rf.targets) > 0 && !sameNames(rf.targets, rec.Names()) {
			return "", true, usagef("--resume: %s compares the targets %s; resume it without --target, or with the same ones", dir, strings.Join(rec.Names(), ", "))
		}
		rf.targets = rec.Names()
	case len(rf.targets) > 1 && !fileExists(filepath.Join(dir, pipeline.MetaFile)):
		if rec, err = legacyTargets(dir, rf.targets); err != nil {
			return "", true, err
		}
	default:
		return "", false, nil
	}
	for _, f := range []struct {
		flag     *string
		recorded string
	}{{&rf.split, rec.Split}, {&rf.filter, rec.Filter}, {&rf.shard, rec.Shard}} {
		if *f.flag == "" {
			*f.flag = f.recorded
		}
	}
	if rf.repeat == 0 {
		rf.repeat = rec.Repeat
	}
	if len(pos) == 1 {
		return pos[0], true, nil
	}
	return rec.Suite, true, nil
}

// legacyTargets is what a run against several targets made before
// targets.json existed tells of itself: the suite and selection of the
// first of names whose run began.
func legacyTargets(dir string, names []string) (pipeline.Targets, error) {
	for _, n := range names {
		d, err := pipeline.TargetDir(dir, n)
		if err != nil {
			return pipeline.Targets{}, err
		}
		if m, err := pipeline.ReadMeta(d); err == nil {
			return pipeline.Targets{Suite: m.Suite, Split: m.Split, Filter: m.Filter, Shard: m.Shard, Repeat: m.Repeat}, nil
		}
	}
	return pipeline.Targets{}, usagef("--resume: %s holds no run of the targets %s (no %s, and no DIR/TARGET/%s)", dir, strings.Join(names, ", "), pipeline.TargetsFile, pipeline.MetaFile)
}

// sameNames reports whether a and b hold the same names, order aside.
func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// noteComparison, after `run --resume DIR/TARGET` of one target of a run
// against several targets, says what the comparison still lacks and how
// to finish it, or, when every target has finished, rewrites
// comparison.json from their reports: the target's verdict is not the
// comparison's.
func (a *App) noteComparison(s *spec.Suite, runDir string, rf *runFlags) {
	runDir = filepath.Clean(runDir)
	whole := filepath.Dir(runDir)
	if !pipeline.IsTargetsDir(whole) {
		return
	}
	rec, err := pipeline.ReadTargets(whole)
	if err != nil {
		return
	}
	name := ""
	for _, e := range rec.Targets {
		if e.Dir == filepath.Base(runDir) {
			name = e.Name
		}
	}
	if name == "" {
		return
	}
	if missing := rec.Missing(whole); missing != "" {
		fmt.Fprintf(a.Stderr, "nlutest: %s is target %s of the comparison in %s, which is not finished (%s): no %s, and the verdict above is %s's alone. Finish every target and the comparison with:\n%s",
			runDir, name, whole, missing, ComparisonFile, name, strings.Replace(rf.resumeHint(whole), "Continue with: ", "  ", 1))
		return
	}
	var runs []pipeline.TargetRun
	for _, e := range rec.Targets {
		d := filepath.Join(whole, e.Dir)
		rep, err := a.readReport(d)
		if err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: %s: %v\n", d, err)
			return
		}
		runs = append(runs, pipeline.TargetRun{Name: e.Name, Dir: d, Report: rep})
	}
	path := filepath.Join(whole, ComparisonFile)
	if a.writeFile("json", path, false, func(w io.Writer) error {
		return reporters.ComparisonJSON(w, pipeline.Compare(s, whole, runs, a.pairOptions(rf)))
	}) == ExitPass {
		fmt.Fprintf(a.Stderr, "nlutest: every target of the comparison in %s has finished: %s written (nlutest eval %s shows it)\n", whole, path, shellQuote(whole))
	}
}

// comparisonRecord reads what dir holds of a run against several
// targets: its targets.json, or, for one made before targets.json
// existed, the targets its comparison.json lists; ok is false for any
// other directory.
func comparisonRecord(dir string) (rec pipeline.Targets, ok bool, err error) {
	if pipeline.IsTargetsDir(dir) {
		rec, err = pipeline.ReadTargets(dir)
		return rec, true, err
	}
	if fileExists(filepath.Join(dir, pipeline.MetaFile)) || !fileExists(filepath.Join(dir, ComparisonFile)) {
		return rec, false, nil
	}
	names, err := pipeline.ComparisonTargets(filepath.Join(dir, ComparisonFile))
	if err != nil {
		return rec, true, err
	}
	if rec.Targets, err = pipeline.TargetEntries(names); err != nil {
		return rec, true, err
	}
	return rec, true, nil
}

// evalTargets re-evaluates every target's run of the run against several
// targets in dir with the suite as it is now (suitePath, else the one
// recorded), rewrites each report.json, and rebuilds the comparison and
// its reports. A target that has not finished is refused: the comparison
// would set a part of a run beside a whole one.
func (a *App) evalTargets(dir string, rec pipeline.Targets, suitePath string, rf *runFlags) int {
	if missing := rec.Missing(dir); missing != "" {
		return a.fail(usagef("the comparison in %s is not finished (%s); finish it with nlutest run --resume %s", dir, missing, shellQuote(dir)))
	}
	return a.compareTargets(dir, rec, suitePath, rf)
}

// compareTargets is evalTargets once every target's run is known to be
// whole (by evalTargets' check, or made so by mergeTargets).
func (a *App) compareTargets(dir string, rec pipeline.Targets, suitePath string, rf *runFlags) int {
	if err := checkOutputPaths("report", dir, rf.reportPaths(), ComparisonFile, pipeline.TargetsFile); err != nil {
		return a.fail(err)
	}
	metas := make([]pipeline.Meta, len(rec.Targets))
	for i, e := range rec.Targets {
		var err error
		if metas[i], err = pipeline.ReadMeta(filepath.Join(dir, e.Dir)); err != nil {
			return a.fail(usagef("%v", err))
		}
	}
	if suitePath == "" {
		suitePath = cmp.Or(rec.Suite, metas[0].Suite)
	}
	s, code := a.load(suitePath, &rf.loadFlags)
	if s == nil {
		return code
	}
	var runs []pipeline.TargetRun
	for i, e := range rec.Targets {
		d := filepath.Join(dir, e.Dir)
		_, rep, code := a.evaluateRuns(s, []string{d}, metas[i], rf)
		if rep == nil {
			return code
		}
		code = a.reportRun(s, rep, &rf.history, func() int {
			return a.writeFile("json", filepath.Join(d, pipeline.ReportFile), false, func(w io.Writer) error { return reporters.JSON(w, rep) })
		})
		if code != ExitPass {
			return code
		}
		runs = append(runs, pipeline.TargetRun{Name: e.Name, Dir: d, Report: rep})
	}
	return a.writeComparison(pipeline.Compare(s, dir, runs, a.pairOptions(rf)), runs, rf, dir)
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
			why := fmt.Sprintf("both become the directory name %s", d)
			if pd := pipeline.PathName(prev); pd != d {
				why = fmt.Sprintf("their directories %s and %s are one on a file system that ignores case, as macOS's and Windows's do", pd, d)
			}
			return nil, usagef("--target %q and --target %q would share one run directory (%s); compare them in two runs, or rename one of the targets", prev, n, why)
		}
		dirs[pipeline.PathKey(d)] = n
		out = append(out, t)
	}
	return out, nil
}

// pairOptions are how a comparison of runs pairs them: the families
// of the suite, and whether unreviewed cases count (--include-unreviewed).
func (a *App) pairOptions(rf *runFlags) pipeline.PairOptions {
	return pipeline.PairOptions{Families: a.ext().Families, IncludeUnreviewed: rf.unreviewed}
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

// mergeOpts are merge's settings that mergeTargets passes on.
type mergeOpts struct {
	suitePath string
	partial   bool
	pipeline.MergeOptions
}

// mergeTargets merges shards of a run against several targets
// (`run --target a --target b --shard K/N`, each shard a directory with
// targets.json) into one such run: each target's shards are merged as
// `merge` merges one target's (the same checks: every shard, one suite,
// the variable values), into out/TARGET beside a targets.json, then the
// comparison is built as `eval out` builds it. Shards must name the same
// targets in the same order. The runs are merged into a temporary
// directory beside out and renamed into place at the end, so a refused
// target leaves nothing behind.
func (a *App) mergeTargets(out string, shards []string, o mergeOpts, rf *runFlags) int {
	var rec pipeline.Targets
	for i, d := range shards {
		r, err := pipeline.ReadTargets(d)
		if err != nil {
			return a.fail(usagef("%s and %s are not shards of one run: %v", shards[0], d, err))
		}
		if i == 0 {
			rec = r
		} else if !slices.Equal(r.Names(), rec.Names()) {
			return a.fail(usagef("%s was run against the targets %s, %s against %s; only shards of one run merge", d, strings.Join(r.Names(), ", "), shards[0], strings.Join(rec.Names(), ", ")))
		}
	}
	if fileExists(out) {
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			return a.fail(usagef("%s is not empty; choose a new --out directory", out))
		}
	}
	s, code := a.load(cmp.Or(o.suitePath, rec.Suite), &rf.loadFlags)
	if s == nil {
		return code
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), "."+filepath.Base(out)+".merging-*")
	if err != nil {
		return a.fail(err)
	}
	defer os.RemoveAll(tmp)
	n := 0
	for _, e := range rec.Targets {
		dirs := make([]string, len(shards))
		for i, d := range shards {
			dirs[i] = filepath.Join(d, e.Dir)
		}
		metas, err := pipeline.ReadShards(dirs, o.partial)
		if err != nil {
			return a.fail(err)
		}
		_, k, err := pipeline.Merge(s, filepath.Join(tmp, e.Dir), dirs, metas, o.MergeOptions)
		if a.dataDiagnostics(err, s, &rf.loadFlags) {
			return ExitInvalid
		}
		if err != nil {
			return a.fail(err)
		}
		n += k
	}
	rec.Shard = ""
	if err := pipeline.WriteTargets(tmp, rec); err != nil {
		return a.fail(err)
	}
	_ = os.Remove(out) // an empty directory made beforehand
	if err := os.Rename(tmp, out); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.Stderr, "nlutest: merged %d results of %d targets from %d runs into %s\n", n, len(rec.Targets), len(shards), out)
	return a.compareTargets(out, rec, o.suitePath, rf)
}
