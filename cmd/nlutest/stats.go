package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/stats"
)

// cmdStats prints the IAO corpus-factory write-up §4.1.6's distributions of a suite: materials
// by tag and level, cases by template, template level, scene, split and
// core / non-core, and the coverage of each schema dimension's values.
func (a *App) cmdStats(args []string) int {
	var lf loadFlags
	fs := newFlagSet(a, "stats", "stats [flags] PATH")
	lf.register(fs)
	format := fs.String("format", "table", "output format: table (console) or markdown")
	split := fs.String("split", "", "count only the cases of split NAME (materials are always counted whole)")
	top := fs.Int("top", 50, "show at most N values per dimension coverage table, most exercised first; 0 shows all")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("stats takes one suite path, got %d", len(pos)))
	}
	if *format != "table" && *format != "markdown" {
		return a.fail(usagef("--format takes table or markdown, not %q", *format))
	}
	if *top < 0 {
		return a.fail(usagef("--top takes a number of values, 0 for all; %d is negative", *top))
	}
	s, code := a.load(pos[0], &lf)
	if s == nil {
		return code
	}
	if *split != "" && s.SplitByName(*split) == nil {
		return a.fail(usagef("the suite has no split %q (splits: %s)", *split, strings.Join(s.SplitNames(), ", ")))
	}
	var warns genWarnings
	st, err := stats.ComputeWith(s, spec.GenOptions{Split: *split, Warn: warns.add})
	a.printWarnings(s, &lf, &warns)
	if err != nil {
		if !a.dataDiagnostics(err, s, &lf) {
			fmt.Fprintf(a.Stderr, "nlutest: generating cases: %s\n", err)
		}
		return ExitInvalid
	}
	v := reporters.StatsView(st, *top)
	var out bytes.Buffer
	if *format == "markdown" {
		err = reporters.MarkdownView(&out, v, reporters.Options{})
	} else {
		err = reporters.ConsoleView(&out, v, reporters.Options{Color: a.useColor(lf.color, a.StdoutTTY)})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: stats: %s\n", err)
		return ExitCannotRun
	}
	if _, err := a.Stdout.Write(out.Bytes()); err != nil && !closedPipe(err) {
		return ExitCannotRun
	}
	return ExitPass
}
