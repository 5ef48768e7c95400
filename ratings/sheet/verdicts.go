package sheet

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nlutest/nlutest/spec"
)

// Verdicts are the rated rows of an agreement sheet: people's verdicts or
// scores of a run's judged cases, as `nlutest judge agreement` reads them
// (a CSV file with a header row naming an id column, one of the rating
// columns asked for and optionally a rubric column).
type Verdicts struct {
	Path string
	// Column is the rating column found: the first of those asked for.
	Column string
	Rows   []VerdictRow
}

// VerdictRow is one rated row: the case id, the rubric it rates (empty
// when the sheet has no such column), the rating as written and where
// the rating's cell is.
type VerdictRow struct {
	ID, Rubric, Value string
	Line, Col         int
}

// Keep drops the rows that rate another rubric than name.
func (v *Verdicts) Keep(name string) {
	v.Rows = slices.DeleteFunc(v.Rows, func(r VerdictRow) bool { return r.Rubric != "" && r.Rubric != name })
}

// ReadVerdicts reads an agreement sheet: a header row with id, one of
// the rating columns (the first found in order; headers are matched
// without case, spaces or a byte-order mark) and the optional column, then
// the rated rows (a row with an empty rating is not rated yet). A mistake
// is an error naming the file, line and column.
func ReadVerdicts(path string, ratings []string, optional string) (*Verdicts, error) {
	f, err := spec.OwnFiles.Open("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	lines := &lineIndex{data: data, line: 1}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	want := "the columns id and " + strings.Join(ratings, " or ")
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1:1: cannot read the header row (want %s): %v", path, want, err)
	}
	cols := map[string]int{}
	for i, h := range head {
		k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := cols[k]; !dup {
			cols[k] = i
		}
	}
	v := &Verdicts{Path: path}
	idCol, ok := cols["id"]
	vCol := -1
	for _, c := range ratings {
		if i, found := cols[c]; found && vCol < 0 {
			vCol, v.Column = i, c
		}
	}
	if !ok || vCol < 0 {
		return nil, fmt.Errorf("%s:1:1: the header row needs %s; it has %q", path, want, head)
	}
	optCol, hasOpt := cols[optional]
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return v, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %v; fix the row (a quote inside a cell is written twice)", path, pe.Line, lines.charColumn(pe.Line, pe.Column), pe.Err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		if max(idCol, vCol) >= len(rec) || strings.TrimSpace(rec[idCol]) == "" {
			return nil, fmt.Errorf("%s:%d:1: the row has no id or no %s", path, line, v.Column)
		}
		rating := strings.TrimSpace(rec[vCol])
		if rating == "" {
			continue
		}
		vLine, col := cr.FieldPos(vCol)
		row := VerdictRow{ID: strings.TrimSpace(rec[idCol]), Value: rating, Line: vLine, Col: lines.charColumn(vLine, col)}
		if hasOpt && optCol < len(rec) {
			row.Rubric = strings.TrimSpace(rec[optCol])
		}
		v.Rows = append(v.Rows, row)
	}
}

// lineIndex turns the byte columns encoding/csv gives into the character
// columns a message shows, walking the sheet's lines forward (rows come in
// order, so the walk is once over the file).
type lineIndex struct {
	data []byte
	// line is the line that starts at byte off.
	line, off int
}

func (ix *lineIndex) charColumn(line, byteCol int) int {
	for ix.line < line {
		nl := bytes.IndexByte(ix.data[ix.off:], '\n')
		if nl < 0 {
			break
		}
		ix.off += nl + 1
		ix.line++
	}
	if ix.line != line || byteCol < 1 {
		return byteCol
	}
	end := min(ix.off+byteCol-1, len(ix.data))
	return utf8.RuneCount(ix.data[ix.off:end]) + 1
}
