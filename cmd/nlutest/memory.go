package main

import (
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
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
	return a.writeAgreement(ag, *format)
}

// cmdJudge is `nlutest judge agreement RUN --ratings FILE [--rubric NAME]`:
// Cohen's kappa between a rubric judge's verdicts or scores recorded in a
// run (or its memory verdicts) and people's ratings of the same cases
// (pipeline.JudgeAgreement), laid out by reporters.AgreementView.
func (a *App) cmdJudge(args []string) int {
	if len(args) == 0 || args[0] != "agreement" {
		return a.fail(usagef("judge takes the subcommand agreement: nlutest judge agreement RUN --ratings FILE"))
	}
	fs := newFlagSet(a, "judge agreement", "judge agreement RUN_DIR --ratings FILE [--rubric NAME]")
	ratings := fs.String("ratings", "", "a CSV file with a header row and the columns id (a case's or turn's id), verdict (pass or fail) or score (1-5), and optionally rubric")
	rubric := fs.String("rubric", "", "the rubric compared, when the run has several and the sheet has no rubric column")
	format := fs.String("format", "console", "output: console, markdown or json")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 || *ratings == "" {
		return a.fail(usagef("judge agreement takes one run directory and --ratings FILE"))
	}
	if *format != "console" && *format != "text" && *format != "markdown" && *format != "json" {
		return a.fail(usagef("--format takes console, markdown or json, not %q", *format))
	}
	ag, err := pipeline.JudgeAgreement(pos[0], *ratings, *rubric)
	if err != nil {
		return a.fail(err)
	}
	return a.writeAgreement(ag, *format)
}

// writeAgreement renders an agreement to stdout: console (text),
// Markdown, or the agreement as JSON.
func (a *App) writeAgreement(ag *schema.Agreement, format string) int {
	var out strings.Builder
	var err error
	switch format {
	case "markdown":
		err = reporters.MarkdownView(&out, reporters.AgreementView(ag), reporters.Options{})
	case "json":
		err = reporters.AgreementJSON(&out, ag)
	default:
		err = reporters.ConsoleView(&out, reporters.AgreementView(ag), reporters.Options{})
	}
	if err != nil {
		return a.fail(err)
	}
	a.Stdout.Write([]byte(out.String()))
	return ExitPass
}
