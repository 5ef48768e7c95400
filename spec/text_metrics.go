package spec

import (
	"math"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
)

// TextMetrics is the suite's text_metrics block: how the text metrics
// (EM/F1, BLEU, ROUGE, distinct) tokenise and smooth. The zero value is
// the default: tokenisation follows the text (Chinese when a case's
// references hold a CJK character), BLEU smoothing exp.
type TextMetrics struct {
	// Tokenize is "" (follow the text) or a sacrebleu tokenizer: 13a, zh,
	// char, none.
	Tokenize metrics.Tokenizer
	Smooth   metrics.Smoothing
	// SmoothValue is the value of floor and add-k smoothing.
	SmoothValue float64
	// LowestBy names the per-case score (metrics.CaseTextScores) the
	// reports' lowest-scoring cases are ordered by: "f1" by default.
	LowestBy string
}

var textMetricsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "tokenize"}, {Name: "smooth"}, {Name: "smooth_value"}, {Name: "lowest_by"},
}}

// decodeTextMetrics reads the text_metrics block (at most one).
func (l *loader) decodeTextMetrics(blocks []*hcl.Block) {
	l.suite.TextMetrics = TextMetrics{Smooth: metrics.SmoothExp, LowestBy: "f1"}
	if len(blocks) == 0 {
		return
	}
	for _, extra := range blocks[1:] {
		l.errorf(extra.DefRange.Ptr(), "Duplicate text_metrics block", "A suite has one text_metrics block; the first is at %s.", rangeString(blocks[0].DefRange))
	}
	c, ok := l.content(blocks[0].Body, textMetricsSchema)
	if !ok {
		return
	}
	tm := &l.suite.TextMetrics
	tm.LowestBy = l.decodeLowestBy(c.Attributes)
	if a, ok := c.Attributes["tokenize"]; ok {
		tok := metrics.Tokenizer(l.str(c.Attributes, "tokenize", ""))
		if !slices.Contains(metrics.Tokenizers, tok) {
			l.errorf(a.Expr.Range().Ptr(), "Unknown tokenizer", "tokenize is one of sacrebleu's tokenizers %s, not %q.", joinQuoted(tokNames()), tok)
		}
		tm.Tokenize = tok
	}
	if a, ok := c.Attributes["smooth"]; ok {
		sm := metrics.Smoothing(l.str(c.Attributes, "smooth", ""))
		if !slices.Contains(metrics.Smoothings, sm) {
			l.errorf(a.Expr.Range().Ptr(), "Unknown smoothing", "smooth is one of sacrebleu's BLEU smoothing methods exp, floor, add-k, none, not %q.", sm)
		}
		tm.Smooth = sm
	}
	tm.SmoothValue = metrics.DefaultSmoothValue(tm.Smooth)
	// A number ≥ 0; "abc" is one diagnostic (it was an internal error:
	// a string's AsBigFloat panics).
	tm.SmoothValue = l.number(c.Attributes, "smooth_value", tm.SmoothValue, 0, math.MaxFloat64)
}

func tokNames() []string {
	out := make([]string, len(metrics.Tokenizers))
	for i, t := range metrics.Tokenizers {
		out[i] = string(t)
	}
	return out
}
