package assert

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	return writeTRECQueries(t, candidates, []string{"301", "302", "303"})
}

// writeTRECQueries is writeTREC with the qrels of only the queries
// qrelsQIDs (the run keeps all three).
func writeTRECQueries(t *testing.T, candidates bool, qrelsQIDs []string) (qrels, run string) {
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
		if slices.Contains(qrelsQIDs, qid) {
			for doc, g := range grades[qid] {
				fmt.Fprintf(&q, "%s 0 %s %g\n", qid, doc, g)
			}
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

// loadTrusted loads a suite whose data files sit in a temporary directory
// of their own, outside the suite's (as --allow-outside lets them).
func loadTrusted(t *testing.T, src string) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{AllowOutside: true, SourceKinds: testSourceKinds()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
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
	s := loadTrusted(t, fmt.Sprintf(`suite "trec" {}
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

// trecPair loads a suite whose one ranking block reads the TREC pair at
// the positive grade and returns its metrics.ranking.
func trecPair(t *testing.T, qrels, run string, grade float64) *RankingValue {
	t.Helper()
	s := loadTrusted(t, fmt.Sprintf(`suite "trec" {}
template "t" { text = "x" }
ranking "trec" {
  qrels             = %q
  run               = %q
  positive_grade    = %g
  drop_single_class = false
}`, qrels, run, grade))
	c := NewCollector(s, nil)
	if diags := ImportRankingFiles(c); diags.HasErrors() {
		t.Fatal(diags)
	}
	return rankingOf(t, c)
}

// trecWant is trec_eval's summary line ("all") of a TREC pair.
type trecWant struct {
	numQ                 int
	mAP, rr, p1, ndcg, e float64 // e: tolerance
}

func (w trecWant) check(t *testing.T, name string, v *RankingValue) {
	t.Helper()
	if v.Questions != w.numQ || v.Dropped != 0 || math.Abs(ratio(v.MAP)-w.mAP) > w.e || math.Abs(ratio(v.MRR)-w.rr) > w.e ||
		math.Abs(ratio(v.PAt1)-w.p1) > w.e || math.Abs(ratio(v.NDCG)-w.ndcg) > w.e {
		t.Errorf("%s: questions %d MAP %.12f MRR %.12f P@1 %.12f nDCG %.12f; trec_eval: num_q %d map %v recip_rank %v P_1 %v ndcg %v",
			name, v.Questions, ratio(v.MAP), ratio(v.MRR), ratio(v.PAt1), ratio(v.NDCG), w.numQ, w.mAP, w.rr, w.p1, w.ndcg)
	}
}

// TestTRECRunQueryNotInQrels: a run query the qrels say nothing about is
// left out, as trec_eval leaves out "queries for which there is no
// relevance information" (its usage text). trec_eval's own test data
// (usnistgov/trec_eval @ f425365, test/results.test with only topic 302's
// lines of test/qrels.rel_level, as test/qrels-302.test keeps only 302 of
// test/qrels.test) scores topic 302 alone, as test/out.test.aql prints it
// at -l2: map 0.4175, recip_rank 1.0000, success_1 1.0000, ndcg 0.6617;
// num_q 1. The audit's minimal pair (qrels "1 0 A 2", "1 0 B 0"; run query
// 1: A 0.5, B 0.9; query 2: C, D, unjudged) is trec_eval 10.0-rc3's num_q
// 1, map 0.5, recip_rank 0.5, P_1 0, ndcg 0.630929753571. Before the fix
// the unjudged queries were averaged as 0 (MAP 0.1392, 0.25).
func TestTRECRunQueryNotInQrels(t *testing.T) {
	qrels, run := writeTRECQueries(t, false, []string{"302"})
	trecWant{1, 0.4175, 1, 1, 0.6617, 5e-5}.check(t, "test data, qrels of 302 only", trecPair(t, qrels, run, 2))

	dir := t.TempDir()
	qrels, run = filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	writeFile(t, qrels, "1 0 A 2\n1 0 B 0\n")
	writeFile(t, run, "1 Q0 A 1 0.5 r\n1 Q0 B 2 0.9 r\n2 Q0 C 1 0.8 r\n2 Q0 D 2 0.7 r\n")
	trecWant{1, 0.5, 0.5, 0, 0.630929753571, 1e-12}.check(t, "minimal pair", trecPair(t, qrels, run, 1))
}

// TestTRECUnjudgedAtGradeZero: at positive_grade = 0 (trec_eval -l0) a
// retrieved document the qrels do not grade is not positive (trec_eval
// gives it -1, RELVALUE_NONPOOL), nor is one the qrels grade negative
// (RELVALUE_UNJUDGED); only judged grades ≥ 0 are. References: trec_eval
// 10.0-rc3 (usnistgov/trec_eval @ f425365, built with make, printf raised
// to 12 decimals) run as `trec_eval -l0 -m map -m recip_rank -m P.1 -m
// ndcg` on its test/qrels.rel_level (304 grades -1) and test/results.test
// (762 retrieved documents unjudged); and on the audit's minimal pair
// (qrels "1 0 A 0", "1 0 B 1"; run U 0.9, A 0.5, B 0.1), where counting
// the unjudged U as positive gave MAP 1.5.
func TestTRECUnjudgedAtGradeZero(t *testing.T) {
	qrels, run := writeTREC(t, false)
	trecWant{3, 0.152064777560, 1, 1, 0.389386632932, 1e-9}.check(t, "test data -l0", trecPair(t, qrels, run, 0))
	// -l1 on the same files, the same build: map 0.177379346755,
	// recip_rank 0.406432748538, P_1 0.333333333333.
	trecWant{3, 0.177379346755, 0.406432748538, 1.0 / 3, 0.389386632932, 1e-9}.check(t, "test data -l1", trecPair(t, qrels, run, 1))

	dir := t.TempDir()
	qrels, run = filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	writeFile(t, qrels, "1 0 A 0\n1 0 B 1\n")
	writeFile(t, run, "1 Q0 U 1 0.9 r\n1 Q0 A 2 0.5 r\n1 Q0 B 3 0.1 r\n")
	trecWant{1, 0.583333333333, 0.5, 0, 0.5, 1e-12}.check(t, "minimal pair -l0", trecPair(t, qrels, run, 0))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
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
	s := loadTrusted(t, fmt.Sprintf(`suite "trec" {}
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
	s := loadTrusted(t, fmt.Sprintf(`suite "r" {}
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
	s := loadTrusted(t, fmt.Sprintf(`suite "r" {}
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
