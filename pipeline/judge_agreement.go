package pipeline

import (
	"encoding/csv"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// RubricVerdicts are the labels of a pass/fail rubric's agreement table
// (unanswered and unparseable are the judge's alone).
var RubricVerdicts = []string{schema.RubricPass, schema.RubricFail, schema.Unanswered, schema.Unparseable}

// RubricScores are the labels of a scored rubric's agreement table.
var RubricScores = assert.RubricScores

// JudgeAgreement compares a judge's verdicts recorded in the run directory
// dir with people's ratings of the same cases in the CSV file sheet
// (`nlutest judge agreement`, SPEC §14.5). The sheet has a header row with
// the columns id and either verdict or score, and optionally rubric
// (rows of other rubrics are skipped); an empty verdict or score is a row
// not rated yet. rubric names the rubric when the run has several; a run
// without rubrics compares its memory verdicts (MemoryAgreement). With a
// verdict column the judge's pass/fail verdicts are compared, with
// Cohen's kappa unweighted; with a score column its 1–5 scores, with
// Cohen's kappa unweighted and quadratic-weighted (as scikit-learn's
// cohen_kappa_score, weights over the scores' indexes), judgements
// without a score counted apart (Unscored). A bad row is an
// *InvalidError naming the file, line and column.
func JudgeAgreement(dir, sheet, rubric string) (*schema.Agreement, error) {
	if _, err := ReadMeta(dir); err != nil {
		return nil, &InvalidError{err.Error()}
	}
	byRubric := map[string]map[string]schema.RubricVerdict{}
	judges := map[string]string{}
	memory := false
	err := runner.ReadResults(filepath.Join(dir, runner.ResultsFile), func(r *schema.Result) error {
		memory = memory || r.Verdict != ""
		for _, v := range r.Rubrics {
			if v.Verdict == "" {
				continue
			}
			if byRubric[v.Name] == nil {
				byRubric[v.Name] = map[string]schema.RubricVerdict{}
			}
			byRubric[v.Name][r.ID] = v
			if v.Judge != nil {
				judges[v.Name] = v.Judge.Target
			}
		}
		return nil
	})
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	if len(byRubric) == 0 && rubric == "" && memory {
		return MemoryAgreement(dir, sheet)
	}
	sh, err := readSheet(sheet, []string{"verdict", "score"}, "rubric")
	if err != nil {
		return nil, err
	}
	name, err := chooseRubric(byRubric, sh, rubric, sheet)
	if err != nil {
		return nil, err
	}
	judged := byRubric[name]
	var ag *schema.Agreement
	if sh.column == "score" {
		ag, err = agreeScores(judged, sh, name)
	} else {
		ag, err = agreeVerdicts(judged, sh, name)
	}
	if err != nil {
		return nil, err
	}
	ag.Judge = "rubric judge " + strconv.Quote(name)
	if j := judges[name]; j != "" {
		ag.Judge += " (" + j + ")"
	}
	ag.Rubric, ag.Run, ag.Sheet = name, dir, sheet
	return ag, nil
}

// chooseRubric is the rubric compared: the one asked for, else the one
// the sheet's rubric column names, else the run's only one.
func chooseRubric(byRubric map[string]map[string]schema.RubricVerdict, sh *sheetRows, rubric, path string) (string, error) {
	names := make([]string, 0, len(byRubric))
	for n := range byRubric {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "", invalidf("the run has no rubric verdicts (and no memory verdicts) to compare with %s; run a suite with rubric blocks first", path)
	}
	if rubric == "" {
		rated := map[string]bool{}
		for _, r := range sh.rows {
			if r.rubric != "" {
				rated[r.rubric] = true
			}
		}
		switch {
		case len(rated) == 1:
			for n := range rated {
				rubric = n
			}
		case len(rated) == 0 && len(names) == 1:
			rubric = names[0]
		default:
			return "", invalidf("the run has the rubrics %s; name the one %s rates with --rubric NAME", strings.Join(quoteAll(names), ", "), path)
		}
	}
	if _, ok := byRubric[rubric]; !ok {
		return "", invalidf("the run has no verdicts of rubric %q; it has %s", rubric, strings.Join(quoteAll(names), ", "))
	}
	sh.keep(rubric)
	return rubric, nil
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// agreeVerdicts tabulates a rubric's pass/fail verdicts against people's.
func agreeVerdicts(judged map[string]schema.RubricVerdict, sh *sheetRows, name string) (*schema.Agreement, error) {
	m := map[string]string{}
	for id, v := range judged {
		m[id] = v.Verdict
	}
	var human []assert.Rating
	for _, r := range sh.rows {
		v := strings.ToLower(r.value)
		if pv, ok := spec.ParseRubricVerdict(v); ok {
			v = pv
		}
		if v != schema.RubricPass && v != schema.RubricFail {
			return nil, invalidf("%s:%d:%d: %q is not a verdict; write pass or fail", sh.path, r.line, r.col, r.value)
		}
		human = append(human, assert.Rating{ID: r.id, Label: v})
	}
	return assert.Agree(RubricVerdicts, m, human), nil
}

// agreeScores checks people's 1–5 scores of a scored rubric and
// tabulates the judge's against them (assert.AgreeScores).
func agreeScores(judged map[string]schema.RubricVerdict, sh *sheetRows, name string) (*schema.Agreement, error) {
	m := map[string]int{}
	anyScore := false
	for id, v := range judged {
		m[id] = v.Score
		anyScore = anyScore || v.Score > 0
	}
	if !anyScore && len(judged) > 0 {
		return nil, invalidf("%s: rubric %q gives pass or fail, not scores (it has no pass condition); rate it in a verdict column", sh.path, name)
	}
	human := make([]assert.Rating, 0, len(sh.rows))
	for _, r := range sh.rows {
		s, ok := spec.ParseRubricScore(r.value)
		if !ok {
			return nil, invalidf("%s:%d:%d: %q is not a score; write a whole number from 1 to 5", sh.path, r.line, r.col, r.value)
		}
		human = append(human, assert.Rating{ID: r.id, Label: strconv.Itoa(s)})
	}
	return assert.AgreeScores(m, human), nil
}

// sheetRows are the rated rows of a ratings sheet.
type sheetRows struct {
	path string
	// column is the rating column found (one of the wanted).
	column string
	rows   []sheetRow
}

type sheetRow struct {
	id, rubric, value string
	line, col         int
}

// keep drops the rows that rate another rubric than name.
func (sh *sheetRows) keep(name string) {
	sh.rows = slices.DeleteFunc(sh.rows, func(r sheetRow) bool { return r.rubric != "" && r.rubric != name })
}

// readSheet reads a CSV ratings sheet: a header row with id, one of the
// rating columns (the first found in order) and the optional column,
// then the rated rows (a row with an empty rating is not rated yet).
func readSheet(path string, ratings []string, optional string) (*sheetRows, error) {
	f, err := spec.OwnFiles.Open("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, &InvalidError{spec.FileError(err)}
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	want := "the columns id and " + strings.Join(ratings, " or ")
	head, err := cr.Read()
	if err != nil {
		return nil, invalidf("%s:1:1: cannot read the header row (want %s): %v", path, want, err)
	}
	cols := map[string]int{}
	for i, h := range head {
		k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := cols[k]; !dup {
			cols[k] = i
		}
	}
	sh := &sheetRows{path: path}
	idCol, ok := cols["id"]
	vCol := -1
	for _, c := range ratings {
		if i, found := cols[c]; found && vCol < 0 {
			vCol, sh.column = i, c
		}
	}
	if !ok || vCol < 0 {
		return nil, invalidf("%s:1:1: the header row needs %s; it has %q", path, want, head)
	}
	optCol, hasOpt := cols[optional]
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return sh, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, invalidf("%s: %v", path, err)
		}
		if max(idCol, vCol) >= len(rec) || strings.TrimSpace(rec[idCol]) == "" {
			return nil, invalidf("%s:%d:1: the row has no id or no %s", path, line, sh.column)
		}
		v := strings.TrimSpace(rec[vCol])
		if v == "" {
			continue
		}
		_, col := cr.FieldPos(vCol)
		row := sheetRow{id: strings.TrimSpace(rec[idCol]), value: v, line: line, col: col}
		if hasOpt && optCol < len(rec) {
			row.rubric = strings.TrimSpace(rec[optCol])
		}
		sh.rows = append(sh.rows, row)
	}
}
