package pipeline

import (
	"errors"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/rubric"
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
	if sh.Column == "score" {
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
func chooseRubric(byRubric map[string]map[string]schema.RubricVerdict, sh *sheet.Verdicts, rubric, path string) (string, error) {
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
		for _, r := range sh.Rows {
			if r.Rubric != "" {
				rated[r.Rubric] = true
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
	sh.Keep(rubric)
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
func agreeVerdicts(judged map[string]schema.RubricVerdict, sh *sheet.Verdicts, name string) (*schema.Agreement, error) {
	m := map[string]string{}
	for id, v := range judged {
		m[id] = v.Verdict
	}
	var human []assert.Rating
	for _, r := range sh.Rows {
		v := strings.ToLower(r.Value)
		if pv, ok := rubric.ParseVerdict(v); ok {
			v = pv
		}
		if v != schema.RubricPass && v != schema.RubricFail {
			return nil, invalidf("%s:%d:%d: %q is not a verdict; write pass or fail", sh.Path, r.Line, r.Col, r.Value)
		}
		human = append(human, assert.Rating{ID: r.ID, Label: v})
	}
	return assert.Agree(RubricVerdicts, m, human), nil
}

// agreeScores checks people's 1–5 scores of a scored rubric and
// tabulates the judge's against them (assert.AgreeScores).
func agreeScores(judged map[string]schema.RubricVerdict, sh *sheet.Verdicts, name string) (*schema.Agreement, error) {
	m := map[string]int{}
	anyScore := false
	for id, v := range judged {
		m[id] = v.Score
		anyScore = anyScore || v.Score > 0
	}
	if !anyScore && len(judged) > 0 {
		return nil, invalidf("%s: rubric %q gives pass or fail, not scores (it has no pass condition); rate it in a verdict column", sh.Path, name)
	}
	human := make([]assert.Rating, 0, len(sh.Rows))
	for _, r := range sh.Rows {
		s, ok := rubric.ParseScore(r.Value)
		if !ok {
			return nil, invalidf("%s:%d:%d: %q is not a score; write a whole number from 1 to 5", sh.Path, r.Line, r.Col, r.Value)
		}
		human = append(human, assert.Rating{ID: r.ID, Label: strconv.Itoa(s)})
	}
	return assert.AgreeScores(m, human), nil
}

// readSheet reads people's agreement sheet (sheet.ReadVerdicts); a
// mistake in it is a refusal of the request.
func readSheet(path string, ratings []string, optional string) (*sheet.Verdicts, error) {
	v, err := sheet.ReadVerdicts(path, ratings, optional)
	if err != nil {
		return nil, &InvalidError{err.Error()}
	}
	return v, nil
}
