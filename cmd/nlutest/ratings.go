package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/internal/csvcell"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/spec"
)

// cmdRatings is `nlutest ratings export RUN -o sheet.csv`: the sheet
// people fill in to rate a run's replies, and the rubric beside it.
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
	block := &spec.Ratings{Dimensions: spec.YDTDimensions, Raters: 3, Scale: 5}
	if len(s.Ratings) > 0 {
		block = s.Ratings[0]
	}
	if *name != "" {
		i := slices.IndexFunc(s.Ratings, func(r *spec.Ratings) bool { return r.Name == *name })
		if i < 0 {
			return a.fail(usagef("the suite has no ratings block %q", *name))
		}
		block = s.Ratings[i]
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
	items, err := writeSheet(*out, filepath.Join(pos[0], runner.ResultsFile), block, n)
	if err != nil {
		return a.fail(err)
	}
	if err := writeRubric(*rubricPath, block); err != nil {
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

// writeSheet writes the sheet of the run's results file (atomically: a
// temporary file renamed into place) and returns how many items it has:
// case, rater, text, reply, one empty column per dimension, then
// reply_sha; one row per item and rater slot (R1…Rn). Items are read one
// at a time (pipeline.ReadSheetItems); every cell is cut to the
// spreadsheet cell limit (csvcell.MaxCell) and neutralised so that no cell
// begins with a formula character (csvcell.Neutral).
func writeSheet(path, results string, block *spec.Ratings, raters int) (int, error) {
	items := 0
	err := writeCSV(path, func(w *csv.Writer) error {
		header := slices.Concat([]string{"case", "rater", "text", "reply"}, block.Dimensions, []string{spec.ReplyDigestColumn})
		if err := writeCells(w, header); err != nil {
			return err
		}
		row := make([]string, len(header))
		var err error
		items, err = pipeline.ReadSheetItems(results, csvcell.MaxCell, csvcell.Cut, func(it *pipeline.SheetItem) error {
			row[0], row[2], row[3], row[len(row)-1] = it.ID, it.Text, it.Reply, it.Digest
			for r := 1; r <= raters; r++ {
				row[1] = "R" + strconv.Itoa(r)
				if err := writeCells(w, row); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	return items, err
}

// writeCells writes one CSV row, each cell cut to csvcell.MaxCell and
// neutralised (csvcell.Cell).
func writeCells(w *csv.Writer, row []string) error {
	cells := make([]string, len(row))
	for i, c := range row {
		cells[i] = csvcell.Cell(c, csvcell.MaxCell)
	}
	return w.Write(cells)
}

// writeRubric writes each dimension's rubric from YD/T 4394.2-2023, in
// Chinese and English.
func writeRubric(path string, block *spec.Ratings) error {
	return writeCSV(path, func(w *csv.Writer) error {
		if err := writeCells(w, []string{"dimension", "score", "评分准则", "criterion", "source"}); err != nil {
			return err
		}
		for _, d := range block.Dimensions {
			rb := spec.YDTRubrics[d]
			if rb == nil {
				if err := writeCells(w, []string{d, fmt.Sprintf("1–%d", block.Scale), "（YD/T 4394.2-2023 未给出此维度的评分准则）", "(YD/T 4394.2-2023 gives no rubric for this dimension)", ""}); err != nil {
					return err
				}
				continue
			}
			for _, lv := range rb.Levels {
				if err := writeCells(w, []string{d, strconv.Itoa(lv.Score), lv.ZH, lv.EN, rb.Source}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeCSV writes a CSV file in UTF-8 with a byte order mark, so
// spreadsheet programs read the Chinese correctly; atomically, like the
// reports (reporters.WriteFile), so a failed export leaves the old file.
func writeCSV(path string, fill func(*csv.Writer) error) error {
	return reporters.WriteFile(path, func(out io.Writer) error {
		if _, err := io.WriteString(out, "\ufeff"); err != nil {
			return err
		}
		w := csv.NewWriter(out)
		err := fill(w)
		w.Flush()
		if err == nil {
			err = w.Error()
		}
		return err
	})
}
