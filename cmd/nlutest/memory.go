package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/spec"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// memoryVerdicts are the verdicts people may give, in the order of the
// agreement table.
var memoryVerdicts = []string{schema.Entailed, schema.Neutral, schema.Contradicted, schema.Unanswered, schema.Unparseable}

// cmdMemory is `nlutest memory agreement RUN --ratings FILE`: Cohen's
// kappa between the verdicts recorded in a run and people's verdicts on
// the same answers, so a team can trust a judge before gating on it.
func (a *App) cmdMemory(args []string) int {
	if len(args) == 0 || args[0] != "agreement" {
		return a.fail(usagef("memory takes the subcommand agreement: nlutest memory agreement RUN --ratings FILE"))
	}
	fs := newFlagSet(a, "memory agreement", "memory agreement RUN_DIR --ratings FILE")
	ratings := fs.String("ratings", "", "a CSV file with a header row and the columns id (a question turn's id) and verdict (entailed, neutral, contradicted, unanswered)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 || *ratings == "" {
		return a.fail(usagef("memory agreement takes one run directory and --ratings FILE"))
	}
	if _, err := pipeline.ReadMeta(pos[0]); err != nil {
		return a.fail(usagef("%v", err))
	}
	judged := map[string]string{}
	err = runner.ReadResults(filepath.Join(pos[0], runner.ResultsFile), func(r *schema.Result) error {
		if r.Verdict != "" {
			judged[r.ID] = r.Verdict
		}
		return nil
	})
	if err != nil {
		return a.fail(errors.New(spec.FileError(err)))
	}
	human, err := readVerdicts(*ratings)
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", err)
		return ExitInvalid
	}
	a.printAgreement(agree(judged, human))
	return ExitPass
}

// verdictRow is one rated answer: its id and verdict, and the line.
type verdictRow struct {
	id, verdict string
	line        int
}

// readVerdicts reads the people's verdicts; a bad row is an error naming
// the file, line and column.
func readVerdicts(path string) ([]verdictRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1:1: cannot read the header row (want the columns id and verdict): %v", path, err)
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
		return nil, fmt.Errorf("%s:1:1: the header row needs the columns id and verdict; it has %q", path, head)
	}
	var out []verdictRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if max(idCol, vCol) >= len(rec) || strings.TrimSpace(rec[idCol]) == "" {
			return nil, fmt.Errorf("%s:%d:1: the row has no id or no verdict", path, line)
		}
		v := strings.ToLower(strings.TrimSpace(rec[vCol]))
		if v == "" {
			continue // not rated yet
		}
		if !slices.Contains(memoryVerdicts, v) {
			_, col := cr.FieldPos(vCol)
			return nil, fmt.Errorf("%s:%d:%d: %q is not a verdict; write one of %s", path, line, col, rec[vCol], strings.Join(memoryVerdicts[:4], ", "))
		}
		out = append(out, verdictRow{id: strings.TrimSpace(rec[idCol]), verdict: v, line: line})
	}
}

// agreement is the judge's verdicts against people's on the same answers.
type agreement struct {
	items, unmatched, agreed int
	kappa                    float64
	// table[i][j] counts answers the judge gave verdict i and people j.
	table [][]int
}

func agree(judged map[string]string, human []verdictRow) agreement {
	ag := agreement{table: make([][]int, len(memoryVerdicts))}
	for i := range ag.table {
		ag.table[i] = make([]int, len(memoryVerdicts))
	}
	var a, b []float64
	for _, h := range human {
		j, ok := judged[h.id]
		if !ok {
			ag.unmatched++
			continue
		}
		ji, hi := slices.Index(memoryVerdicts, j), slices.Index(memoryVerdicts, h.verdict)
		if ji < 0 {
			ji = slices.Index(memoryVerdicts, schema.Unparseable)
		}
		ag.table[ji][hi]++
		a, b = append(a, float64(ji)), append(b, float64(hi))
		ag.items++
		if ji == hi {
			ag.agreed++
		}
	}
	ag.kappa = metrics.CohenKappa(a, b, metrics.WeightNone)
	return ag
}

func (a *App) printAgreement(ag agreement) {
	w := a.Stdout
	fmt.Fprintf(w, "answers rated: %d", ag.items)
	if ag.unmatched > 0 {
		fmt.Fprintf(w, " (%d rated ids are not judged answers of the run)", ag.unmatched)
	}
	fmt.Fprintln(w)
	if ag.items == 0 {
		return
	}
	fmt.Fprintf(w, "agreement: %.3f (%d/%d)\n", float64(ag.agreed)/float64(ag.items), ag.agreed, ag.items)
	if math.IsNaN(ag.kappa) {
		fmt.Fprintln(w, "cohen_kappa: n/a (one verdict throughout)")
	} else {
		fmt.Fprintf(w, "cohen_kappa: %.4f\n", ag.kappa)
	}
	fmt.Fprintf(w, "\n%-14s", "judge \\ people")
	for _, v := range memoryVerdicts {
		fmt.Fprintf(w, " %13s", v)
	}
	fmt.Fprintln(w)
	for i, row := range ag.table {
		fmt.Fprintf(w, "%-14s", memoryVerdicts[i])
		for _, n := range row {
			fmt.Fprintf(w, " %13d", n)
		}
		fmt.Fprintln(w)
	}
}
