package metrics

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// trecSuite is testdata/trec_eval_suite.json: trec_eval's own test data
// (usnistgov/trec_eval v10.0, test/qrels.rel_level and test/results.test,
// NIST public-service notice) with trec_eval's published and computed
// outputs.
type trecSuite struct {
	Qrels     map[string]map[string]float64 `json:"qrels"`
	Run       map[string][][3]any           `json:"run_docno_score_rank"`
	Published struct {
		Values map[string]map[string]float64 `json:"values"`
	} `json:"expected_published_l2"`
	Computed   map[string]any `json:"expected_computed"`
	Candidates struct {
		Grades    map[string]map[string]float64            `json:"candidate_grades"`
		AllQ      map[string]map[string]map[string]float64 `json:"trec_eval_all_queries"`
		PaperDrop map[string]struct {
			Kept  []string            `json:"kept_queries"`
			Means map[string]*float64 `json:"mean_of_trec_eval_per_query_4dp_values"`
		} `json:"paper_rule_drop_single_class"`
	} `json:"candidates_only_variant"`
}

func loadTrec(t *testing.T) *trecSuite {
	t.Helper()
	b, err := os.ReadFile("testdata/trec_eval_suite.json")
	if err != nil {
		t.Fatal(err)
	}
	var s trecSuite
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// trecRanking ranks a query of the run as trec_eval does: by score, ties
// by docno descending (Index is the docno's place in descending order).
func trecRanking(s *trecSuite, q string, grades map[string]float64) []float64 {
	rows := s.Run[q]
	docs := make([]string, len(rows))
	for i, r := range rows {
		docs[i] = r[0].(string)
	}
	slices.Sort(docs)
	slices.Reverse(docs)
	c := make([]Ranked, len(rows))
	for i, r := range rows {
		c[i] = Ranked{Grade: grades[r[0].(string)], Score: r[1].(float64), Index: slices.Index(docs, r[0].(string))}
	}
	SortByScore(c)
	out := make([]float64, len(c))
	for i := range c {
		out[i] = c[i].Grade
	}
	return out
}

func near4(a, b float64) bool { return math.Abs(a-b) < 5e-5 }

// TestTrecEvalL2 reproduces trec_eval's published output for its own test
// data at -l2 (test/out.test.aql in usnistgov/trec_eval v10.0): MAP
// 0.1667, MRR 0.3520, P@1 0.3333 over the three topics, and each topic's
// figures; AP's denominator is every judged relevant document, retrieved
// or not.
func TestTrecEvalL2(t *testing.T) {
	s := loadTrec(t)
	acc := RankAcc{}
	for _, q := range []string{"301", "302", "303"} {
		rel := 0
		var ideal []float64
		for _, g := range s.Qrels[q] {
			if g >= 2 {
				rel++
			}
			ideal = append(ideal, g)
		}
		qs := ScoreQuestion(trecRanking(s, q, s.Qrels[q]), 2, rel, ideal)
		want := s.Published.Values[q]
		if !near4(round4(qs.AP), want["map"]) || !near4(round4(qs.RR), want["recip_rank"]) || qs.P1 != want["success_1"] {
			t.Errorf("topic %s: AP %.4f RR %.4f P@1 %v; trec_eval: %v", q, qs.AP, qs.RR, qs.P1, want)
		}
		acc.Add(qs)
	}
	all := s.Published.Values["all"]
	n := float64(acc.Questions)
	if acc.Questions != 3 || !near4(round4(acc.AP/n), all["map"]) || !near4(round4(acc.RR/n), all["recip_rank"]) || !near4(round4(acc.P1/n), all["success_1"]) {
		t.Errorf("all: %d topics, MAP %.4f MRR %.4f P@1 %.4f; trec_eval: %v", acc.Questions, acc.AP/n, acc.RR/n, acc.P1/n, all)
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// TestCandidatesOnly is the "graded responses per question" setting of
// the reference file: every judged item is a candidate of the question.
// trec_eval's rule (keep single-class questions, scoring 0 without
// positives) and the paper's rule (drop them and count them) at each N,
// against trec_eval run on the restricted qrels.
func TestCandidatesOnly(t *testing.T) {
	s := loadTrec(t)
	for _, lv := range []string{"l1", "l2", "l3", "l4", "l5"} {
		level := float64(lv[1] - '0')
		trec, paper := RankAcc{}, RankAcc{DropSingle: true}
		var kept []string
		for _, q := range []string{"301", "302", "303"} {
			qs := ScoreQuestion(trecRanking(s, q, s.Candidates.Grades[q]), level, -1, nil)
			want := s.Candidates.AllQ[lv][q]
			if !near4(round4(qs.AP), want["map"]) || !near4(round4(qs.RR), want["recip_rank"]) || qs.P1 != want["P_1"] {
				t.Errorf("-%s topic %s: AP %.4f RR %.4f P@1 %v; trec_eval %v", lv, q, qs.AP, qs.RR, qs.P1, want)
			}
			trec.Add(qs)
			paper.Add(qs)
			if !qs.SingleClass() {
				kept = append(kept, q)
			}
		}
		all := s.Candidates.AllQ[lv]["all"]
		if n := float64(trec.Questions); trec.Dropped != 0 || !near4(round4(trec.AP/n), all["map"]) || !near4(round4(trec.RR/n), all["recip_rank"]) || !near4(round4(trec.P1/n), all["P_1"]) {
			t.Errorf("-%s trec_eval's rule: MAP %.4f MRR %.4f P@1 %.4f over %d; trec_eval %v", lv, trec.AP/n, trec.RR/n, trec.P1/n, trec.Questions, all)
		}
		pd := s.Candidates.PaperDrop[lv]
		if strings.Join(kept, ",") != strings.Join(pd.Kept, ",") || paper.Questions != len(pd.Kept) || paper.Dropped != 3-len(pd.Kept) {
			t.Errorf("-%s paper's rule: kept %v (%d, dropped %d); want %v", lv, kept, paper.Questions, paper.Dropped, pd.Kept)
		}
		if paper.Questions == 0 {
			continue
		}
		n := float64(paper.Questions)
		// The reference means are of trec_eval's 4-decimal per-query values.
		if math.Abs(paper.AP/n-*pd.Means["map"]) > 1e-4 || math.Abs(paper.RR/n-*pd.Means["recip_rank"]) > 1e-4 || math.Abs(paper.P1/n-*pd.Means["P_1"]) > 1e-4 {
			t.Errorf("-%s paper's rule: MAP %.4f MRR %.4f P@1 %.4f; reference %v %v %v", lv, paper.AP/n, paper.RR/n, paper.P1/n, *pd.Means["map"], *pd.Means["recip_rank"], *pd.Means["P_1"])
		}
	}
}

// TestTiesByFileOrder: equal scores rank in the order the candidates are
// listed (the documented tie rule), so a positive listed after a negative
// of the same score ranks second.
func TestTiesByFileOrder(t *testing.T) {
	c := []Ranked{{Grade: 0, Score: 1, Index: 0}, {Grade: 5, Score: 1, Index: 1}, {Grade: 0, Score: 0.5, Index: 2}}
	SortByScore(c)
	g := []float64{c[0].Grade, c[1].Grade, c[2].Grade}
	q := ScoreQuestion(g, 4, -1, nil)
	if q.P1 != 0 || q.RR != 0.5 || q.AP != 0.5 {
		t.Errorf("tied ranking %v: %+v", g, q)
	}
	// nDCG: gain 5 at rank 2 over gain 5 at rank 1 = 1/log2(3).
	if math.Abs(q.NDCG-1/math.Log2(3)) > 1e-12 {
		t.Errorf("nDCG %v", q.NDCG)
	}
}
