package ratings

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/nlutest/nlutest/internal/csvcell"
	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/spec/rubric"
)

// WriteSheet writes the rating sheet of a run's results file to w (CSV,
// UTF-8 with a byte order mark, so spreadsheet programs read the Chinese
// correctly) and returns how many items it has: case, rater, text, reply,
// one empty column per dimension, then reply_sha; one row per item and
// rater slot (R1…Rn). Items are read one at a time (ReadSheetItems); every
// cell is cut to the spreadsheet cell limit (csvcell.MaxCell) and
// neutralised so that no cell begins with a formula character
// (csvcell.Cell).
func WriteSheet(w io.Writer, results string, block *sheet.Ratings, raters int) (int, error) {
	items := 0
	err := writeCSV(w, func(cw *csv.Writer) error {
		header := slices.Concat([]string{"case", "rater", "text", "reply"}, block.Dimensions, []string{sheet.ReplyDigestColumn})
		if err := writeCells(cw, header); err != nil {
			return err
		}
		row := make([]string, len(header))
		var err error
		items, err = ReadSheetItems(results, csvcell.MaxCell, csvcell.Cut, func(it *SheetItem) error {
			row[0], row[2], row[3], row[len(row)-1] = it.ID, it.Text, it.Reply, it.Digest
			for r := 1; r <= raters; r++ {
				row[1] = "R" + strconv.Itoa(r)
				if err := writeCells(cw, row); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	return items, err
}

// WriteRubric writes each dimension's rubric from YD/T 4394.2-2023, in
// Chinese and English, as the sheet is written.
func WriteRubric(w io.Writer, block *sheet.Ratings) error {
	return writeCSV(w, func(cw *csv.Writer) error {
		if err := writeCells(cw, []string{"dimension", "score", "评分准则", "criterion", "source"}); err != nil {
			return err
		}
		for _, d := range block.Dimensions {
			rb := rubric.YDT[d]
			if rb == nil {
				if err := writeCells(cw, []string{d, fmt.Sprintf("1–%d", block.Scale), "（YD/T 4394.2-2023 未给出此维度的评分准则）", "(YD/T 4394.2-2023 gives no rubric for this dimension)", ""}); err != nil {
					return err
				}
				continue
			}
			for _, lv := range rb.Levels {
				if err := writeCells(cw, []string{d, strconv.Itoa(lv.Score), lv.ZH, lv.EN, rb.Source}); err != nil {
					return err
				}
			}
		}
		return nil
	})
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

// writeCSV writes a byte order mark, then the rows fill writes.
func writeCSV(out io.Writer, fill func(*csv.Writer) error) error {
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
}
