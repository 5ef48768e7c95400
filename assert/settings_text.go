package assert

import (
	"math"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/spec"
)

// TextMetrics is the suite's text_metrics block, the text family's
// settings: how the text metrics (EM/F1, BLEU, ROUGE, distinct) tokenise
// and smooth. DefaultTextMetrics are the settings without a block:
// tokenisation follows the text (Chinese when a case's references hold a
// CJK character), BLEU smoothing exp, the lowest cases by F1.
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

// TextMetricsBlock is the text_metrics block's type.
const TextMetricsBlock = "text_metrics"

// DefaultTextMetrics are the text metrics' settings without a
// text_metrics block.
func DefaultTextMetrics() TextMetrics {
	return TextMetrics{Smooth: metrics.SmoothExp, LowestBy: "f1"}
}

// TextMetricsOf returns the text_metrics settings s was loaded with (the
// defaults for a nil suite or one loaded without the text family's
// block).
func TextMetricsOf(s *spec.Suite) TextMetrics {
	if s != nil {
		if tm, ok := s.Settings(TextMetricsBlock).(TextMetrics); ok {
			return tm
		}
	}
	return DefaultTextMetrics()
}

// Settings declares the text family's text_metrics block.
func (textFamily) Settings() spec.SettingsBlock { return textMetricsSettings{} }

// textMetricsSettings decodes the text_metrics block.
type textMetricsSettings struct{}

func (textMetricsSettings) Block() string { return TextMetricsBlock }
func (textMetricsSettings) Default() any  { return DefaultTextMetrics() }

var textMetricsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "tokenize"}, {Name: "smooth"}, {Name: "smooth_value"}, {Name: "lowest_by"},
}}

// Decode reads the text_metrics block.
func (textMetricsSettings) Decode(d *spec.Decoder, b *hcl.Block) any {
	c, ok := d.Content(b, textMetricsSchema)
	if !ok {
		return nil
	}
	tm := DefaultTextMetrics()
	tm.LowestBy = decodeLowestBy(d, c.Attributes)
	if a, ok := c.Attributes["tokenize"]; ok {
		tok := metrics.Tokenizer(d.String(c.Attributes, "tokenize", ""))
		if !slices.Contains(metrics.Tokenizers, tok) {
			d.Errorf(a.Expr.Range().Ptr(), "Unknown tokenizer", "tokenize is one of sacrebleu's tokenizers %s, not %q.", spec.JoinQuoted(tokNames()), tok)
		}
		tm.Tokenize = tok
	}
	if a, ok := c.Attributes["smooth"]; ok {
		sm := metrics.Smoothing(d.String(c.Attributes, "smooth", ""))
		if !slices.Contains(metrics.Smoothings, sm) {
			d.Errorf(a.Expr.Range().Ptr(), "Unknown smoothing", "smooth is one of sacrebleu's BLEU smoothing methods exp, floor, add-k, none, not %q.", sm)
		}
		tm.Smooth = sm
	}
	tm.SmoothValue = metrics.DefaultSmoothValue(tm.Smooth)
	// A number ≥ 0; "abc" is one diagnostic (it was an internal error:
	// a string's AsBigFloat panics).
	tm.SmoothValue = d.Number(c.Attributes, "smooth_value", tm.SmoothValue, 0, math.MaxFloat64)
	return tm
}

// decodeLowestBy reads text_metrics' lowest_by: the per-case score the
// reports' lowest-scoring cases are ordered by (f1 by default).
func decodeLowestBy(d *spec.Decoder, attrs hcl.Attributes) string {
	a, ok := attrs["lowest_by"]
	if !ok {
		return "f1"
	}
	by := d.String(attrs, "lowest_by", "")
	if !slices.Contains(metrics.CaseTextScores, by) {
		d.Errorf(a.Expr.Range().Ptr(), "Unknown text metric", "lowest_by names a text metric with a value per case: %s, not %q.%s", spec.JoinQuoted(metrics.CaseTextScores), by, spec.DidYouMean(by, metrics.CaseTextScores))
		return "f1"
	}
	return by
}

func tokNames() []string {
	out := make([]string, len(metrics.Tokenizers))
	for i, t := range metrics.Tokenizers {
		out[i] = string(t)
	}
	return out
}
