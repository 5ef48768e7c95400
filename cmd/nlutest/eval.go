package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// reportFlags are the report flags shared by run, eval and merge.
func (rf *runFlags) registerReports(fs *flag.FlagSet) {
	rf.loadFlags.register(fs)
	fs.Var(&rf.junit, "report-junit", "write a JUnit XML report to FILE (repeatable)")
	fs.Var(&rf.markdown, "report-markdown", "write a Markdown report to FILE (repeatable)")
	fs.Var(&rf.jsonReports, "report-json", "write the JSON report to FILE (repeatable)")
	fs.BoolVar(&rf.quiet, "quiet", false, "print only the verdict line")
	fs.BoolVar(&rf.junitCases, "junit-cases", false, "in a suite with thresholds, also list every case in JUnit")
	fs.IntVar(&rf.maxFailures, "max-failures", 0, "failing cases listed in console and Markdown (default 20 and 50)")
	fs.StringVar(&rf.baseline, "baseline", "", "compare with an earlier run (directory or report.json)")
	fs.BoolVar(&rf.unreviewed, "include-unreviewed", false, "count cases of unreviewed templates in metrics and thresholds")
}

// cmdEval recomputes expectations, metrics, thresholds and reports of a
// saved run from its results, with the suite as it is now, offline.
func (a *App) cmdEval(_ context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "eval", "eval [flags] RUN_DIR")
	rf.registerReports(fs)
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
		listMetrics(a.Stdout, rep.Metrics)
		return ExitPass
	}
	return a.finishOffline(rep, &rf, runDir)
}

// evaluateRuns re-evaluates the results of one or more run directories
// against s and builds the report; on failure it prints why and returns
// exit code 2.
func (a *App) evaluateRuns(s *spec.Suite, dirs []string, meta pipeline.Meta, rf *runFlags) (*assert.Collector, *schema.Report, int) {
	col, rep, err := pipeline.Evaluate(s, dirs, meta, pipeline.EvalOptions{IncludeUnreviewed: rf.unreviewed, Version: version()})
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: %v\n", err)
		return nil, nil, ExitInvalid
	}
	return col, rep, ExitPass
}

// finishOffline prints and writes the reports of an offline evaluation.
func (a *App) finishOffline(rep *schema.Report, rf *runFlags, runDir string) int {
	var baseline *schema.Report
	if rf.baseline != "" {
		var err error
		if baseline, err = readReport(rf.baseline); err != nil {
			return a.fail(usagef("--baseline: %v", err))
		}
	}
	return a.writeReports(rep, rf, runDir, baseline)
}

// cmdMerge joins shard runs into one run directory and reports on it.
func (a *App) cmdMerge(_ context.Context, args []string) int {
	var rf runFlags
	fs := newFlagSet(a, "merge", "merge --out DIR [flags] RUN_DIR...")
	rf.registerReports(fs)
	out := fs.String("out", "", "the merged run directory (required)")
	suitePath := fs.String("suite", "", "the suite (default: the one recorded in the first run)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) == 0 || *out == "" {
		return a.fail(usagef("merge takes --out DIR and one or more run directories"))
	}
	metas, err := pipeline.ReadShards(pos)
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
	meta, n, err := pipeline.Merge(*out, pos, metas)
	if err != nil {
		return a.fail(err)
	}
	_, rep, code := a.evaluateRuns(s, []string{*out}, meta, &rf)
	if rep == nil {
		return code
	}
	fmt.Fprintf(a.Stderr, "nlutest: merged %d results from %d runs into %s\n", n, len(pos), *out)
	return a.finishOffline(rep, &rf, *out)
}

// eachMetric calls fn for every number of the metrics tree, with its
// address (metrics.split.smoke.accuracy, metrics.scene["出行/天气"].accuracy),
// its value (nil without data) and, for ratios, "num/den".
func eachMetric(m *schema.Metrics, fn func(addr string, v *float64, ratio string)) {
	if m == nil {
		return
	}
	val, idx := assert.MetricsValue(m)
	var walk func(path string, v cty.Value)
	walk = func(path string, v cty.Value) {
		ty := v.Type()
		switch {
		case ty.IsObjectType():
			for k := range ty.AttributeTypes() {
				p := path + "." + k
				if !isIdent(k) {
					p = fmt.Sprintf("%s[%q]", path, k)
				}
				walk(p, v.GetAttr(k))
			}
		case ty == cty.Number:
			var f *float64
			if !v.IsNull() {
				x, _ := v.AsBigFloat().Float64()
				f = &x
			}
			ratio := ""
			if r, ok := idx[canonicalMetricAddr(path)]; ok {
				ratio = fmt.Sprintf("%g/%g", r.Num, r.Den)
			}
			fn(path, f, ratio)
		}
	}
	walk("metrics", val)
}

// listMetrics prints every metric of the tree as `address = value (num/den)`.
func listMetrics(w io.Writer, m *schema.Metrics) {
	var lines []string
	eachMetric(m, func(addr string, v *float64, ratio string) {
		line := addr + " = null (no data)"
		if v != nil {
			line = fmt.Sprintf("%s = %.6g", addr, *v)
		}
		if ratio != "" {
			line += " (" + ratio + ")"
		}
		lines = append(lines, line)
	})
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// canonicalMetricAddr maps metrics.split.smoke.accuracy to the index form
// metrics.split["smoke"].accuracy that MetricsValue uses for ratios.
func canonicalMetricAddr(p string) string {
	parts := strings.Split(p, ".")
	var b strings.Builder
	b.WriteString(parts[0])
	keyed := map[string]bool{"split": true, "level": true, "scene": true, "template": true, "values": true, "labels": true}
	for i := 1; i < len(parts); i++ {
		if keyed[parts[i-1]] && (parts[i-1] == "values" || parts[i-1] == "labels" || i == 2) {
			fmt.Fprintf(&b, "[%q]", parts[i])
			continue
		}
		b.WriteString("." + parts[i])
	}
	return b.String()
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' || r > 127) {
			return false
		}
	}
	return s != ""
}
