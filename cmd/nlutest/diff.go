package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
)

// cmdDiff compares two runs: thresholds that changed, the cases that
// flipped, then metric deltas; with --fail-on-worse it gates on B not
// being worse than A.
func (a *App) cmdDiff(args []string) int {
	fs := newFlagSet(a, "diff", "diff [flags] RUN_A RUN_B")
	format := fs.String("format", "text", "output: text or markdown")
	all := fs.Bool("all", false, "list unchanged metrics too")
	maxCases := fs.Int("max-cases", 50, "flipped cases listed per direction (0 = all)")
	htmlFile := fs.String("html", "", "also write the diff as a self-contained HTML page to FILE")
	failOnWorse := fs.Bool("fail-on-worse", false, "exit 1 when a case went from pass to fail/error or a threshold stopped passing")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 2 {
		return a.fail(usagef("diff takes two runs (directories or report.json files), got %d", len(pos)))
	}
	if *format != "text" && *format != "markdown" {
		return a.fail(usagef("--format takes text or markdown, not %q", *format))
	}
	ra, err := a.readReport(pos[0])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	rb, err := a.readReport(pos[1])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	v := reporters.DiffView(ra, rb, reporters.DiffOptions{NameA: pos[0], NameB: pos[1], All: *all, MaxCases: *maxCases,
		Metrics: func(m *schema.Metrics) []reporters.MetricValue { return metricList(ra.Descriptor(), m) }})
	var out bytes.Buffer
	if *format == "markdown" {
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
	if *htmlFile != "" {
		if err := reporters.WriteFile(*htmlFile, func(w io.Writer) error { return reporters.HTMLView(w, v, reporters.Options{}) }); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: cannot write html diff %s: %s\n", *htmlFile, err)
			return ExitCannotRun
		}
		fmt.Fprintf(a.Stderr, "Reports: html → %s\n", *htmlFile)
	}
	if *failOnWorse {
		worse, failing := reporters.Regressions(ra, rb)
		if worse > 0 || len(failing) > 0 {
			fmt.Fprintf(a.Stderr, "nlutest: B is worse than A: %d %s went from pass to fail or error, %d %s stopped passing\n",
				worse, "case"+plural(worse), len(failing), "threshold"+plural(len(failing)))
			return ExitFail
		}
	}
	return ExitPass
}

// metricList lists every number of a metrics tree for diff.
func metricList(t *schema.Tree, m *schema.Metrics) []reporters.MetricValue {
	var out []reporters.MetricValue
	eachMetric(t, m, func(addr string, v *float64, ratio string, _ *schema.Metric) {
		out = append(out, reporters.MetricValue{Addr: addr, Value: v, Ratio: ratio})
	})
	return out
}
