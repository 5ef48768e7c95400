package assert

import (
	"math"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// ratingsFamily is metrics.ratings["NAME"]: people's scores of the run's
// replies from the filled sheets of the suite's ratings blocks (YD/T
// 4394.2-2023: 5-point ratings by 3–5 raters, the mean of all raters'
// scores; Li, Zhang and Song, "面向非任务型对话系统的人工标注中文数据集": two
// raters, an item kept when their grades differ by at most 1, agreement
// by Cohen's kappa). Sheets come from outside the calls: ImportRatings
// reads them at report time and adds them with Collector.AddExternal, to
// the whole run's node.
//
// Per block: items (cases rated), raters, kept (items whose raters'
// scores differ by at most keep_if_diff_at_most in every dimension; all
// without it); per dimension, over the kept items: the mean of every
// score, Cohen's kappa unweighted, linear and quadratic (exactly two
// raters; weights over label indexes as scikit-learn) and Fleiss' kappa
// (three raters or more; as statsmodels). A kappa that is not defined
// (one label throughout) is null.
type ratingsFamily struct{}

func (ratingsFamily) Shape() *schema.Family { return schema.RatingsFamily }

func (ratingsFamily) NewAcc(s *spec.Suite) Acc {
	blocks := sheet.Of(s)
	if len(blocks) == 0 {
		return nil
	}
	return &ratingsAcc{blocks: blocks, rows: make([][]sheet.Rating, len(blocks))}
}

// Settings declares the ratings blocks (sheet.Settings: labelled and
// repeatable, one per rating sheet), which the family reads back with
// sheet.Of.
func (ratingsFamily) Settings() spec.SettingsBlock { return sheet.Settings{} }

// RatingsValue is metrics.ratings: one entry per ratings block with a
// sheet.
type RatingsValue map[string]*RatingsBlock

// RatingsBlock is one ratings block's figures.
type RatingsBlock struct {
	Items     int                   `json:"items"`
	Raters    int                   `json:"raters"`
	Kept      int                   `json:"kept"`
	Dimension map[string]*RatingDim `json:"dimension"`
}

// RatingDim is one rated dimension's figures; nil when not defined.
type RatingDim struct {
	Mean                *float64 `json:"mean"`
	CohenKappa          *float64 `json:"cohen_kappa"`
	CohenKappaLinear    *float64 `json:"cohen_kappa_linear"`
	CohenKappaQuadratic *float64 `json:"cohen_kappa_quadratic"`
	FleissKappa         *float64 `json:"fleiss_kappa"`
}

// ratingsAcc holds the rows of each block's sheet.
type ratingsAcc struct {
	blocks []*sheet.Ratings
	rows   [][]sheet.Rating
}

// Add does nothing: ratings come from sheets, not calls.
func (a *ratingsAcc) Add(*Observation) {}

func (a *ratingsAcc) Merge(o Acc) {
	b := o.(*ratingsAcc)
	for i, bl := range b.blocks {
		if j := slices.Index(a.blocks, bl); j >= 0 {
			a.rows[j] = append(a.rows[j], b.rows[i]...)
		}
	}
}

func (a *ratingsAcc) Fill(n *schema.Node) {
	v := RatingsValue{}
	for i, bl := range a.blocks {
		if len(a.rows[i]) > 0 {
			v[bl.Name] = rateBlock(bl, a.rows[i])
		}
	}
	if len(v) > 0 {
		SetFamily(n, "ratings", v)
	}
}

// ratedItem is one case's scores: scores[rater][dimension].
type ratedItem struct {
	scores [][]int
}

// rateBlock works out one block's figures from its rows.
func rateBlock(bl *sheet.Ratings, rows []sheet.Rating) *RatingsBlock {
	var raters, order []string
	items := map[string]*ratedItem{}
	for _, r := range rows {
		ri := slices.Index(raters, r.Rater)
		if ri < 0 {
			raters = append(raters, r.Rater)
			ri = len(raters) - 1
		}
		it := items[r.Case]
		if it == nil {
			it = &ratedItem{}
			items[r.Case] = it
			order = append(order, r.Case)
		}
		for len(it.scores) <= ri {
			it.scores = append(it.scores, nil)
		}
		it.scores[ri] = r.Scores
	}
	var kept []*ratedItem
	for _, id := range order {
		if it := items[id]; keepItem(it, bl.KeepIfDiffAtMost, len(raters)) {
			kept = append(kept, it)
		}
	}
	out := &RatingsBlock{Items: len(order), Raters: len(raters), Kept: len(kept), Dimension: map[string]*RatingDim{}}
	for d, name := range bl.Dimensions {
		out.Dimension[name] = rateDimension(kept, d, len(raters), bl.Scale)
	}
	return out
}

// keepItem reports whether every rater scored the item and, with a limit,
// the scores of each dimension differ by at most it.
func keepItem(it *ratedItem, limit, raters int) bool {
	if len(it.scores) < raters || slices.ContainsFunc(it.scores, func(s []int) bool { return s == nil }) {
		return false
	}
	if limit < 0 {
		return true
	}
	for d := range it.scores[0] {
		lo, hi := it.scores[0][d], it.scores[0][d]
		for _, s := range it.scores[1:] {
			lo, hi = min(lo, s[d]), max(hi, s[d])
		}
		if hi-lo > limit {
			return false
		}
	}
	return true
}

func rateDimension(kept []*ratedItem, d, raters, scale int) *RatingDim {
	out := &RatingDim{}
	if len(kept) == 0 {
		return out
	}
	sum, count := 0, 0
	for _, it := range kept {
		for _, s := range it.scores {
			sum += s[d]
			count++
		}
	}
	out.Mean = num(float64(sum) / float64(count))
	switch {
	case raters == 2:
		a, b := make([]float64, len(kept)), make([]float64, len(kept))
		for i, it := range kept {
			a[i], b[i] = float64(it.scores[0][d]), float64(it.scores[1][d])
		}
		out.CohenKappa = num(metrics.CohenKappa(a, b, metrics.WeightNone))
		out.CohenKappaLinear = num(metrics.CohenKappa(a, b, metrics.WeightLinear))
		out.CohenKappaQuadratic = num(metrics.CohenKappa(a, b, metrics.WeightQuadratic))
	case raters > 2:
		table := make([][]int, len(kept))
		for i, it := range kept {
			table[i] = make([]int, scale)
			for _, s := range it.scores {
				table[i][s[d]-1]++
			}
		}
		out.FleissKappa = num(metrics.FleissKappa(table))
	}
	return out
}

// num is v, or nil when v is not a number.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// ImportExternal adds the figures that come from files, not calls: the
// rating sheets of the suite's ratings blocks (ImportRatings) and the
// TREC qrels and run files of its ranking blocks (ImportRankingFiles). A
// family fed from files adds its import here. The diagnostics hold the
// files' errors (nothing is added then) and warnings (for the report).
func ImportExternal(c *Collector, run *sheet.Run) hcl.Diagnostics {
	diags := ImportRatings(c, run)
	return append(diags, ImportRankingFiles(c)...)
}

// ImportRatings reads the filled sheet of every ratings block of the
// collector's suite, joins it to run (sheet.Read) and adds it to the
// whole run's node. Sheet problems come back as diagnostics at their file
// and line, nothing added then; warnings (cases not rated, rows left out)
// come back with the figures added.
func ImportRatings(c *Collector, run *sheet.Run) hcl.Diagnostics {
	blocks := sheet.Of(c.suite)
	if len(blocks) == 0 {
		return nil
	}
	acc := &ratingsAcc{blocks: blocks, rows: make([][]sheet.Rating, len(blocks))}
	var diags hcl.Diagnostics
	for i, bl := range blocks {
		rows, d := sheet.Read(bl, run)
		diags = append(diags, d...)
		acc.rows[i] = rows
	}
	if diags.HasErrors() {
		return diags
	}
	if err := c.AddExternal("ratings", NodeKey{}, acc); err != nil {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot add ratings", Detail: err.Error()})
	}
	return diags
}
