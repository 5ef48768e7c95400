package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
)

// TextMinimum is a per-case minimum of a text metric (a dataset's
// min_f1 = 0.5): a case whose score falls below it fails.
type TextMinimum struct {
	// Metric is one of metrics.CaseTextScores.
	Metric string
	Min    float64
	// Range locates the attribute, for failure reports.
	Range hcl.Range
}

// textMinimumAttrs are the min_* attributes of a source with references.
func textMinimumAttrs() []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, len(metrics.CaseTextScores))
	for i, m := range metrics.CaseTextScores {
		out[i] = hcl.AttributeSchema{Name: "min_" + m}
	}
	return out
}

// decodeTextMinimums reads the min_* attributes (0–1 each). They need
// references: without them a case has no score to hold to a minimum.
func (l *loader) decodeTextMinimums(attrs hcl.Attributes, references bool) []TextMinimum {
	var out []TextMinimum
	for _, m := range metrics.CaseTextScores {
		a, ok := attrs["min_"+m]
		if !ok {
			continue
		}
		if !references {
			l.errorf(a.NameRange.Ptr(), "Minimum without references", "min_%s holds each case's %s against its references, and this dataset sets no references; add references = row.… (the reference answers) or remove min_%s.", m, m, m)
			continue
		}
		out = append(out, TextMinimum{Metric: m, Min: l.number(attrs, "min_"+m, 0, 0, 1), Range: a.Range})
	}
	return out
}
