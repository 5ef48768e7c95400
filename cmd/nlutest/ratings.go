package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
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
	items, err := sheetItems(filepath.Join(pos[0], runner.ResultsFile))
	if err != nil {
		return a.fail(err)
	}
	if *rubricPath == "" {
		*rubricPath = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".rubric.csv"
	}
	if err := writeSheet(*out, items, block, n); err != nil {
		return a.fail(err)
	}
	if err := writeRubric(*rubricPath, block); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.Stdout, "wrote %s (%d cases × %d raters) and the rubric %s\n", *out, len(items), n, *rubricPath)
	return ExitPass
}

// sheetItem is one thing to rate: a case, or a whole conversation.
type sheetItem struct {
	id, text, reply string
}

// sheetItems reads the run's results: a single case is an item with its
// utterance and reply; the turns of a conversation make one item, keyed
// by the conversation's script id, with its transcript. Items are sorted
// by id.
func sheetItems(path string) ([]sheetItem, error) {
	var items []sheetItem
	convs := map[string]int{}
	seen := map[string]bool{}
	err := runner.ReadResults(path, func(r *schema.Result) error {
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		reply := r.Reply
		if reply == "" {
			reply = string(r.Response)
		}
		if r.Script == "" {
			items = append(items, sheetItem{id: r.ID, text: r.Text, reply: reply})
			return nil
		}
		i, ok := convs[r.Script]
		if !ok {
			i = len(items)
			convs[r.Script] = i
			items = append(items, sheetItem{id: r.Script})
		}
		it := &items[i]
		it.text += fmt.Sprintf("%d 用户: %s\n%d 助手: %s\n", r.Turn, r.Text, r.Turn, reply)
		it.reply = reply
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the run's results: %w", err)
	}
	for i := range items {
		items[i].text = strings.TrimSuffix(items[i].text, "\n")
	}
	// Results are recorded as calls finish: sort for a stable sheet.
	slices.SortFunc(items, func(a, b sheetItem) int { return strings.Compare(a.id, b.id) })
	return items, nil
}

// writeSheet writes the sheet: case, rater, text, reply, then one empty
// column per dimension; one row per item and rater slot (R1…Rn).
func writeSheet(path string, items []sheetItem, block *spec.Ratings, raters int) error {
	return writeCSV(path, func(w *csv.Writer) error {
		if err := w.Write(append([]string{"case", "rater", "text", "reply"}, block.Dimensions...)); err != nil {
			return err
		}
		empty := make([]string, len(block.Dimensions))
		for _, it := range items {
			for r := 1; r <= raters; r++ {
				if err := w.Write(append([]string{it.id, "R" + strconv.Itoa(r), it.text, it.reply}, empty...)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeRubric writes each dimension's rubric from YD/T 4394.2-2023, in
// Chinese and English.
func writeRubric(path string, block *spec.Ratings) error {
	return writeCSV(path, func(w *csv.Writer) error {
		if err := w.Write([]string{"dimension", "score", "评分准则", "criterion", "source"}); err != nil {
			return err
		}
		for _, d := range block.Dimensions {
			rb := spec.YDTRubrics[d]
			if rb == nil {
				if err := w.Write([]string{d, fmt.Sprintf("1–%d", block.Scale), "（YD/T 4394.2-2023 未给出此维度的评分准则）", "(YD/T 4394.2-2023 gives no rubric for this dimension)", ""}); err != nil {
					return err
				}
				continue
			}
			for _, lv := range rb.Levels {
				if err := w.Write([]string{d, strconv.Itoa(lv.Score), lv.ZH, lv.EN, rb.Source}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeCSV writes a CSV file in UTF-8 with a byte order mark, so
// spreadsheet programs read the Chinese correctly.
func writeCSV(path string, fill func(*csv.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	_, _ = bw.WriteString("\ufeff")
	w := csv.NewWriter(bw)
	err = fill(w)
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
