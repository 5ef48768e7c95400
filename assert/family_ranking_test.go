package assert

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// writeTREC writes trec_eval's own test data (usnistgov/trec_eval v10.0,
// test/qrels.rel_level and test/results.test, as kept in
// metrics/testdata/trec_eval_suite.json) as a qrels and a run file; with
// candidates, the qrels are the reference file's candidates-only variant
// (every judged document is one the run retrieved).
func writeTREC(t *testing.T, candidates bool) (qrels, run string) {
	t.Helper()
	b, err := os.ReadFile("metrics/testdata/trec_eval_suite.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Qrels map[string]map[string]float64 `json:"qrels"`
		Run   map[string][][3]any           `json:"run_docno_score_rank"`
		Cand  struct {
			Grades map[string]map[string]float64 `json:"candidate_grades"`
		} `json:"candidates_only_variant"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	grades := ref.Qrels
	if candidates {
		grades = ref.Cand.Grades
	}
	dir := t.TempDir()
	var q, r strings.Builder
	for _, qid := range []string{"301", "302", "303"} {
		for doc, g := range grades[qid] {
			fmt.Fprintf(&q, "%s 0 %s %g\n", qid, doc, g)
		}
		for _, row := range ref.Run[qid] {
			fmt.Fprintf(&r, "%s Q0 %s %v %v test\n", qid, row[0], row[2], row[1])
		}
	}
	qrels, run = filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	if os.WriteFile(qrels, []byte(q.String()), 0o644) != nil || os.WriteFile(run, []byte(r.String()), 0o644) != nil {
		t.Fatal("cannot write the TREC files")
	}
	return qrels, run
}

func rankingOf(t *testing.T, c *Collector) *RankingValue {
	t.Helper()
	v, _ := c.Metrics().Node.Families["ranking"].(*RankingValue)
	if v == nil {
		t.Fatal("no metrics.ranking")
	}
	return v
}

func ratio(r schema.Ratio) float64 { v, _ := r.Value(); return v }

// TestRankingTRECPair: a ranking block over a TREC qrels and run pair
// needs no target call; its figures equal trec_eval's published output at
// -l2 on trec_eval's own test data (test/out.test.aql: MAP 0.1667, MRR
// 0.3520, P@1 0.3333 over 3 topics) with drop_single_class = false.
func TestRankingTRECPair(t *testing.T) {
	qrels, run := writeTREC(t, false)
	s := loadSuite(t, fmt.Sprintf(`suite "trec" {}
template "t" { text = "x" }
ranking "trec" {
  qrels             = %q
  run               = %q
  positive_grade    = 2
  drop_single_class = false
}`, qrels, run))
	c := NewCollector(s, nil)
	if diags := ImportRankingFiles(c); diags.HasErrors() {
		t.Fatal(diags)
	}
	v := rankingOf(t, c)
	if v.Questions != 3 || v.Dropped != 0 || math.Abs(ratio(v.MAP)-0.1667) > 5e-5 || math.Abs(ratio(v.MRR)-0.3520) > 5e-5 || math.Abs(ratio(v.PAt1)-0.3333) > 5e-5 {
		t.Errorf("metrics.ranking %+v: MAP %.4f MRR %.4f P@1 %.4f; trec_eval -l2: 0.1667 0.3520 0.3333", v.RankFigures, ratio(v.MAP), ratio(v.MRR), ratio(v.PAt1))
	}
	if v.Source["trec"] == nil || v.Source["trec"].Questions != 3 || v.PositiveGrade["2"] == nil {
		t.Errorf("source and positive_grade entries: %v %v", v.Source, v.PositiveGrade)
	}
}

// TestRankingPaperRule: on the candidates-only variant of the same data,
// the paper's rule (the default) drops and counts the questions whose
// candidates are all one class at N: at N = 3 topic 303 (no candidate
// graded 3 or more) is dropped and the means are over 301 and 302 (the
// reference file's means of trec_eval's per-topic values: MAP 0.3231, MRR
// 0.50165, P@1 0.5); at N = 2 none is dropped (MAP 0.2428 as trec_eval).
func TestRankingPaperRule(t *testing.T) {
	qrels, run := writeTREC(t, true)
	s := loadSuite(t, fmt.Sprintf(`suite "trec" {}
template "t" { text = "x" }
ranking "cand" {
  qrels          = %q
  run            = %q
  positive_grade = [3, 2]
}`, qrels, run))
	c := NewCollector(s, nil)
	if diags := ImportRankingFiles(c); diags.HasErrors() {
		t.Fatal(diags)
	}
	v := rankingOf(t, c)
	if v.Questions != 2 || v.Dropped != 1 || math.Abs(ratio(v.MAP)-0.3231) > 1e-4 || math.Abs(ratio(v.MRR)-0.50165) > 1e-4 || ratio(v.PAt1) != 0.5 {
		t.Errorf("N = 3: %+v MAP %.4f MRR %.4f P@1 %.4f", v.RankFigures, ratio(v.MAP), ratio(v.MRR), ratio(v.PAt1))
	}
	if g := v.PositiveGrade["2"]; g == nil || g.Questions != 3 || g.Dropped != 0 || math.Abs(ratio(g.MAP)-0.2428) > 1e-4 {
		t.Errorf("N = 2: %+v", g)
	}
}

// TestRankingScores: one case per (question, candidate); the target's
// scores rank each question's candidates, equal scores in file order, an
// errored call last; single-class questions are dropped and counted.
func TestRankingScores(t *testing.T) {
	dir := t.TempDir()
	data := `{"id": "q1", "query": "你好", "candidates": [{"text": "嗯", "grade": 1}, {"text": "你好呀！", "grade": 5}, {"text": "滚", "grade": 0}]}
{"id": "q2", "query": "讲个笑话", "candidates": [{"text": "好的", "grade": 2}, {"text": "不会", "grade": 1}]}
`
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadSuite(t, fmt.Sprintf(`suite "r" {}
ranking "选择" {
  source         = %q
  score          = response.score
  positive_grade = 4
}`, filepath.Join(dir, "r.jsonl")))
	var gen []*schema.Case
	if err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error { cp := *c; gen = append(gen, &cp); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(gen) != 5 || gen[1].Text != "你好" || gen[1].Candidate != "你好呀！" || gen[1].SourceKind != "ranking" {
		t.Fatalf("cases: %d, second %+v", len(gen), gen[1])
	}
	for _, tc := range []struct {
		name   string
		scores []string // per case; "" = errored call
		p1, rr float64
	}{
		{"positive first", []string{"0.2", "0.9", "0.1", "1", "0"}, 1, 1},
		{"tie: file order", []string{"0.5", "0.5", "0.1", "1", "0"}, 0, 0.5},
		{"errored positive ranks last", []string{"0.5", "", "0.1", "1", "0"}, 0, 1.0 / 3},
	} {
		c := NewCollector(s, nil)
		for i, cs := range gen {
			r := &schema.Result{Case: *cs, Outcome: schema.Pass, Response: json.RawMessage(`{"score": ` + tc.scores[i] + `}`)}
			if tc.scores[i] == "" {
				r.Outcome, r.Response = schema.Error, nil
			}
			c.Add(r, nil)
		}
		v := rankingOf(t, c)
		if v.Questions != 1 || v.Dropped != 1 || ratio(v.PAt1) != tc.p1 || math.Abs(ratio(v.MRR)-tc.rr) > 1e-12 {
			t.Errorf("%s: %+v P@1 %v MRR %v, want %v %v", tc.name, v.RankFigures, ratio(v.PAt1), ratio(v.MRR), tc.p1, tc.rr)
		}
	}
}

// TestRankingOrder: with order = EXPR, one case per question; the
// response lists candidate texts or 0-based indexes, candidates it leaves
// out follow in file order.
func TestRankingOrder(t *testing.T) {
	dir := t.TempDir()
	data := `{"query": "你好", "candidates": [{"text": "嗯", "grade": 1}, {"text": "你好呀！", "grade": 5}, {"text": "滚", "grade": 0}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadSuite(t, fmt.Sprintf(`suite "r" {}
ranking "排序" {
  source = %q
  order  = response.order
}`, filepath.Join(dir, "r.jsonl")))
	var gen []*schema.Case
	if err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error { cp := *c; gen = append(gen, &cp); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(gen) != 1 || len(gen[0].Candidates) != 3 || gen[0].Candidate != "" {
		t.Fatalf("cases: %+v", gen)
	}
	for _, tc := range []struct {
		order string
		rr    float64
	}{
		{`["你好呀！", "嗯", "滚"]`, 1},
		{`[2, 1]`, 0.5},
		{`["滚"]`, 1.0 / 3}, // then 嗯, 你好呀！ in file order
		{`"not a list"`, 0.5},
	} {
		c := NewCollector(s, nil)
		c.Add(&schema.Result{Case: *gen[0], Outcome: schema.Pass, Response: json.RawMessage(`{"order": ` + tc.order + `}`)}, nil)
		if v := rankingOf(t, c); v.Questions != 1 || math.Abs(ratio(v.MRR)-tc.rr) > 1e-12 {
			t.Errorf("order %s: %+v MRR %v, want %v", tc.order, v.RankFigures, ratio(v.MRR), tc.rr)
		}
	}
}
