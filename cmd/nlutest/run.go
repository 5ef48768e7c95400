package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// runFlags are the flags of `nlutest run`.
type runFlags struct {
	loadFlags
	target      string
	split       string
	out         string
	junit       listFlag
	markdown    listFlag
	jsonReports listFlag
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
}

func (rf *runFlags) register(fs *flag.FlagSet) {
	rf.loadFlags.register(fs)
	fs.StringVar(&rf.target, "target", "", "target block to call (default: the first one)")
	fs.StringVar(&rf.split, "split", "", "run only the cases of split NAME")
	fs.StringVar(&rf.out, "out", "", "run directory for results.jsonl and report.json (default .nlutest/runs/<time>-<suite>)")
	fs.Var(&rf.junit, "report-junit", "write a JUnit XML report to FILE (repeatable)")
	fs.Var(&rf.markdown, "report-markdown", "write a Markdown report to FILE, e.g. $GITHUB_STEP_SUMMARY (repeatable)")
	fs.Var(&rf.jsonReports, "report-json", "write the JSON report to FILE (repeatable)")
	fs.IntVar(&rf.concurrency, "concurrency", 0, "calls in flight at once (overrides the target's concurrency)")
	fs.Float64Var(&rf.rate, "rate", 0, "at most R requests per second (overrides the target's rate)")
	fs.StringVar(&rf.filter, "filter", "", "run only cases whose template name, id or text matches REGEX")
	fs.BoolVar(&rf.quiet, "quiet", false, "print only the verdict line and report paths")
	fs.BoolVar(&rf.junitCases, "junit-cases", false, "in a suite with thresholds, also list every case in JUnit (as output, not failures)")
	fs.IntVar(&rf.maxFailures, "max-failures", 0, "failing cases listed in console and Markdown (default 20 and 50)")
	fs.StringVar(&rf.resume, "resume", "", "continue the run in DIR: run only the cases it has not recorded")
	fs.StringVar(&rf.shard, "shard", "", "run only the K-th of N stable partitions of the cases: K/N, e.g. 2/4")
	fs.StringVar(&rf.baseline, "baseline", "", "compare with an earlier run (directory or report.json): Δ columns in console and Markdown")
	fs.BoolVar(&rf.unreviewed, "include-unreviewed", false, "count cases of unreviewed templates (reviewed = false) in metrics and thresholds")
	fs.BoolVar(&rf.cache, "cache", false, "answer repeated requests from the response cache in .nlutest/cache (keyed by target and exact request)")
}

// shardSpec is a parsed --shard K/N.
type shardSpec struct{ k, n int }

func parseShard(s string) (shardSpec, error) {
	if s == "" {
		return shardSpec{}, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 1 || k < 1 || k > n || fmt.Sprintf("%d/%d", k, n) != s {
		return shardSpec{}, usagef("--shard takes K/N with 1 ≤ K ≤ N, e.g. 2/4; got %q", s)
	}
	return shardSpec{k, n}, nil
}

// has reports whether the case id falls in this shard (a stable hash of the
// id, so every machine agrees and adding cases never moves old ones).
func (sh shardSpec) has(id string) bool {
	if sh.n <= 1 {
		return true
	}
	return int(spec.UnitHash("shard", id)*float64(sh.n)) == sh.k-1
}

func (a *App) cmdRun(ctx context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "run", "run [flags] PATH")
	rf.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("run takes one suite path, got %d", len(pos)))
	}
	var filter *regexp.Regexp
	if rf.filter != "" {
		if filter, err = regexp.Compile(rf.filter); err != nil {
			return a.fail(usagef("--filter is not a valid regular expression: %v", err))
		}
	}
	if rf.concurrency < 0 || rf.rate < 0 {
		return a.fail(usagef("--concurrency and --rate must not be negative"))
	}
	shard, err := parseShard(rf.shard)
	if err != nil {
		return a.fail(err)
	}
	if rf.resume != "" && rf.out != "" && filepath.Clean(rf.resume) != filepath.Clean(rf.out) {
		return a.fail(usagef("--resume names the run directory; drop --out or give the same directory"))
	}
	var baseline *schema.Report
	if rf.baseline != "" {
		if baseline, err = readReport(rf.baseline); err != nil {
			return a.fail(usagef("--baseline: %v", err))
		}
	}
	s, code := a.load(pos[0], &rf.loadFlags)
	if s == nil {
		return code
	}
	target := s.Target(rf.target)
	if target == nil {
		var names []string
		for _, t := range s.Targets {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return a.fail(usagef("the suite declares no target block; add one (see README: Targets)"))
		}
		return a.fail(usagef("the suite has no target %q (targets: %s)", rf.target, strings.Join(names, ", ")))
	}
	if rf.split != "" && s.SplitByName(rf.split) == nil {
		return a.fail(usagef("the suite has no split %q (splits: %s)", rf.split, strings.Join(s.SplitNames(), ", ")))
	}

	var warnings []string
	gopts := spec.GenOptions{Split: rf.split, Warn: func(_ spec.Range, msg string) { warnings = append(warnings, msg) }}
	keep := func(c *schema.Case) bool {
		if !shard.has(c.ID) {
			return false
		}
		return filter == nil || filter.MatchString(c.Template) || filter.MatchString(c.ID) || filter.MatchString(c.Text)
	}
	// Count first (generation is cheap and deterministic) for progress and
	// to refuse a selection that matches nothing before calling anything.
	perTemplate := map[string]int{}
	total := 0
	if err := s.Generate(gopts, func(c *schema.Case) error {
		if keep(c) {
			perTemplate[c.Template]++
			total++
		}
		return nil
	}); err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: generating cases: %s\n", err)
		return ExitInvalid
	}
	if total == 0 {
		return a.fail(usagef("no case to run: the suite generates no case%s", selectionNote(rf)))
	}
	gopts.Warn = nil

	started := a.now()
	runDir := rf.out
	meta := runMeta{Tool: "nlutest", Version: version(), Suite: pos[0], Target: target.Name, Split: rf.split, Filter: rf.filter, Shard: rf.shard, Total: total, Started: started.UTC()}
	if rf.resume != "" {
		runDir = rf.resume
		old, err := readRunMeta(runDir)
		if err != nil {
			return a.fail(usagef("--resume: %v", err))
		}
		if old.Target != meta.Target || old.Split != meta.Split || old.Filter != meta.Filter || old.Shard != meta.Shard {
			return a.fail(usagef("--resume: %s was run with target %q, split %q, filter %q, shard %q; resume it with the same selection", runDir, old.Target, old.Split, old.Filter, old.Shard))
		}
		meta.Started = old.Started
	}
	if runDir == "" {
		runDir = filepath.Join(a.Getwd, ".nlutest", "runs", started.Format("20060102-150405")+"-"+safeName(s.Name))
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return a.fail(fmt.Errorf("cannot create run directory: %w", err))
	}
	resultsPath := filepath.Join(runDir, runner.ResultsFile)
	if rf.resume == "" && fileExists(resultsPath) {
		return a.fail(usagef("%s already holds a run; choose another --out directory, or continue it with --resume %s", runDir, runDir))
	}

	copts := runner.CallerOptions{Concurrency: rf.concurrency, Rate: rf.rate}
	if rf.cache {
		if copts.Cache, err = runner.NewCache(filepath.Join(a.Getwd, ".nlutest", "cache")); err != nil {
			return a.fail(fmt.Errorf("cannot open the response cache: %w", err))
		}
	}
	caller, code := a.openTarget(ctx, s, target, copts, rf.color, "Nothing ran")
	if caller == nil {
		return code
	}
	defer caller.Close()

	ev := assert.NewEvaluator(s)
	col := assert.NewCollector(s)
	col.IncludeUnreviewed = rf.unreviewed
	done := map[string]bool{}
	if rf.resume != "" {
		dropped, err := runner.RepairResults(resultsPath)
		if err != nil {
			return a.fail(fmt.Errorf("cannot repair %s: %w", resultsPath, err))
		}
		if dropped > 0 {
			fmt.Fprintf(a.Stderr, "nlutest: dropped a torn last line (%d bytes) from %s\n", dropped, resultsPath)
		}
		if !fileExists(resultsPath) {
			// killed before the first result: nothing to replay
		} else if _, err := a.replayResults(resultsPath, ev, nil, col, done); err != nil {
			return a.fail(err)
		}
		fmt.Fprintf(a.Stderr, "nlutest: resuming %s: %d of %d cases already recorded\n", runDir, len(done), total)
	}
	if err := writeRunMeta(runDir, meta); err != nil {
		return a.fail(fmt.Errorf("cannot write run metadata: %w", err))
	}
	rw, err := runner.CreateResults(resultsPath)
	if err != nil {
		return a.fail(fmt.Errorf("cannot write results: %w", err))
	}
	prog := newProgress(a, total-len(done), perTemplateLeft(perTemplate, col))
	runErr := runner.Run(ctx, caller, func(yield func(*schema.Case) error) error {
		return s.Generate(gopts, func(c *schema.Case) error {
			if !keep(c) || done[c.ID] {
				return nil
			}
			return yield(c)
		})
	}, runner.Config{
		Concurrency: runner.Concurrency(target, runner.CallerOptions{Concurrency: rf.concurrency}),
		Evaluate:    ev.Evaluate,
		OnResult: func(r *schema.Result) error {
			if err := rw.Write(r); err != nil {
				return fmt.Errorf("writing results: %w", err)
			}
			col.Add(r)
			prog.done(r)
			return nil
		},
	})
	prog.finish()
	if err := rw.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing results: %w", err)
	}
	interrupted := ctx.Err() != nil
	if runErr != nil && !interrupted {
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", runErr)
		return ExitCannotRun
	}
	finished := a.now()
	meta.Finished = finished.UTC()
	if err := writeRunMeta(runDir, meta); err != nil {
		return a.fail(fmt.Errorf("cannot write run metadata: %w", err))
	}
	run := schema.RunInfo{
		ID: filepath.Base(runDir), Dir: runDir, Target: target.Name, Split: rf.split, Filter: rf.filter,
		Started: meta.Started, Finished: finished.UTC(), Seconds: finished.Sub(started).Seconds(),
		Interrupted: interrupted, ErrorBudget: target.ErrorBudget,
	}
	if col.Unreviewed() > 0 {
		warnings = append(warnings, fmt.Sprintf("%d cases of unreviewed templates (reviewed = false) are reported apart and left out of metrics and thresholds; review their expectations, or pass --include-unreviewed", col.Unreviewed()))
	}
	rep := assert.BuildReport(s, col, run, version(), warnings)
	code = a.writeReports(rep, &rf, runDir, baseline)
	if interrupted {
		fmt.Fprintf(a.Stderr, "nlutest: interrupted after %d of %d cases; results so far are in %s\n", col.Total(), total, runDir)
		return ExitInterrupted
	}
	return code
}

func selectionNote(rf runFlags) string {
	var parts []string
	if rf.split != "" {
		parts = append(parts, "in split "+rf.split)
	}
	if rf.filter != "" {
		parts = append(parts, "matching --filter "+rf.filter)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

var unsafeChars = regexp.MustCompile(`[^\p{L}\p{N}._-]+`)

func safeName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "-")
	if s == "" {
		return "suite"
	}
	return s
}

// writeReports renders the console report and writes every report file.
// It returns the exit code the verdict asks for, or 3 when a report could
// not be written.
func (a *App) writeReports(rep *schema.Report, rf *runFlags, runDir string, baseline *schema.Report) int {
	opts := reporters.Options{Color: a.useColor(rf.color, a.StdoutTTY), JUnitCases: rf.junitCases, MaxFailures: rf.maxFailures, Baseline: baseline}
	if !rf.quiet {
		if err := reporters.Console(a.Stdout, rep, opts); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: console report: %s\n", err)
		}
	} else {
		fmt.Fprintf(a.Stdout, "%s %s\n", strings.ToUpper(rep.Verdict.Outcome.String()), rep.Suite.Name)
	}
	type out struct {
		kind, path string
		render     func(io.Writer) error
	}
	var outs []out
	outs = append(outs, out{"json", filepath.Join(runDir, "report.json"), func(w io.Writer) error { return reporters.JSON(w, rep) }})
	for _, p := range rf.jsonReports {
		outs = append(outs, out{"json", p, func(w io.Writer) error { return reporters.JSON(w, rep) }})
	}
	for _, p := range rf.junit {
		outs = append(outs, out{"junit", p, func(w io.Writer) error { return reporters.JUnit(w, rep, opts) }})
	}
	mopts := opts
	mopts.Color = false
	for _, p := range rf.markdown {
		outs = append(outs, out{"markdown", p, func(w io.Writer) error { return reporters.Markdown(w, rep, mopts) }})
	}
	failed := false
	var written []string
	for _, o := range outs {
		if err := reporters.WriteFile(o.path, o.render); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: cannot write %s report %s: %s\n", o.kind, o.path, err)
			failed = true
			continue
		}
		written = append(written, o.kind+" → "+o.path)
	}
	fmt.Fprintf(a.Stderr, "Reports: %s\n", strings.Join(written, " · "))
	if failed {
		return ExitCannotRun
	}
	if rep.Verdict.Outcome == schema.Pass {
		return ExitPass
	}
	return ExitFail
}

// perTemplateLeft is how many cases of each template a resumed run still
// has to call: the selection's count less what the collector already holds.
func perTemplateLeft(per map[string]int, col *assert.Collector) map[string]int {
	left := make(map[string]int, len(per))
	for k, v := range per {
		left[k] = v
	}
	for _, g := range col.Groups() {
		left[g.Name] -= g.Total
	}
	return left
}

// replayResults feeds a results file into the collector: each result is
// re-evaluated against the suite (rebuilt from the suite as it is now when
// rb is set). Decoding and evaluation run on every core in batches, and
// results reach the collector in file order, so reports never depend on
// scheduling. seen collects the ids; a repeated id is skipped. It returns
// the number of results whose case could not be rebuilt and kept their
// recorded expectations.
func (a *App) replayResults(path string, ev *assert.Evaluator, rb *spec.Rebuilder, col *assert.Collector, seen map[string]bool) (int, error) {
	const batchSize = 1024
	type item struct {
		line  []byte
		n     int
		r     schema.Result
		stale bool
		err   error
	}
	workers := runtime.GOMAXPROCS(0)
	batch := make([]item, 0, batchSize)
	stale := 0
	flush := func() error {
		var wg sync.WaitGroup
		next := make(chan int, len(batch))
		for i := range batch {
			next <- i
		}
		close(next)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					it := &batch[i]
					raw, err := it.r.DecodeForEval(it.line)
					if err != nil {
						it.err = fmt.Errorf("%s:%d: not a result record: %v", path, it.n, err)
						continue
					}
					rebuilt := false
					if rb != nil {
						if c, ok := rb.Rebuild(&it.r.Case); ok {
							it.r.Case, rebuilt = *c, true
						} else {
							it.stale = true
						}
					}
					if !rebuilt {
						if it.r.Expect, err = schema.DecodeExpectations(raw); err != nil {
							it.err = fmt.Errorf("%s:%d: expect: %v", path, it.n, err)
							continue
						}
					}
					ev.Evaluate(&it.r)
				}
			}()
		}
		wg.Wait()
		for i := range batch {
			it := &batch[i]
			if it.err != nil {
				return it.err
			}
			if seen[it.r.ID] {
				continue
			}
			seen[it.r.ID] = true
			if it.stale {
				stale++
			}
			col.Add(&it.r)
		}
		batch = batch[:0]
		return nil
	}
	err := runner.ReadLines(path, func(line []byte, n int) error {
		batch = append(batch, item{line: append([]byte(nil), line...), n: n})
		if len(batch) == batchSize {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return stale, err
}
