package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/compare"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// diffFlags are diff's flags.
type diffFlags struct {
	loadFlags
	format, htmlFile, suite string
	all, failOnWorse        bool
	maxCases                int
	alpha                   float64
}

// cmdDiff compares two runs: the significance of each metric's change
// (paired on the cases both ran, when both are run directories), the
// thresholds that changed and the cases that flipped; with --fail-on-worse
// it fails on a significant regression of a gated metric.
func (a *App) cmdDiff(args []string) int {
	var df diffFlags
	fs := newFlagSet(a, "diff", "diff [flags] RUN_A RUN_B")
	df.loadFlags.register(fs)
	fs.StringVar(&df.format, "format", "text", "output: text or markdown")
	fs.BoolVar(&df.all, "all", false, "list unchanged metrics too")
	fs.IntVar(&df.maxCases, "max-cases", 50, "flipped cases listed per direction (0 = all)")
	fs.StringVar(&df.htmlFile, "html", "", "also write the diff as a self-contained HTML page to FILE")
	fs.BoolVar(&df.failOnWorse, "fail-on-worse", false, "exit 1 when B is significantly worse than A on a gated metric (accuracy, error rate, the metrics thresholds name)")
	fs.Float64Var(&df.alpha, "alpha", compare.DefaultAlpha, "level of the tests: a difference is significant when its Holm-adjusted p-value is below it")
	fs.StringVar(&df.suite, "suite", "", "evaluate both runs with this suite (default: each run's own, recorded in its run.json)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 2 {
		return a.fail(usagef("diff takes two runs (directories or report.json files), got %d", len(pos)))
	}
	if df.format != "text" && df.format != "markdown" {
		return a.fail(usagef("--format takes text or markdown, not %q", df.format))
	}
	if !(df.alpha > 0 && df.alpha < 1) {
		return a.fail(usagef("--alpha takes a level between 0 and 1 (0.05, 0.01), not %g", df.alpha))
	}
	ra, rb, sig, code := a.diffRuns(pos, &df)
	if ra == nil {
		return code
	}
	v := reporters.DiffView(ra, rb, reporters.DiffOptions{NameA: pos[0], NameB: pos[1], All: df.all, MaxCases: df.maxCases,
		Metrics:      func(m *schema.Metrics) []reporters.MetricValue { return metricList(ra.Descriptor(), m) },
		Significance: sig})
	if code := a.writeDiff(v, &df); code != ExitPass {
		return code
	}
	if df.failOnWorse {
		return a.gateDiff(sig, df.alpha)
	}
	return ExitPass
}

// writeDiff prints the diff and writes its HTML page.
func (a *App) writeDiff(v *reporters.View, df *diffFlags) int {
	var out bytes.Buffer
	var err error
	if df.format == "markdown" {
		err = reporters.MarkdownView(&out, v, reporters.Options{})
	} else {
		err = reporters.ConsoleView(&out, v, reporters.Options{})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: diff: %s\n", err)
		return ExitCannotRun
	}
	if _, err := a.Stdout.Write(out.Bytes()); err != nil && !closedPipe(err) {
		return ExitCannotRun
	}
	if df.htmlFile != "" {
		if err := reporters.WriteFile(df.htmlFile, func(w io.Writer) error { return reporters.HTMLView(w, v, reporters.Options{}) }); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: cannot write html diff %s: %s\n", df.htmlFile, err)
			return ExitCannotRun
		}
		fmt.Fprintf(a.Stderr, "Reports: html → %s\n", df.htmlFile)
	}
	return ExitPass
}

// gateDiff is --fail-on-worse: exit 1 when a gated metric is
// significantly worse, naming each on stderr.
func (a *App) gateDiff(sig *schema.Significance, alpha float64) int {
	var worse []string
	for _, m := range sig.Metrics {
		if m.Gated && m.Verdict == schema.VerdictWorse {
			worse = append(worse, fmt.Sprintf("%s %s → %s (Δ %+.4g, p %s, Holm-adjusted %s)", reporters.WrittenAddress(m.Metric),
				fmtNum(m.Baseline), fmtNum(m.Candidate), *m.Diff, pEquals(m.P), fmtPValue(m.PAdjusted)))
		}
	}
	if len(worse) == 0 {
		return ExitPass
	}
	fmt.Fprintf(a.Stderr, "nlutest: B is significantly worse than A (α = %g) on %d gated %s:\n  %s\n", alpha, len(worse),
		"metric"+plural(len(worse)), strings.Join(worse, "\n  "))
	return ExitFail
}

func fmtNum(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", *v)
}

// pEquals is "= 0.003", or "< 0.0001" for the p-values fmtPValue prints
// so.
func pEquals(p *float64) string {
	if s := fmtPValue(p); strings.HasPrefix(s, "<") {
		return "< " + s[1:]
	}
	return "= " + fmtPValue(p)
}

func fmtPValue(p *float64) string {
	switch {
	case p == nil:
		return "n/a"
	case *p < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.2g", *p)
}

// isRunDir reports whether path is a run directory holding its results.
func isRunDir(path string) bool {
	return fileExists(filepath.Join(path, pipeline.MetaFile)) && fileExists(filepath.Join(path, runner.ResultsFile))
}

// diffRuns reads the two runs: with two run directories, their results
// are evaluated again (each with its own suite, or --suite) recording
// their units, and compared unit by unit; otherwise — report.json files,
// or a suite that is gone or does not load (a variable not given) — their
// reports are read and compared without tests, and --fail-on-worse is
// refused. On failure it says why and returns nil reports and the exit
// code.
func (a *App) diffRuns(pos []string, df *diffFlags) (ra, rb *schema.Report, sig *schema.Significance, code int) {
	suites, unpaired, code := a.diffSuites(pos, df)
	if code != ExitPass {
		return nil, nil, nil, code
	}
	if unpaired == "" {
		return a.diffPaired(pos, suites, df)
	}
	if df.failOnWorse {
		return nil, nil, nil, a.fail(usagef("--fail-on-worse fails on significant regressions, which need paired tests: %s", unpaired))
	}
	var err error
	if ra, err = a.readReport(pos[0]); err != nil {
		return nil, nil, nil, a.fail(usagef("%v", err))
	}
	if rb, err = a.readReport(pos[1]); err != nil {
		return nil, nil, nil, a.fail(usagef("%v", err))
	}
	t := ra.Descriptor()
	sig = compare.Runs(compare.Run{Metrics: t.ReadMetrics(ra.Metrics)}, compare.Run{Metrics: t.ReadMetrics(rb.Metrics)},
		compare.Options{Alpha: df.alpha, Unpaired: unpaired})
	return ra, rb, sig, ExitPass
}

// diffSuites loads the suites diff evaluates the two run directories
// with, or says why the runs cannot be paired: not run directories, a
// suite that is gone, a suite that does not load. A suite's errors are
// printed, and stop diff (exit 2), only under --fail-on-worse, which
// needs the tests; otherwise its first error is named in the note.
func (a *App) diffSuites(pos []string, df *diffFlags) (suites [2]*spec.Suite, unpaired string, code int) {
	if !isRunDir(pos[0]) || !isRunDir(pos[1]) {
		return suites, "paired tests need the run directories (their run.json and results.jsonl); with report.json files a proportion gets Newcombe's unpaired interval of its difference and no metric a test or a verdict", ExitPass
	}
	for i, p := range pos {
		path := df.suiteOf(p)
		if i == 1 && path == df.suiteOf(pos[0]) {
			suites[1] = suites[0]
			continue
		}
		if path != "" && !fileExists(path) {
			return suites, fmt.Sprintf("paired tests evaluate the runs' results with their suite, and %s's suite %s is not there (give --suite PATH)", p, path), ExitPass
		}
		if df.failOnWorse {
			if suites[i], code = a.load(path, &df.loadFlags); suites[i] == nil {
				fmt.Fprintf(a.Stderr, "nlutest: diff evaluates %s's results with its suite to pair the runs case by case; fix the suite (or give --suite, --var)\n", p)
				return suites, "", code
			}
			continue
		}
		lf := &df.loadFlags
		s, diags := spec.Load(path, a.ext().LoadOptions(spec.Options{Vars: lf.vars, VarFiles: lf.varFiles, Env: a.Env, AllowOutside: lf.allowOutside}))
		if s == nil || diags.HasErrors() {
			first := "it has errors"
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					first = d.Summary + ": " + d.Detail
					break
				}
			}
			return suites, fmt.Sprintf("paired tests evaluate the runs' results with their suite, and %s's suite %s does not load (%s); nlutest validate shows why", p, path, strings.TrimSuffix(first, ".")), ExitPass
		}
		suites[i] = s
	}
	return suites, "", ExitPass
}

// diffPaired evaluates both run directories with their suites recording
// their units and compares them.
func (a *App) diffPaired(pos []string, suites [2]*spec.Suite, df *diffFlags) (ra, rb *schema.Report, sig *schema.Significance, code int) {
	var metas [2]pipeline.Meta
	for i, p := range pos {
		var err error
		if metas[i], err = pipeline.ReadMeta(p); err != nil {
			return nil, nil, nil, a.fail(usagef("%v", err))
		}
	}
	var gated []string
	var nodes []assert.NodeKey
	for _, s := range suites {
		addrs, ns := assert.ThresholdMetrics(s)
		for _, x := range addrs {
			if !slices.Contains(gated, x) {
				gated = append(gated, x)
			}
		}
		nodes = append(nodes, ns...)
	}
	p := assert.NewPairing(nodes)
	var reps [2]*schema.Report
	var units [2]*assert.Units
	for i, dir := range pos {
		col, rep, code := a.evaluateWith(suites[i], dir, metas[i], p, &df.loadFlags)
		if col == nil {
			return nil, nil, nil, code
		}
		reps[i], units[i] = rep, col.Units()
	}
	t := reps[0].Descriptor()
	sig = compare.Runs(compare.Run{Metrics: t.ReadMetrics(reps[0].Metrics), Units: units[0]},
		compare.Run{Metrics: reps[1].Descriptor().ReadMetrics(reps[1].Metrics), Units: units[1]},
		compare.Options{Alpha: df.alpha, Stats: assert.InferOptions(assert.StatisticsOf(suites[0])), Gated: gated})
	return reps[0], reps[1], sig, ExitPass
}

// suiteOf is the suite diff evaluates the run directory dir with:
// --suite, else the one its report.json was made with (eval --suite and
// merge --suite evaluate a run with another suite than the one it ran
// with), else the one its run.json records.
func (df *diffFlags) suiteOf(dir string) string {
	if df.suite != "" {
		return df.suite
	}
	m, err := pipeline.ReadMeta(dir)
	if err != nil {
		return ""
	}
	if rs := pipeline.ReportedSuite(dir); rs != "" && fileExists(rs) {
		return rs
	}
	return m.Suite
}

// evaluateWith evaluates the run directory dir against s recording its
// units for p; on failure it prints why and returns exit code 2.
func (a *App) evaluateWith(s *spec.Suite, dir string, meta pipeline.Meta, p *assert.Pairing, lf *loadFlags) (*assert.Collector, *schema.Report, int) {
	col, rep, err := pipeline.Evaluate(s, []string{dir}, meta, pipeline.EvalOptions{Families: a.ext().Families, Version: version(), Pairing: p})
	var (
		se *pipeline.SheetError
		re *runner.RecordError
	)
	if errors.As(err, &se) || errors.As(err, &re) {
		return nil, nil, a.fail(err)
	}
	if err != nil {
		if !a.dataDiagnostics(err, s, lf) {
			fmt.Fprintf(a.Stderr, "nlutest: %v\n", err)
		}
		return nil, nil, ExitInvalid
	}
	rep.Tree = s.Tree
	return col, rep, ExitPass
}

// metricList lists every number of a metrics tree for diff.
func metricList(t *schema.Tree, m *schema.Metrics) []reporters.MetricValue {
	var out []reporters.MetricValue
	eachMetric(t, m, func(addr string, v *float64, ratio string, mt *schema.Metric) {
		if r := mt.Ratio; r != nil {
			// Ten digits: sums of fractional scores carry float noise.
			ratio = strconv.FormatFloat(r.Num, 'g', 10, 64) + "/" + strconv.FormatFloat(r.Den, 'g', 10, 64)
		}
		out = append(out, reporters.MetricValue{Addr: addr, Value: v, Ratio: ratio})
	})
	return out
}
