package main

import (
	"bytes"
	"fmt"

	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
)

// cmdDiff compares two runs: metric deltas, thresholds that changed, and
// the cases that flipped.
func (a *App) cmdDiff(args []string) int {
	fs := newFlagSet(a, "diff", "diff [flags] RUN_A RUN_B")
	format := fs.String("format", "text", "output: text or markdown")
	all := fs.Bool("all", false, "list unchanged metrics too")
	maxCases := fs.Int("max-cases", 50, "flipped cases listed per direction (0 = all)")
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
	ra, err := readReport(pos[0])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	rb, err := readReport(pos[1])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	v := reporters.DiffView(ra, rb, reporters.DiffOptions{NameA: pos[0], NameB: pos[1], All: *all, MaxCases: *maxCases,
		Metrics: metricList})
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
	if _, err := a.Stdout.Write(out.Bytes()); err != nil {
		return ExitCannotRun
	}
	return ExitPass
}

// metricList lists every number of a metrics tree for diff.
func metricList(m *schema.Metrics) []reporters.MetricValue {
	var out []reporters.MetricValue
	eachMetric(m, func(addr string, v *float64, ratio string) {
		out = append(out, reporters.MetricValue{Addr: addr, Value: v, Ratio: ratio})
	})
	return out
}
