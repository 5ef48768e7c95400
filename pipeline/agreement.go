package pipeline

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert/metrics"
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
	ag := agree(judged, human)
	ag.Judge, ag.Run, ag.Sheet = "memory judge", dir, sheet
	return ag, nil
}

// verdictRow is one rated answer: its id and verdict, and the line.
type verdictRow struct {
	id, verdict string
	line        int
}

// readVerdicts reads the people's verdicts; a bad row is an error naming
// the file, line and column.
func readVerdicts(path string) ([]verdictRow, error) {
	f, err := spec.OwnFiles.Open("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, &InvalidError{spec.FileError(err)}
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, invalidf("%s:1:1: cannot read the header row (want the columns id and verdict): %v", path, err)
	}
	idCol, vCol := -1, -1
	for i, h := range head {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))) {
		case "id":
			idCol = i
		case "verdict":
			vCol = i
		}
	}
	if idCol < 0 || vCol < 0 {
		return nil, invalidf("%s:1:1: the header row needs the columns id and verdict; it has %q", path, head)
	}
	var out []verdictRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, invalidf("%s: %v", path, err)
		}
		if max(idCol, vCol) >= len(rec) || strings.TrimSpace(rec[idCol]) == "" {
			return nil, invalidf("%s:%d:1: the row has no id or no verdict", path, line)
		}
		v := strings.ToLower(strings.TrimSpace(rec[vCol]))
		if v == "" {
			continue // not rated yet
		}
		if !slices.Contains(MemoryVerdicts, v) {
			_, col := cr.FieldPos(vCol)
			return nil, invalidf("%s:%d:%d: %q is not a verdict; write one of %s", path, line, col, rec[vCol], strings.Join(MemoryVerdicts[:4], ", "))
		}
		out = append(out, verdictRow{id: strings.TrimSpace(rec[idCol]), verdict: v, line: line})
	}
}

// agree tabulates the judge's memory verdicts against people's.
func agree(judged map[string]string, human []verdictRow) *schema.Agreement {
	return agreeOn(MemoryVerdicts, judged, human)
}

// agreeOn tabulates the judge's verdicts against people's over labels,
// the last being what a judge's verdict outside them counts as.
func agreeOn(labels []string, judged map[string]string, human []verdictRow) *schema.Agreement {
	ag := &schema.Agreement{Labels: labels, Table: square(len(labels))}
	var a, b []float64
	for _, h := range human {
		j, ok := judged[h.id]
		if !ok {
			ag.Unmatched++
			continue
		}
		ji, hi := slices.Index(labels, j), slices.Index(labels, h.verdict)
		if ji < 0 {
			ji = len(labels) - 1
		}
		ag.Table[ji][hi]++
		a, b = append(a, float64(ji)), append(b, float64(hi))
		ag.Items++
		if ji == hi {
			ag.Agreed++
		}
	}
	if k := metrics.CohenKappa(a, b, metrics.WeightNone); !math.IsNaN(k) {
		ag.Kappa = &k
	}
	return ag
}
