package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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
	// Each result's evaluation, made in the worker, waits here for OnResult.
	var evs sync.Map // *schema.Result → *assert.Evaluation
	runErr := runner.Run(ctx, caller, func(yield func(*schema.Case) error) error {
		return s.Generate(gopts, func(c *schema.Case) error {
			if !keep(c) || done[c.ID] {
				return nil
			}
			return yield(c)
		})
	}, runner.Config{
		Concurrency: runner.Concurrency(target, runner.CallerOptions{Concurrency: rf.concurrency}),
		Evaluate: func(r *schema.Result) {
			if e := ev.Evaluate(r); e != nil {
				evs.Store(r, e)
			}
		},
		OnResult: func(r *schema.Result) error {
			e, _ := evs.LoadAndDelete(r)
			evaluation, _ := e.(*assert.Evaluation)
			defer evaluation.Release()
			if err := rw.Write(r); err != nil {
				return fmt.Errorf("writing results: %w", err)
			}
			col.Add(r, evaluation)
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
// rb is set). One goroutine reads lines in batches and drops repeated ids
// (the first record of an id wins; seen collects the ids); every core
// decodes, evaluates and collects batches into a collector of its own, and
// the collectors merge at the end by sequence number, so reports never
// depend on scheduling. It returns the number of results whose case could
// not be rebuilt and kept their recorded expectations. A record that does
// not decode is an error naming its line (the first such line).
func (a *App) replayResults(path string, ev *assert.Evaluator, rb *spec.Rebuilder, col *assert.Collector, seen map[string]bool) (int, error) {
	const batchSize = 512
	type batch struct {
		buf   []byte  // the batch's lines, back to back
		ends  []int   // end of each line in buf
		lines []int   // line number of each
		seqs  []int64 // sequence number of each
	}
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, 2*workers)
	free := make(chan *batch, 3*workers)
	var (
		failed   atomic.Bool
		mu       sync.Mutex
		firstErr error
		errLine  int
		stale    atomic.Int64
		wg       sync.WaitGroup
	)
	fail := func(line int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil || line < errLine {
			firstErr, errLine = err, line
		}
		failed.Store(true)
	}
	cols := make([]*assert.Collector, workers)
	for w := range workers {
		cols[w] = col.Fork()
		wg.Add(1)
		go func(c *assert.Collector) {
			defer wg.Done()
			var r schema.Result
			var rest schema.Deferred
			lineNo := 0
			defer func() {
				// A bug must not take the process down without a word: it
				// becomes this record's error, and the channel is drained so
				// the reader finishes.
				if p := recover(); p != nil {
					fail(lineNo, fmt.Errorf("%s:%d: internal error evaluating this record: %v (please report it)", path, lineNo, p))
					for range work {
					}
				}
			}()
			for b := range work {
				start := 0
				for i, end := range b.ends {
					line := b.buf[start:end]
					start = end
					lineNo = b.lines[i]
					if failed.Load() {
						break
					}
					if err := r.DecodeForEval(line, &rest); err != nil {
						fail(b.lines[i], fmt.Errorf("%s:%d: not a result record: %v", path, b.lines[i], err))
						break
					}
					rebuilt := false
					if rb != nil {
						if c, ok := rb.RebuildRecord(r.Template, r.ID, r.Text, rest.Slots); ok {
							r.Case, rebuilt = *c, true
						} else {
							stale.Add(1)
						}
					}
					if !rebuilt {
						if err := rest.DecodeCase(&r.Case); err != nil {
							fail(b.lines[i], fmt.Errorf("%s:%d: not a result record: %v", path, b.lines[i], err))
							break
						}
					}
					evaluation := ev.Evaluate(&r)
					c.AddAt(&r, evaluation, b.seqs[i])
					evaluation.Release()
				}
				select {
				case free <- b:
				default:
				}
			}
		}(cols[w])
	}
	seq := col.Next() // after what the collector holds (an earlier run directory)
	cur := &batch{}
	send := func() {
		work <- cur
		select {
		case cur = <-free:
			cur.buf, cur.ends, cur.lines, cur.seqs = cur.buf[:0], cur.ends[:0], cur.lines[:0], cur.seqs[:0]
		default:
			cur = &batch{}
		}
	}
	errStop := errors.New("stop")
	err := runner.ReadLines(path, func(line []byte, n int) error {
		if failed.Load() {
			return errStop
		}
		id, err := schema.RecordID(line)
		if err != nil {
			fail(n, fmt.Errorf("%s:%d: not a result record: %v", path, n, err))
			return errStop
		}
		if seen[id] {
			return nil
		}
		seen[id] = true
		cur.buf = append(cur.buf, line...)
		cur.ends = append(cur.ends, len(cur.buf))
		cur.lines = append(cur.lines, n)
		cur.seqs = append(cur.seqs, seq)
		seq++
		if len(cur.ends) == batchSize {
			send()
		}
		return nil
	})
	if len(cur.ends) > 0 {
		work <- cur
	}
	close(work)
	wg.Wait()
	if err != nil && err != errStop {
		return 0, err
	}
	if firstErr != nil {
		return 0, firstErr
	}
	for _, c := range cols {
		col.Merge(c)
	}
	return int(stale.Load()), nil
}
