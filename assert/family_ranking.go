package assert

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/ranking"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// rankingFamily is metrics.ranking: response selection over the suite's
// ranking blocks (Li, Zhang, Song (Tencent AI Lab), "面向非任务型对话系统的人工标注中文数据集":
// P@1, MAP and MRR with positive = grade ≥ N; computed as trec_eval -lN).
// A question's candidates are ranked by the scores the target gave them
// (score = EXPR; ties by the order of the candidates in the file; a call
// that errored or a score that is not a number ranks last) or in the
// order it returned (order = EXPR), or, for a TREC qrels and run pair, by
// the run's scores (ties as trec_eval: docno descending; added at report
// time by ImportRankingFiles). Each node averages the questions whose
// cases it holds, at the block's first positive grade; positive_grade[N]
// at each grade a block lists; source[NAME] per block.
type rankingFamily struct{}

func (rankingFamily) Shape() *schema.Family { return schema.RankingFamily }

func (rankingFamily) NewAcc(s *spec.Suite) Acc {
	if s == nil {
		return nil
	}
	a := &rankingAcc{suite: s, byName: map[string]int{}}
	for _, src := range s.CaseSources {
		if rs, ok := src.(*ranking.Source); ok {
			a.byName[rs.Name()] = len(a.srcs)
			a.srcs = append(a.srcs, rs)
		}
	}
	if len(a.srcs) == 0 {
		return nil
	}
	return a
}

// RankingValue is metrics.ranking in a node.
type RankingValue struct {
	RankFigures
	PositiveGrade map[string]*RankFigures `json:"positive_grade"`
	Source        map[string]*RankFigures `json:"source"`
}

// RankFigures are the averaged figures of a set of questions.
type RankFigures struct {
	Questions int          `json:"questions"`
	Dropped   int          `json:"dropped"`
	PAt1      schema.Ratio `json:"p_at_1"`
	MAP       schema.Ratio `json:"map"`
	MRR       schema.Ratio `json:"mrr"`
	NDCG      schema.Ratio `json:"ndcg"`
}

func figuresOf(a *metrics.RankAcc) *RankFigures {
	n := float64(a.Questions)
	return &RankFigures{Questions: a.Questions, Dropped: a.Dropped,
		PAt1: schema.Ratio{Num: a.P1, Den: n}, MAP: schema.Ratio{Num: a.AP, Den: n},
		MRR: schema.Ratio{Num: a.RR, Den: n}, NDCG: schema.Ratio{Num: a.NDCG, Den: n}}
}

// rankingAcc keeps each ranking case's score (or order) until Fill ranks
// the questions, and the questions of TREC pairs.
type rankingAcc struct {
	suite  *spec.Suite
	srcs   []*ranking.Source
	byName map[string]int
	obs    []rankObs
	ext    []rankExt
}

// rankObs is one ranking case: its block, question and candidate, and the
// score the target gave (score mode) or the candidate order (order mode).
type rankObs struct {
	src, q, c int
	score     float64
	order     []int
}

// rankExt is one question of a TREC pair.
type rankExt struct {
	src int
	q   ranking.TRECQuestion
}

func (a *rankingAcc) Add(o *Observation) {
	r := o.Result
	if r.SourceKind != ranking.Block {
		return
	}
	ob, _ := o.Memo(rankingFamily{}, func() any { return a.observe(r) }).(*rankObs)
	if ob != nil {
		a.obs = append(a.obs, *ob)
	}
}

// observe reads one case's score or order from its response.
func (a *rankingAcc) observe(r *schema.Result) any {
	si, ok := a.byName[r.Source]
	if !ok {
		return nil
	}
	rs := a.srcs[si]
	q, c, ok := rs.Lookup(r.ID)
	if !ok {
		return nil
	}
	ob := &rankObs{src: si, q: q, c: c, score: math.Inf(-1)}
	if r.Outcome == schema.Error || len(r.Response) == 0 {
		if rs.Order != nil {
			ob.order = []int{}
		}
		return ob
	}
	ctx := a.suite.CaseContext(&r.Case)
	resp := cty.NullVal(cty.DynamicPseudoType)
	if v, err := spec.JSONToCty(r.Response); err == nil {
		resp = v
	}
	ctx.Variables["response"] = resp
	ctx.Variables["http"] = cty.ObjectVal(map[string]cty.Value{"status": cty.NumberIntVal(int64(r.Status)), "headers": cty.MapValEmpty(cty.String)})
	ctx.Variables["latency_ms"] = cty.NumberFloatVal(r.LatencyMS)
	if rs.Order != nil {
		v, diags := rs.Order.Value(ctx)
		ob.order = orderOf(v, diags, r.Candidates)
		return ob
	}
	v, diags := rs.Score.Value(ctx)
	if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
		if f, _ := v.AsBigFloat().Float64(); !math.IsNaN(f) {
			ob.score = f
		}
	}
	return ob
}

// orderOf reads an order: a list of candidate texts, or of 0-based
// candidate indexes. Candidates it does not name follow in file order.
func orderOf(v cty.Value, diags hcl.Diagnostics, cands []string) []int {
	used := make([]bool, len(cands))
	var out []int
	if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.CanIterateElements() {
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			i := -1
			switch {
			case e.IsNull() || !e.IsKnown():
			case e.Type() == cty.String:
				for k, c := range cands { // the first not yet placed
					if c == e.AsString() && !used[k] {
						i = k
						break
					}
				}
			case e.Type() == cty.Number:
				if f, _ := e.AsBigFloat().Float64(); f == math.Trunc(f) && f >= 0 && int(f) < len(cands) {
					i = int(f)
				}
			}
			if i >= 0 && !used[i] {
				used[i] = true
				out = append(out, i)
			}
		}
	}
	for i := range cands {
		if !used[i] {
			out = append(out, i)
		}
	}
	return out
}

func (a *rankingAcc) Merge(o Acc) {
	b := o.(*rankingAcc)
	a.obs = append(a.obs, b.obs...)
	a.ext = append(a.ext, b.ext...)
}

// rankTally sums the questions of a node.
type rankTally struct {
	head    metrics.RankAcc
	byGrade map[float64]*metrics.RankAcc
	bySrc   map[string]*metrics.RankAcc
}

func (t *rankTally) add(rs *ranking.Source, ranked, judged []float64, relevantAt func(float64) int) {
	for i, lv := range rs.Levels {
		qs := metrics.ScoreQuestion(ranked, lv, relevantAt(lv), judged)
		g := t.byGrade[lv]
		if g == nil {
			g = &metrics.RankAcc{DropSingle: rs.DropSingle}
			t.byGrade[lv] = g
		}
		g.DropSingle = rs.DropSingle
		g.Add(qs)
		if i > 0 {
			continue
		}
		t.head.DropSingle = rs.DropSingle
		t.head.Add(qs)
		s := t.bySrc[rs.Name()]
		if s == nil {
			s = &metrics.RankAcc{DropSingle: rs.DropSingle}
			t.bySrc[rs.Name()] = s
		}
		s.Add(qs)
	}
}

func (a *rankingAcc) Fill(n *schema.Node) {
	if len(a.obs) == 0 && len(a.ext) == 0 {
		return
	}
	t := &rankTally{byGrade: map[float64]*metrics.RankAcc{}, bySrc: map[string]*metrics.RankAcc{}}
	obs := slices.Clone(a.obs)
	slices.SortFunc(obs, func(x, y rankObs) int {
		return cmp.Or(cmp.Compare(x.src, y.src), cmp.Compare(x.q, y.q), cmp.Compare(x.c, y.c))
	})
	for i := 0; i < len(obs); {
		j := i + 1
		for j < len(obs) && obs[j].src == obs[i].src && obs[j].q == obs[i].q {
			j++
		}
		rs := a.srcs[obs[i].src]
		t.add(rs, rankedGrades(rs, obs[i:j]), nil, func(float64) int { return -1 })
		i = j
	}
	for _, e := range a.ext {
		judged := e.q.Judged
		t.add(a.srcs[e.src], e.q.Ranked, judged, func(lv float64) int {
			k := 0
			for _, g := range judged {
				if g >= lv {
					k++
				}
			}
			return k
		})
	}
	v := &RankingValue{RankFigures: *figuresOf(&t.head), PositiveGrade: map[string]*RankFigures{}, Source: map[string]*RankFigures{}}
	for lv, g := range t.byGrade {
		v.PositiveGrade[strconv.FormatFloat(lv, 'f', -1, 64)] = figuresOf(g)
	}
	for name, s := range t.bySrc {
		v.Source[name] = figuresOf(s)
	}
	SetFamily(n, "ranking", v)
}

// rankedGrades ranks one question's observed cases and returns the
// candidates' grades in rank order.
func rankedGrades(rs *ranking.Source, obs []rankObs) []float64 {
	cands := rs.Questions[obs[0].q].Candidates
	if rs.Order != nil {
		out := make([]float64, 0, len(cands))
		for _, i := range obs[0].order {
			out = append(out, cands[i].Grade)
		}
		if len(out) == 0 { // the call errored: file order
			for _, c := range cands {
				out = append(out, c.Grade)
			}
		}
		return out
	}
	c := make([]metrics.Ranked, len(obs))
	for i, o := range obs {
		c[i] = metrics.Ranked{Grade: cands[o.c].Grade, Score: o.score, Index: o.c}
	}
	metrics.SortByScore(c)
	out := make([]float64, len(c))
	for i := range c {
		out[i] = c[i].Grade
	}
	return out
}

// ImportRankingFiles reads the TREC qrels and run files of the suite's
// ranking blocks and adds their questions to the whole run's node.
func ImportRankingFiles(c *Collector) hcl.Diagnostics {
	proto, _ := rankingFamily{}.NewAcc(c.suite).(*rankingAcc)
	if proto == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for i, rs := range proto.srcs {
		if rs.Qrels == "" {
			continue
		}
		qs, d := ranking.ReadTREC(rs)
		diags = append(diags, d...)
		for _, q := range qs {
			proto.ext = append(proto.ext, rankExt{src: i, q: q})
		}
	}
	if diags.HasErrors() || len(proto.ext) == 0 {
		return diags
	}
	if err := c.AddExternal("ranking", NodeKey{}, proto); err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot add TREC rankings", Detail: err.Error()}}
	}
	return nil
}
