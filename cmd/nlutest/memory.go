package main

import (
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
)

// cmdMemory is `nlutest memory agreement RUN --ratings FILE`: Cohen's
// kappa between the verdicts recorded in a run and people's verdicts on
// the same answers (pipeline.MemoryAgreement), so a team can trust a judge
// before gating on it; reporters.AgreementView lays it out.
func (a *App) cmdMemory(args []string) int {
	if len(args) == 0 || args[0] != "agreement" {
		return a.fail(usagef("memory takes the subcommand agreement: nlutest memory agreement RUN --ratings FILE"))
	}
	fs := newFlagSet(a, "memory agreement", "memory agreement RUN_DIR --ratings FILE")
	ratings := fs.String("ratings", "", "a CSV file with a header row and the columns id (a question turn's id) and verdict (entailed, neutral, contradicted, unanswered)")
	format := fs.String("format", "text", "output: text or markdown")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 || *ratings == "" {
		return a.fail(usagef("memory agreement takes one run directory and --ratings FILE"))
	}
	if *format != "text" && *format != "markdown" {
		return a.fail(usagef("--format takes text or markdown, not %q", *format))
	}
	ag, err := pipeline.MemoryAgreement(pos[0], *ratings)
	if err != nil {
		return a.fail(err)
	}
	v := reporters.AgreementView(ag)
	var out strings.Builder
	if *format == "markdown" {
		err = reporters.MarkdownView(&out, v, reporters.Options{})
	} else {
		err = reporters.ConsoleView(&out, v, reporters.Options{})
	}
	if err != nil {
		return a.fail(err)
	}
	a.Stdout.Write([]byte(out.String()))
	return ExitPass
}
