package pipeline

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// MemoryVerdicts are the verdicts people may give a memory answer, in the
// order of the agreement table (unparseable is the judge's alone).
var MemoryVerdicts = []string{schema.Entailed, schema.Neutral, schema.Contradicted, schema.Unanswered, schema.Unparseable}

// MemoryAgreement compares the memory verdicts recorded in the run
// directory dir with people's verdicts on the same answers in the CSV
// file sheet (a header row with the columns id and verdict; an empty
// verdict is a row not rated yet). A bad row is an *InvalidError naming
// the file, line and column.
func MemoryAgreement(dir, sheet string) (*schema.Agreement, error) {
	if _, err := ReadMeta(dir); err != nil {
		return nil, &InvalidError{err.Error()}
	}
	judged := map[string]string{}
	err := runner.ReadResults(filepath.Join(dir, runner.ResultsFile), func(r *schema.Result) error {
		if r.Verdict != "" {
			judged[r.ID] = r.Verdict
		}
		return nil
	})
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	human, err := readVerdicts(sheet)
	if err != nil {
		return nil, err
	}
	ag := assert.Agree(MemoryVerdicts, judged, human)
	ag.Judge, ag.Run, ag.Sheet = "memory judge", dir, sheet
	return ag, nil
}

// readVerdicts reads the people's verdicts through readSheet (the sheet
// reader judge agreement uses); a bad row is an error naming the file,
// line and column.
func readVerdicts(path string) ([]assert.Rating, error) {
	sh, err := readSheet(path, []string{"verdict"}, "")
	if err != nil {
		return nil, err
	}
	out := make([]assert.Rating, 0, len(sh.Rows))
	for _, r := range sh.Rows {
		v := strings.ToLower(r.Value)
		if !slices.Contains(MemoryVerdicts, v) {
			return nil, invalidf("%s:%d:%d: %q is not a verdict; write one of %s", path, r.Line, r.Col, r.Value, strings.Join(MemoryVerdicts[:4], ", "))
		}
		out = append(out, assert.Rating{ID: r.ID, Label: v})
	}
	return out, nil
}
