package pipeline

import (
	"errors"
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

// readVerdicts reads the people's verdicts through readSheet (the sheet
// reader judge agreement uses); a bad row is an error naming the file,
// line and column.
func readVerdicts(path string) ([]verdictRow, error) {
	sh, err := readSheet(path, []string{"verdict"}, "")
	if err != nil {
		return nil, err
	}
	out := make([]verdictRow, 0, len(sh.rows))
	for _, r := range sh.rows {
		v := strings.ToLower(r.value)
		if !slices.Contains(MemoryVerdicts, v) {
			return nil, invalidf("%s:%d:%d: %q is not a verdict; write one of %s", path, r.line, r.col, r.value, strings.Join(MemoryVerdicts[:4], ", "))
		}
		out = append(out, verdictRow{id: r.id, verdict: v, line: r.line})
	}
	return out, nil
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
