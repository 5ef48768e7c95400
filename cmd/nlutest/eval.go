package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// registerReports registers the flags run, eval and merge share: the
// suite's load flags, a --report-NAME FILE per renderer, and how reports
// are rendered.
func (rf *runFlags) registerReports(fs *flag.FlagSet, renderers []reporters.Renderer) {
	rf.loadFlags.register(fs)
	rf.reports = make([]reportFlag, len(renderers))
	for i, r := range renderers {
		rf.reports[i].r = r
		fs.Var(&rf.reports[i].paths, "report-"+r.Name, r.Help)
	}
	fs.BoolVar(&rf.quiet, "quiet", false, "print only the verdict line (with the reasons of a fail) and the report paths")
	fs.BoolVar(&rf.junitCases, "junit-cases", false, "in a suite with thresholds, also list every case in JUnit (as output, not failures)")
	fs.IntVar(&rf.maxFailures, "max-failures", 0, "failing cases listed in console and Markdown (default 20 and 50)")
	fs.StringVar(&rf.baseline, "baseline", "", "compare with an earlier run (directory or report.json): Δ columns in console and Markdown")
	fs.BoolVar(&rf.unreviewed, "include-unreviewed", false, "count cases of unreviewed templates (reviewed = false) in metrics and thresholds")
	rf.history.register(fs, "")
}

// cmdEval recomputes expectations, metrics, thresholds and reports of a
// saved run from its results, with the suite as it is now, offline.
func (a *App) cmdEval(_ context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "eval", "eval [flags] RUN_DIR")
	rf.registerReports(fs, a.ext().Renderers)
	suitePath := fs.String("suite", "", "the suite to evaluate with (default: the one recorded in RUN_DIR/run.json)")
	list := fs.Bool("list-metrics", false, "print every metric of the run with its value, for writing thresholds")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("eval takes one run directory, got %d", len(pos)))
	}
	runDir := pos[0]
	if rec, ok, err := comparisonRecord(runDir); ok || err != nil {
		if err != nil {
			return a.fail(err)
		}
		if *list || rf.baseline != "" {
			return a.fail(usagef("%s is a run against several targets: --list-metrics and --baseline name one target's run (DIR/TARGET)", runDir))
		}
		return a.evalTargets(runDir, rec, *suitePath, &rf)
	}
	if err := checkReportPaths(runDir, rf.reportPaths()); err != nil {
		return a.fail(err)
	}
	meta, err := pipeline.ReadMeta(runDir)
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	if *suitePath == "" {
		*suitePath = meta.Suite
	}
	s, code := a.load(*suitePath, &rf.loadFlags)
	if s == nil {
		return code
	}
	col, rep, code := a.evaluateRuns(s, []string{runDir}, meta, &rf)
	if col == nil {
		return code
	}
	if *list {
		listMetrics(a.Stdout, rep.Descriptor(), rep.Metrics)
		return ExitPass
	}
	return a.finishOffline(s, rep, &rf, runDir)
}

// evaluateRuns re-evaluates the results of one or more run directories
// against s and builds the report; on failure it prints why and returns
// exit code 2.
func (a *App) evaluateRuns(s *spec.Suite, dirs []string, meta pipeline.Meta, rf *runFlags) (*assert.Collector, *schema.Report, int) {
	col, rep, err := pipeline.Evaluate(s, dirs, meta, pipeline.EvalOptions{Families: a.ext().Families, IncludeUnreviewed: rf.unreviewed, Version: version()})
	var (
		se *pipeline.SheetError
		re *runner.RecordError
	)
	if errors.As(err, &se) || errors.As(err, &re) {
		return nil, nil, a.fail(err)
	}
	if err != nil {
		if !a.dataDiagnostics(err, s, &rf.loadFlags) {
			fmt.Fprintf(a.Stderr, "nlutest: %v\n", err)
		}
		return nil, nil, ExitInvalid
	}
	return col, rep, ExitPass
}

// finishOffline prints and writes the reports of an offline evaluation,
// with the history of --history, and records the run there.
func (a *App) finishOffline(s *spec.Suite, rep *schema.Report, rf *runFlags, runDir string) int {
	var baseline *schema.Report
	if rf.baseline != "" {
		var err error
		if baseline, err = a.readReport(rf.baseline); err != nil {
			return a.fail(usagef("--baseline: %v", err))
		}
	}
	return a.reportRun(s, rep, &rf.history, func() int { return a.writeReports(rep, rf, runDir, baseline) })
}

// cmdMerge joins shard runs into one run directory and reports on it.
func (a *App) cmdMerge(_ context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "merge", "merge --out DIR [flags] RUN_DIR...")
	rf.registerReports(fs, a.ext().Renderers)
	out := fs.String("out", "", "the merged run directory (required)")
	suitePath := fs.String("suite", "", "the suite (default: the one recorded in the first run)")
	partial := fs.Bool("partial", false, "merge some shards of a run, not all (the report says which)")
	allowVars := fs.Bool("allow-changed-vars", false, "merge shards recorded with other variable values than given here (the report says so)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) == 0 || *out == "" {
		return a.fail(usagef("merge takes --out DIR and one or more run directories"))
	}
	if err := checkReportPaths(*out, rf.reportPaths()); err != nil {
		return a.fail(err)
	}
	if pipeline.IsTargetsDir(pos[0]) {
		return a.mergeTargets(*out, pos, mergeOpts{suitePath: *suitePath, partial: *partial, MergeOptions: pipeline.MergeOptions{AllowChangedVars: *allowVars,
			Notice: func(msg string) { fmt.Fprintf(a.Stderr, "nlutest: %s\n", msg) }}}, &rf)
	}
	metas, err := pipeline.ReadShards(pos, *partial)
	if err != nil {
		return a.fail(err)
	}
	if *suitePath == "" {
		*suitePath = metas[0].Suite
	}
	s, code := a.load(*suitePath, &rf.loadFlags)
	if s == nil {
		return code
	}
	meta, n, err := pipeline.Merge(s, *out, pos, metas, pipeline.MergeOptions{AllowChangedVars: *allowVars,
		Notice: func(msg string) { fmt.Fprintf(a.Stderr, "nlutest: %s\n", msg) }})
	if a.dataDiagnostics(err, s, &rf.loadFlags) {
		return ExitInvalid
	}
	if err != nil {
		return a.fail(err)
	}
	_, rep, code := a.evaluateRuns(s, []string{*out}, meta, &rf)
	if rep == nil {
		return code
	}
	partialNote := ""
	if len(meta.MissingShards) > 0 {
		partialNote = fmt.Sprintf(" (a partial merge: shard%s %s missing)", plural(len(meta.MissingShards)), strings.Join(meta.MissingShards, ", "))
	}
	fmt.Fprintf(a.Stderr, "nlutest: merged %d results from %d run%s into %s%s\n", n, len(pos), plural(len(pos)), *out, partialNote)
	return a.finishOffline(s, rep, &rf, *out)
}

// eachMetric calls fn for every number of the metrics tree (as the
// descriptor t describes it), with its address
// (metrics.split.smoke.accuracy, metrics.scene["出行/天气"].accuracy), its
// value (nil without data) and, for ratios, "num/den"; mt is the metric
// as the descriptor read it (its kind, its interval).
func eachMetric(t *schema.Tree, m *schema.Metrics, fn func(addr string, v *float64, ratio string, mt *schema.Metric)) {
	var walk func(o *schema.Obj, path string)
	walk = func(o *schema.Obj, path string) {
		for i := range o.Metrics {
			mt := &o.Metrics[i]
			ratio := ""
			if r := mt.Ratio; r != nil {
				ratio = fmt.Sprintf("%g/%g", r.Num, r.Den)
			}
			fn(path+"."+mt.Name, mt.Value, ratio, mt)
		}
		for _, c := range o.Children {
			p := path + "." + c.Sub.Name
			if c.Obj != nil {
				walk(c.Obj, p)
				continue
			}
			for i, k := range c.Keys {
				kp := p + "." + k
				if !isIdent(k) {
					kp = fmt.Sprintf("%s[%q]", p, k)
				}
				walk(c.Entries[i], kp)
			}
		}
	}
	if root := t.ReadMetrics(m); root != nil {
		walk(root, "metrics")
	}
}

// listMetrics prints every metric of the tree as `address = value
// (num/den)`, followed for a metric with a confidence interval by its
// bounds and how they were computed, `[low, high] wilson over cases`
// (what a threshold reads as address.ci_low and .ci_high).
func listMetrics(w io.Writer, t *schema.Tree, m *schema.Metrics) {
	var lines []string
	eachMetric(t, m, func(addr string, v *float64, ratio string, mt *schema.Metric) {
		line := addr + " = null (no data)"
		if v != nil {
			line = fmt.Sprintf("%s = %.6g", addr, *v)
		}
		if ratio != "" {
			line += " (" + ratio + ")"
		}
		if mt.CILow != nil && mt.CIHigh != nil {
			line += fmt.Sprintf(" [%.6g, %.6g] %s over %s", *mt.CILow, *mt.CIHigh, mt.CI, mt.CIUnit)
		}
		lines = append(lines, line)
	})
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' || r > 127) {
			return false
		}
	}
	return s != ""
}
