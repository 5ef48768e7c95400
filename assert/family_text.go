package assert

import (
	"cmp"
	"math"
	"slices"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// textFamily is metrics.text: each case's reply against its references
// (the YD/T draft on NLP model evaluation: EM/F1, BLEU, ROUGE, distinct).
// Only cases with references count; a case whose call errored counts with
// an empty reply. Per case: exact match and token F1 (SQuAD v1.1, or MLQA's
// Chinese rule), ROUGE-1/2/L F (rouge-score; the best reference), each
// averaged over cases; corpus BLEU (sacrebleu's corpus_bleu) from summed
// statistics; distinct-1/2 over all replies (Li et al. 2016).
//
// Tokenisation follows the text unless text_metrics sets it: a case whose
// references hold a CJK character is Chinese (MLQA, rouge's character
// tokens); a node's BLEU and distinct-n use sacrebleu's zh tokenizer for
// every reply when any of its cases is Chinese, else 13a (the tokenizer
// its BLEU signature names).
type textFamily struct{}

func (textFamily) Shape() *schema.Family { return schema.TextFamily }

// NewAcc applies to suites with a source whose cases carry references.
func (textFamily) NewAcc(s *spec.Suite) Acc {
	a := &textAcc{opts: DefaultTextMetrics(), meanCap: meanCap(DefaultStatistics())}
	if s == nil {
		return a
	}
	a.opts = TextMetricsOf(s)
	a.meanCap = meanCap(StatisticsOf(s))
	for _, src := range s.CaseSources {
		if src.Info().References {
			return a
		}
	}
	return nil
}

// textAcc accumulates one node's text metrics.
type textAcc struct {
	opts               TextMetrics
	cases, zh          int
	nrefs              int // references per case; -1 when they vary
	em, f1, r1, r2, rl float64
	meteor             float64
	bleu13a, bleuZh    metrics.BLEUStats
	// distinct13a and distinctZh count the replies' n-grams under each
	// tokenizer the node may use; with text_metrics' tokenizer only
	// distinct13a is used.
	distinct13a, distinctZh metrics.DistinctAcc
	// lowest are the node's lowest-scoring cases (text_cases.go).
	lowest []schema.TextCase
	// means hold the per-case scores of F1, ROUGE-1, ROUGE-2, ROUGE-L
	// and METEOR for their intervals (made on the first case), keeping
	// at most meanCap distinct scores each.
	means   *[5]metrics.MeanAcc
	meanCap int
}

// meanCap is the most distinct scores a mean bootstraps within the work
// budget at the suite's resamples; past it, the t interval.
func meanCap(st Statistics) int {
	return int(infer.DefaultBudget / int64(max(st.Resamples, 1)))
}

// scores returns the accumulators of the means, made when new.
func (a *textAcc) scores() *[5]metrics.MeanAcc {
	if a.means == nil {
		a.means = &[5]metrics.MeanAcc{}
		for i := range a.means {
			a.means[i] = *metrics.NewMeanAcc(a.meanCap)
		}
	}
	return a.means
}

// textCase is what one case contributes, worked out once for its nodes.
type textCase struct {
	zh                 bool
	nrefs              int
	em, f1, r1, r2, rl float64
	meteor             float64
	bleu13a, bleuZh    metrics.BLEUStats
	toks13a, toksZh    []string
}

func (a *textAcc) Add(o *Observation) {
	if len(o.Result.References) == 0 {
		return
	}
	tc := o.Memo(textFamily{}, func() any { return newTextCase(o.Result, a.opts) }).(*textCase)
	if a.cases == 0 {
		a.nrefs = tc.nrefs
	} else if a.nrefs != tc.nrefs {
		a.nrefs = -1
	}
	a.cases++
	if tc.zh {
		a.zh++
	}
	a.em += tc.em
	a.f1 += tc.f1
	a.r1 += tc.r1
	a.r2 += tc.r2
	a.rl += tc.rl
	a.meteor += tc.meteor
	ms := a.scores()
	for i, v := range [5]float64{tc.f1, tc.r1, tc.r2, tc.rl, tc.meteor} {
		ms[i].Add(v)
	}
	a.lowest = keepLowest(a.lowest, o.Result, tc, a.opts.LowestBy)
	a.bleu13a.Add(&tc.bleu13a)
	a.bleuZh.Add(&tc.bleuZh)
	a.distinct13a.Add(tc.toks13a)
	if a.opts.Tokenize == "" {
		a.distinctZh.Add(tc.toksZh)
	}
}

// newTextCase scores one case's reply against its references.
func newTextCase(r *schema.Result, opts TextMetrics) *textCase {
	refs := r.References
	reply := r.Reply
	tc := &textCase{nrefs: len(refs)}
	for _, ref := range refs {
		tc.zh = tc.zh || metrics.HasCJK(ref)
	}
	if opts.Tokenize == metrics.TokZh || opts.Tokenize == metrics.TokChr {
		tc.zh = true
	}
	norm, rougeTok := metrics.NormSQuAD, metrics.RougeTokens
	if tc.zh {
		norm, rougeTok = metrics.NormMLQA, metrics.RougeTokensZh
	}
	tc.em = metrics.ExactMatch(norm, reply, refs)
	tc.f1 = metrics.TokenF1(norm, reply, refs)
	pred := rougeTok(reply)
	for _, ref := range refs {
		target := rougeTok(ref)
		tc.r1 = math.Max(tc.r1, metrics.RougeN(1, target, pred).F)
		tc.r2 = math.Max(tc.r2, metrics.RougeN(2, target, pred).F)
		tc.rl = math.Max(tc.rl, metrics.RougeL(target, pred).F)
	}
	if opts.Tokenize != "" {
		tc.bleu13a = segmentBLEU(opts.Tokenize, reply, refs)
		tc.bleuZh = tc.bleu13a
		tc.toks13a = metrics.Tokenize(opts.Tokenize, reply)
		tc.meteor = caseMeteor(opts.Tokenize, tc.toks13a, refs)
		return tc
	}
	tc.bleu13a = segmentBLEU(metrics.Tok13a, reply, refs)
	tc.bleuZh = segmentBLEU(metrics.TokZh, reply, refs)
	tc.toks13a = metrics.Tokenize(metrics.Tok13a, reply)
	tc.toksZh = metrics.Tokenize(metrics.TokZh, reply)
	tc.meteor = caseMeteor(metrics.Tok13a, tc.toks13a, refs)
	if tc.zh {
		tc.meteor = caseMeteor(metrics.TokZh, tc.toksZh, refs)
	}
	return tc
}

func segmentBLEU(tok metrics.Tokenizer, hyp string, refs []string) metrics.BLEUStats {
	rt := make([][]string, len(refs))
	for i, r := range refs {
		rt[i] = metrics.Tokenize(tok, r)
	}
	return metrics.SegmentBLEU(metrics.Tokenize(tok, hyp), rt)
}

func (a *textAcc) Merge(o Acc) {
	b := o.(*textAcc)
	if b.cases == 0 {
		return
	}
	if a.cases == 0 {
		a.nrefs = b.nrefs
	} else if a.nrefs != b.nrefs {
		a.nrefs = -1
	}
	a.cases += b.cases
	a.zh += b.zh
	a.em, a.f1, a.r1, a.r2, a.rl = a.em+b.em, a.f1+b.f1, a.r1+b.r1, a.r2+b.r2, a.rl+b.rl
	a.meteor += b.meteor
	if b.means != nil {
		ms := a.scores()
		for i := range ms {
			ms[i].Merge(&b.means[i])
		}
	}
	a.lowest = mergeLowest(a.lowest, b.lowest)
	a.bleu13a.Add(&b.bleu13a)
	a.bleuZh.Add(&b.bleuZh)
	a.distinct13a.Merge(&b.distinct13a)
	a.distinctZh.Merge(&b.distinctZh)
}

// Tokenizer is the BLEU and distinct-n tokenizer of the node: the
// suite's, else zh when any case is Chinese, else 13a; with its BLEU
// statistics and distinct n-grams.
func (a *textAcc) tokenizer() (metrics.Tokenizer, metrics.BLEUStats, *metrics.DistinctAcc) {
	switch {
	case a.opts.Tokenize != "":
		return a.opts.Tokenize, a.bleu13a, &a.distinct13a
	case a.zh > 0:
		return metrics.TokZh, a.bleuZh, &a.distinctZh
	}
	return metrics.Tok13a, a.bleu13a, &a.distinct13a
}

func (a *textAcc) Fill(n *schema.Node) {
	if a.cases == 0 {
		return
	}
	tok, st, d := a.tokenizer()
	score := metrics.BLEUScore(st, a.opts.Smooth, a.opts.SmoothValue)
	c := float64(a.cases)
	SetFamily(n, "text", &schema.Text{
		Cases: a.cases, ExactMatch: schema.Ratio{Num: a.em, Den: c}, F1: schema.Ratio{Num: a.f1, Den: c},
		BLEU: score / 100, BLEUScore: score, BLEUSignature: metrics.BLEUSignature(a.nrefs, tok, a.opts.Smooth, a.opts.SmoothValue),
		Rouge1: schema.Ratio{Num: a.r1, Den: c}, Rouge2: schema.Ratio{Num: a.r2, Den: c}, RougeL: schema.Ratio{Num: a.rl, Den: c},
		Meteor:   schema.Ratio{Num: a.meteor, Den: c},
		LowestBy: cmp.Or(a.opts.LowestBy, "f1"), Lowest: slices.Clone(a.lowest),
		Distinct1: schema.R(d.Distinct1(), d.Tokens()),
		Distinct2: schema.R(d.Distinct2(), d.Tokens()),
	})
}

// Intervals sets the intervals of the per-case means (token F1, ROUGE-1,
// ROUGE-2, ROUGE-L, METEOR), each over the cases (metrics.MeanContribution):
// the percentile bootstrap, or past the budget the t interval. Exact
// match is a proportion (Wilson, from the descriptor).
func (a *textAcc) Intervals(n *schema.Node, r *Resampler) {
	out, _ := n.Families["text"].(*schema.Text)
	if out == nil || a.means == nil {
		return
	}
	for i, rt := range []*schema.Ratio{&out.F1, &out.Rouge1, &out.Rouge2, &out.RougeL, &out.Meteor} {
		name := [5]string{"f1", "rouge1", "rouge2", "rougeL", "meteor"}[i]
		metrics.SetCI(rt, a.means[i].Interval(r.Options("text."+name)))
	}
}
