package metrics

import (
	"math"
	"slices"
)

// This file is response ranking over graded candidates: the measures of
// the Tencent AI Lab rated chit-chat dataset paper ("a rated Chinese
// chit-chat dataset", Li, Zhang and Song: P@1, MAP and MRR with "positive"
// meaning grade ≥ N) computed as trec_eval computes them with -lN.

// Ranked is one candidate of a question as ranked: its grade and, for a
// score ranking, its score and its position in the source file (ties
// break by it).
type Ranked struct {
	Grade float64
	Score float64
	Index int
}

// SortByScore orders c by score, highest first; equal scores keep the
// order of Index (the candidate listed first in the file ranks first).
func SortByScore(c []Ranked) {
	slices.SortStableFunc(c, func(a, b Ranked) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Index - b.Index
	})
}

// QuestionScores are one question's figures at one positive grade.
type QuestionScores struct {
	// Positives and Negatives count the ranked candidates on either side
	// of the positive grade.
	Positives, Negatives int
	// AP is average precision, RR the reciprocal rank of the first
	// positive, P1 precision at 1, NDCG the normalised discounted
	// cumulative gain of the whole ranking.
	AP, RR, P1, NDCG float64
}

// SingleClass reports whether every ranked candidate is on one side of the
// positive grade (all positive or all negative): the paper drops such a
// question.
func (q QuestionScores) SingleClass() bool { return q.Positives == 0 || q.Negatives == 0 }

// ScoreQuestion scores a ranking (grades in rank order, best first) with
// positive = grade ≥ level, as trec_eval -l level: AP is the sum of the
// precision at the rank of each positive divided by relevant, the number
// of positives the question has (for a TREC qrels file, judged positives
// the run may not have retrieved; pass -1 to count the ranked positives);
// RR = 1 / rank of the first positive; P1 = 1 when the first is positive.
// A question without positives scores 0 on every measure. NDCG uses the
// grade as gain (negative grades as 0) with a log2(rank + 1) discount over
// the whole ranking, the ideal ranking from ideal (every judged grade;
// nil: the ranked grades), as trec_eval's ndcg.
func ScoreQuestion(grades []float64, level float64, relevant int, ideal []float64) QuestionScores {
	var q QuestionScores
	hits := 0
	sumPrec := 0.0
	for i, g := range grades {
		if g < level {
			q.Negatives++
			continue
		}
		q.Positives++
		hits++
		sumPrec += float64(hits) / float64(i+1)
		if q.RR == 0 {
			q.RR = 1 / float64(i+1)
		}
		if i == 0 {
			q.P1 = 1
		}
	}
	if relevant < 0 {
		relevant = q.Positives
	}
	if relevant > 0 {
		q.AP = sumPrec / float64(relevant)
	}
	if ideal == nil {
		ideal = grades
	}
	q.NDCG = NDCG(grades, ideal)
	return q
}

// NDCG is the discounted cumulative gain of grades (rank order) over that
// of ideal sorted best first: gain = grade (0 when negative), discount
// log2(rank + 1); 0 when the ideal gain is 0.
func NDCG(grades, ideal []float64) float64 {
	best := slices.Clone(ideal)
	slices.SortFunc(best, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	idcg := dcg(best)
	if idcg == 0 {
		return 0
	}
	return dcg(grades) / idcg
}

func dcg(grades []float64) float64 {
	s := 0.0
	for i, g := range grades {
		if g > 0 {
			s += g / math.Log2(float64(i+2))
		}
	}
	return s
}

// RankAcc sums question figures at one positive grade. With DropSingle
// (the paper's rule) a question whose candidates are all one class is
// counted in Dropped and not averaged; without it (trec_eval's rule) it is
// averaged with whatever it scored.
type RankAcc struct {
	DropSingle         bool
	Questions, Dropped int
	AP, RR, P1, NDCG   float64
}

// Add counts one question.
func (a *RankAcc) Add(q QuestionScores) {
	if a.DropSingle && q.SingleClass() {
		a.Dropped++
		return
	}
	a.Questions++
	a.AP += q.AP
	a.RR += q.RR
	a.P1 += q.P1
	a.NDCG += q.NDCG
}
