package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/ratings"
	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
)

// cmdRatings is `nlutest ratings export RUN -o sheet.csv`: the sheet
// people fill in to rate a run's replies, and the rubric beside it
// (ratings.WriteSheet, ratings.WriteRubric).
func (a *App) cmdRatings(args []string) int {
	if len(args) == 0 || args[0] != "export" {
		return a.fail(usagef("ratings takes the subcommand export: nlutest ratings export RUN -o sheet.csv"))
	}
	var lf loadFlags
	fs := newFlagSet(a, "ratings export", "ratings export [flags] RUN_DIR")
	lf.register(fs)
	out := fs.String("o", "", "the sheet to write (CSV, UTF-8 with BOM; required)")
	rubricPath := fs.String("rubric", "", "the rubric file (default: the sheet's name with .rubric.csv)")
	suitePath := fs.String("suite", "", "the suite (default: the one recorded in RUN_DIR/run.json)")
	name := fs.String("ratings", "", "the ratings block whose dimensions and raters the sheet has (default: the suite's first)")
	raters := fs.Int("raters", 0, "rater slots per case (default: the block's raters, else 3)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 || *out == "" {
		return a.fail(usagef("ratings export takes one run directory and -o SHEET.csv"))
	}
	meta, err := pipeline.ReadMeta(pos[0])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	if *suitePath == "" {
		*suitePath = meta.Suite
	}
	s, code := a.load(*suitePath, &lf)
	if s == nil {
		return code
	}
	blocks := sheet.Of(s)
	block := &sheet.Ratings{Dimensions: sheet.YDTDimensions, Raters: 3, Scale: 5}
	if len(blocks) > 0 {
		block = blocks[0]
	}
	if *name != "" {
		i := slices.IndexFunc(blocks, func(r *sheet.Ratings) bool { return r.Name == *name })
		if i < 0 {
			return a.fail(usagef("the suite has no ratings block %q", *name))
		}
		block = blocks[i]
	}
	n := block.Raters
	if *raters > 0 {
		n = *raters
	}
	if *rubricPath == "" {
		*rubricPath = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".rubric.csv"
	}
	if err := checkSheetPaths(pos[0], *out, *rubricPath); err != nil {
		return a.fail(err)
	}
	// Written atomically, like the reports, so a failed export leaves the
	// old file.
	var items int
	err = reporters.WriteFile(*out, func(w io.Writer) (err error) {
		items, err = ratings.WriteSheet(w, filepath.Join(pos[0], runner.ResultsFile), block, n)
		return err
	})
	if err != nil {
		return a.fail(err)
	}
	if err := reporters.WriteFile(*rubricPath, func(w io.Writer) error { return ratings.WriteRubric(w, block) }); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.Stdout, "wrote %s (%d cases × %d raters) and the rubric %s\n", *out, items, n, *rubricPath)
	return ExitPass
}

// checkSheetPaths refuses, before anything is written, a sheet or rubric
// path that is a file of the run directory (results.jsonl, run.json, its
// report.json, the lock: -o RUN/results.jsonl would replace the results),
// a directory or a place that cannot be written, as run and eval refuse
// such report paths; and a rubric that is the sheet.
func checkSheetPaths(runDir, sheet, rubric string) error {
	if absOr(sheet) == absOr(rubric) {
		return usagef("--rubric %s is the sheet -o %s; give the rubric another name", rubric, sheet)
	}
	return checkOutputPaths("sheet", runDir, []string{sheet, rubric}, runner.ResultsFile, pipeline.MetaFile, pipeline.LockFile, pipeline.ReportFile)
}
