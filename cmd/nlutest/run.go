package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// runFlags are the flags of `nlutest run`.
type runFlags struct {
	loadFlags
	target      string
	targets     listFlag // --target, repeatable
	split       string
	out         string
	reports     []reportFlag // --report-NAME FILE, one per renderer
	concurrency int
	rate        float64
	filter      string
	quiet       bool
	junitCases  bool
	maxFailures int
	resume      string
	shard       string
	baseline    string
	unreviewed  bool
	cache       bool
	repeat      int
	onlyFailed  string
	allowVars   bool
	history     historyFlags
	// whole is the directory of the run against several targets this
	// target's run belongs to: the hint after an interrupt names it.
	whole string
}

// reportFlag is one renderer's --report-NAME and the files it names.
type reportFlag struct {
	r     reporters.Renderer
	paths listFlag
}

// register registers run's flags: the report flags (registerReports),
// then the run's own.
func (rf *runFlags) register(fs *flag.FlagSet, renderers []reporters.Renderer) {
	rf.registerReports(fs, renderers)
	fs.Var(&rf.targets, "target", "target block to call (default: the suite's targets list, else the first target block); repeat it to run the same cases against each target and compare them side by side")
	fs.StringVar(&rf.split, "split", "", "run only the cases of split NAME")
	fs.StringVar(&rf.out, "out", "", "run directory for results.jsonl and report.json (default .nlutest/runs/<time>-<suite>)")
	fs.IntVar(&rf.concurrency, "concurrency", 0, "calls in flight at once (overrides the target's concurrency)")
	fs.Float64Var(&rf.rate, "rate", 0, "at most R requests per second (overrides the target's rate)")
	fs.StringVar(&rf.filter, "filter", "", "run only cases whose template (or other source) name, id or text matches REGEX")
	fs.StringVar(&rf.resume, "resume", "", "continue the run in DIR: run only the cases it has not recorded (PATH defaults to the suite DIR/run.json names)")
	fs.StringVar(&rf.onlyFailed, "only-failed", "", "run again only the cases that failed or errored in the earlier run RUN, into a new run directory (PATH defaults to RUN's suite)")
	fs.StringVar(&rf.shard, "shard", "", "run only the K-th of N stable partitions of the cases: K/N, e.g. 2/4")
	fs.IntVar(&rf.repeat, "repeat", 0, "run every case and conversation N times, each in a new session: metrics.repeat (stability, pass@k) and flaky cases")
	fs.BoolVar(&rf.allowVars, "allow-changed-vars", false, "with --resume: go on though variable values differ from those the run was recorded with (the report says so)")
	fs.BoolVar(&rf.cache, "cache", false, "answer repeated requests from the response cache in .nlutest/cache (keyed by target and exact request)")
}

func (a *App) cmdRun(ctx context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "run", "run [flags] PATH\n       nlutest run --resume DIR [flags] [PATH]\n       nlutest run --only-failed RUN [flags] [PATH]")
	rf.register(fs, a.ext().Renderers)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(rf.targets) == 1 {
		rf.target = rf.targets[0]
	}
	suitePath, err := rf.fromEarlierRun(pos)
	if err != nil {
		return a.fail(err)
	}
	sel, baseline, err := rf.check(a.readReport)
	if err != nil {
		return a.fail(err)
	}
	if code := a.checkHistory(&rf.history); code != ExitPass {
		return code
	}
	if done, code := a.onlyFailed(&rf, &sel); done {
		return code
	}
	s, code := a.load(suitePath, &rf.loadFlags)
	if s == nil {
		return code
	}
	if names := rf.runTargets(s); len(names) > 1 {
		return a.runTargets(ctx, s, suitePath, names, sel, &rf, baseline)
	}
	target, err := pickTarget(s, rf.target, "README: Targets")
	if err != nil {
		return a.fail(err)
	}
	code = a.runOne(ctx, s, suitePath, target, sel, &rf, func(dir string, rep *schema.Report) int {
		return a.reportRun(s, rep, &rf.history, func() int { return a.writeReports(rep, &rf, dir, baseline) })
	})
	if rf.resume != "" && code != ExitInvalid {
		a.noteComparison(s, rf.resume, &rf)
	}
	return code
}

// runTargets are the targets a run calls: --target (repeatable), else the
// suite's targets list (not when resuming or running an earlier run's
// failures again, which name their run's target). One name (or none: the
// first target block) is an ordinary run; several are compared.
func (rf *runFlags) runTargets(s *spec.Suite) []string {
	if len(rf.targets) > 0 || rf.resume != "" || rf.onlyFailed != "" {
		return rf.targets
	}
	if len(s.RunTargets) == 1 {
		rf.target = s.RunTargets[0]
	}
	return s.RunTargets
}

// runOne runs the suite against one target into its run directory and
// hands the finished report to report, whose exit code it returns unless
// the run was interrupted or left calls unrecorded.
func (a *App) runOne(ctx context.Context, s *spec.Suite, suitePath string, target *spec.Target, sel pipeline.Selection, rf *runFlags, report func(dir string, rep *schema.Report) int) int {
	run, code := a.prepareRun(s, suitePath, target, sel, rf)
	if run == nil {
		return code
	}
	defer run.Close()
	if err := checkReportPaths(run.Dir, rf.reportPaths()); err != nil {
		return a.fail(err)
	}
	copts := runner.CallerOptions{Concurrency: rf.concurrency, Rate: rf.rate}
	if rf.cache {
		var err error
		if copts.Cache, err = a.openCache(); err != nil {
			return a.fail(fmt.Errorf("cannot open the response cache: %w", err))
		}
	}
	caller, code := a.openTarget(ctx, s, target, copts, rf.color, "Nothing ran")
	if caller == nil {
		return code
	}
	defer caller.Close()
	caller, closeJudges, code := a.openJudges(ctx, s, caller, copts, rf.color)
	if caller == nil {
		return code
	}
	defer closeJudges()
	if err := run.Resume(); err != nil {
		return a.fail(err)
	}
	prog := newProgress(a, run)
	out, err := run.Execute(ctx, caller, prog.done)
	prog.finish()
	if err != nil {
		return a.fail(err)
	}
	if err := run.ImportExternal(); err != nil {
		return a.importFailed(err, run.Dir)
	}
	pipeline.ReleaseGarbage(run.Collector.Total())
	rep := run.Report(out)
	if c := copts.Cache; c != nil && c.Refused() > 0 {
		rep.Warnings = append(rep.Warnings, refusedWarning(c))
	}
	code = report(run.Dir, rep)
	if out.LocalFailure != "" && !out.Interrupted {
		fmt.Fprintf(a.Stderr, "nlutest: %d calls failed on this machine (%s) and were not recorded: the run is incomplete; raise the open-files limit (ulimit -n) or lower --concurrency, then call them with --resume %s\n", out.Unrecorded, out.LocalFailure, run.Dir)
		return ExitCannotRun
	}
	if out.Interrupted {
		hint := rf.resumeHint(run.Dir)
		if rf.whole != "" {
			hint = "" // the comparison's, once this target's run has stopped
		}
		fmt.Fprintf(a.Stderr, "nlutest: interrupted after %d of %s; results so far are in %s\n%s",
			run.Done(), run.CasesText(), run.Dir, hint)
		return ExitInterrupted
	}
	return code
}

// openCache opens the response cache in .nlutest/cache of the working
// directory, with the user's key (made on first use).
func (a *App) openCache() (*runner.Cache, error) {
	path, err := a.cacheKeyPath()
	if err != nil {
		return nil, err
	}
	key, err := runner.LoadCacheKey(path)
	if err != nil {
		return nil, err
	}
	return runner.NewCache(filepath.Join(a.Getwd, ".nlutest", "cache"), key)
}

// refusedWarning is the report's warning about cache entries that did not
// verify: their requests were called again.
func refusedWarning(c *runner.Cache) string {
	if n := c.Refused(); n != 1 {
		return fmt.Sprintf("%d entries of the response cache %s did not verify with your cache key (edited, copied from another user's or machine's cache, or written by an earlier nlutest): they were not used, their requests were called again and the entries rewritten", n, c.Dir())
	}
	return fmt.Sprintf("1 entry of the response cache %s did not verify with your cache key (edited, copied from another user's or machine's cache, or written by an earlier nlutest): it was not used, its request was called again and the entry rewritten", c.Dir())
}

// prepareRun prepares the run (pipeline.Prepare); on failure it prints
// why (a bad dataset row as located diagnostics) and returns nil and the
// exit code.
func (a *App) prepareRun(s *spec.Suite, suitePath string, target *spec.Target, sel pipeline.Selection, rf *runFlags) (*pipeline.Run, int) {
	run, err := pipeline.Prepare(s, pipeline.Options{
		Families: a.ext().Families, SuitePath: suitePath, Target: target, Selection: sel, Out: rf.out, Resume: rf.resume, Root: a.Getwd,
		Concurrency: rf.concurrency, IncludeUnreviewed: rf.unreviewed, Version: version(), Now: a.now, Repeat: rf.repeat, AllowChangedVars: rf.allowVars,
		Notice: func(msg string) { fmt.Fprintf(a.Stderr, "nlutest: %s\n", msg) },
	})
	if a.dataDiagnostics(err, s, &rf.loadFlags) {
		return nil, ExitInvalid
	}
	if a.refused(err, s, rf) {
		return nil, ExitInvalid
	}
	if err != nil {
		return nil, a.fail(err)
	}
	return run, ExitPass
}

// importFailed reports a file the suite imports at report time (a rating
// sheet, a TREC file) that is wrong after the calls were made: the results
// are recorded, and eval reports them once the file is right.
func (a *App) importFailed(err error, dir string) int {
	code := a.fail(err)
	fmt.Fprintf(a.Stderr, "nlutest: the run's results are in %s; once the file is right, report them with nlutest eval %s\n", dir, shellQuote(dir))
	return code
}

// onlyFailed narrows sel to the failing and erroring cases of the run
// --only-failed names; done says the command ends here, with code.
func (a *App) onlyFailed(rf *runFlags, sel *pipeline.Selection) (done bool, code int) {
	if rf.onlyFailed == "" {
		return false, ExitPass
	}
	var err error
	if sel.Only, err = pipeline.FailedIDs(rf.onlyFailed); err != nil {
		return true, a.fail(usagef("--only-failed: %v", err))
	}
	if len(sel.Only) == 0 {
		fmt.Fprintf(a.Stderr, "nlutest: %s has no failing or erroring case; nothing to run again\n", rf.onlyFailed)
		return true, ExitPass
	}
	sel.OnlyFrom = rf.onlyFailed
	fmt.Fprintf(a.Stderr, "nlutest: running again the %d failing or erroring %s of %s\n", len(sel.Only), "case"+plural(len(sel.Only)), rf.onlyFailed)
	return false, ExitPass
}

// fromEarlierRun returns the suite path to run: the one given, or the one
// the run.json of --resume DIR or --only-failed RUN records. Resuming, the
// target, split, filter and shard not given default to the recorded ones,
// as does the earlier run's target with --only-failed.
func (rf *runFlags) fromEarlierRun(pos []string) (string, error) {
	if len(pos) > 1 {
		return "", usagef("run takes one suite path, got %d", len(pos))
	}
	from, flag := rf.resume, "--resume"
	if from == "" {
		from, flag = rf.onlyFailed, "--only-failed"
	}
	if flag == "--resume" {
		if suite, multi, err := rf.resumeTargets(pos); multi || err != nil {
			return suite, err
		}
	}
	if from == "" {
		if len(pos) == 0 {
			return "", usagef("run takes one suite path, got 0 (or --resume DIR, or --only-failed RUN, to use the suite a run recorded)")
		}
		return pos[0], nil
	}
	meta, err := pipeline.ReadMeta(from)
	if err != nil {
		return "", usagef("%s: %v", flag, err)
	}
	if rf.target == "" {
		rf.target = meta.Target
	}
	if flag == "--resume" {
		if rf.repeat == 0 {
			rf.repeat = meta.Repeat
		}
		for _, f := range []struct {
			flag     *string
			recorded string
		}{{&rf.split, meta.Split}, {&rf.filter, meta.Filter}, {&rf.shard, meta.Shard}, {&rf.onlyFailed, meta.OnlyFailed}} {
			if *f.flag == "" {
				*f.flag = f.recorded
			}
		}
	}
	if len(pos) == 1 {
		return pos[0], nil
	}
	if meta.Suite == "" {
		return "", usagef("%s: %s/run.json records no suite; give the suite path", flag, from)
	}
	return meta.Suite, nil
}

// resumeHint is the command that continues the run in dir: run.json
// records the suite, target and selection, not variable values (secrets
// never reach disk), so variable files and --allow-outside are repeated
// and --var flags are named.
func (rf *runFlags) resumeHint(dir string) string {
	cmd := "nlutest run --resume " + shellQuote(dir)
	for _, f := range rf.varFiles {
		cmd += " --var-file " + shellQuote(f)
	}
	if rf.allowOutside {
		cmd += " --allow-outside"
	}
	s := "Continue with: " + cmd + "\n"
	if len(rf.vars) > 0 {
		var names []string
		for _, v := range rf.vars {
			name, _, _ := strings.Cut(v, "=")
			names = append(names, name)
		}
		s += fmt.Sprintf("  adding the same --var flags (%s): variable values are not saved in the run\n", strings.Join(names, ", "))
	}
	return s
}

// shellQuote quotes a path for a command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// check checks the flags of run that need no suite, and returns the
// selection they make and the baseline report (nil without --baseline).
func (rf *runFlags) check(readReport func(string) (*schema.Report, error)) (pipeline.Selection, *schema.Report, error) {
	sel, err := pipeline.NewSelection(rf.split, rf.filter, "")
	if err != nil {
		return sel, nil, err
	}
	if rf.concurrency < 0 || rf.rate < 0 || rf.repeat < 0 {
		return sel, nil, usagef("--concurrency, --rate and --repeat must not be negative")
	}
	if sel.Shard, err = pipeline.ParseShard(rf.shard); err != nil {
		return sel, nil, err
	}
	if rf.resume != "" && rf.out != "" && filepath.Clean(rf.resume) != filepath.Clean(rf.out) {
		return sel, nil, usagef("--resume names the run directory; drop --out or give the same directory")
	}
	var baseline *schema.Report
	if rf.baseline != "" {
		if baseline, err = readReport(rf.baseline); err != nil {
			return sel, nil, usagef("--baseline: %v", err)
		}
	}
	return sel, baseline, nil
}

// pickTarget finds the target block named name (the first one for ""); see
// is where the usage error points for how to declare one.
func pickTarget(s *spec.Suite, name, see string) (*spec.Target, error) {
	if t := s.Target(name); t != nil {
		return t, nil
	}
	var names []string
	for _, t := range s.Targets {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return nil, usagef("the suite declares no target block; add one (see %s)", see)
	}
	return nil, usagef("the suite has no target %q (targets: %s)", name, strings.Join(names, ", "))
}

// reportRun adds the history of --history (and the drift gates'
// answers) to rep, writes its reports with write, then records the run in
// the history; it returns write's exit code, or the history's failure.
func (a *App) reportRun(s *spec.Suite, rep *schema.Report, hf *historyFlags, write func() int) int {
	if code := a.applyHistory(s, rep, hf); code != ExitPass {
		return code
	}
	return a.recordHistory(rep, hf, write())
}

// writeConsole renders the console report (the verdict line with --quiet).
// A reader that closed stdout (EPIPE) is not an error.
func (a *App) writeConsole(rep *schema.Report, rf *runFlags, opts reporters.Options) {
	render := reporters.Console
	if rf.quiet {
		render = reporters.VerdictLine
	}
	if err := render(a.Stdout, rep, opts); err != nil && !closedPipe(err) {
		fmt.Fprintf(a.Stderr, "nlutest: console report: %s\n", err)
	}
}

// writeReports writes every report file, then renders the console report.
// It returns the exit code the verdict asks for, or 3 when a report could
// not be written.
func (a *App) writeReports(rep *schema.Report, rf *runFlags, runDir string, baseline *schema.Report) int {
	opts := reporters.Options{Color: a.useColor(rf.color, a.StdoutTTY), JUnitCases: rf.junitCases, MaxFailures: rf.maxFailures, Baseline: baseline}
	type out struct {
		kind, path string
		render     func(io.Writer) error
		append     bool
	}
	summary := a.getenv("GITHUB_STEP_SUMMARY")
	fopts := opts
	fopts.Color = false // files never get colour
	outs := []out{{"json", filepath.Join(runDir, pipeline.ReportFile), func(w io.Writer) error { return reporters.JSON(w, rep) }, false}}
	for _, f := range rf.reports {
		for _, p := range f.paths {
			// GitHub collects every step's summary in one file: add to it.
			appendTo := f.r.Summary && summary != "" && filepath.Clean(p) == filepath.Clean(summary)
			outs = append(outs, out{f.r.Name, p, func(w io.Writer) error { f.r.Expand(rep); return f.r.Write(w, rep, fopts) }, appendTo})
		}
	}
	failed := false
	var written []string
	for _, o := range outs {
		write := reporters.WriteFile
		if o.append {
			write = reporters.AppendFile
		}
		if err := write(o.path, o.render); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: cannot write %s report %s: %s\n", o.kind, o.path, err)
			failed = true
			continue
		}
		if o.append {
			o.kind += " (appended)"
		}
		written = append(written, o.kind+" → "+o.path)
	}
	// The console comes after the files: a reader that goes away early
	// (`| head -1`) leaves every report file written. The report paths
	// come before it, so the verdict line is the last line on the terminal.
	fmt.Fprintf(a.Stderr, "Reports: %s\n", strings.Join(written, " · "))
	a.writeConsole(rep, rf, opts)
	if failed {
		return ExitCannotRun
	}
	if rep.Verdict.Outcome == schema.Pass {
		return ExitPass
	}
	return ExitFail
}

// refused prints a selection a target cannot run (pipeline.RefusedError:
// located diagnostics); false for other errors.
func (a *App) refused(err error, s *spec.Suite, rf *runFlags) bool {
	var refused *pipeline.RefusedError
	if !errors.As(err, &refused) {
		return false
	}
	diagfmt.Write(a.Stderr, refused.Diags, s.Sources, a.useColor(rf.color, a.StderrTTY))
	fmt.Fprintf(a.Stderr, "nlutest: the target %q cannot run this selection; nothing ran.\n", refused.Target)
	return true
}
