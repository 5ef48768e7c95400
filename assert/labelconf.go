package assert

import (
	"encoding/json"
	"strconv"

	"github.com/nlutest/nlutest/internal/nfc"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// What the confidence families (calibration, out-of-scope detection) need
// of a case, per label dimension with a confidence path: the truth (an
// expected label, or "out of scope") and the response's label with its
// confidence — the raw prediction, whatever min_confidence says.

// truth of a case for one label dimension.
const (
	truthNone     int8 = iota // the case expects nothing of the dimension
	truthLabel                // it expects a label (in scope)
	truthOutScope             // it expects the out-of-scope label, or no label (null)
)

// confObs is one label dimension's observation of one case.
type confObs struct {
	dim      int
	truth    int8
	expected string
	// hasLabel says the response holds a label; right that it is the
	// expected one, oosLabel that it is the out-of-scope label; conf is
	// its confidence, hasConf when the confidence path holds a number.
	hasLabel, right, oosLabel bool
	conf                      float64
	hasConf                   bool
}

// correct reports whether the response's label is the expected one.
func (o *confObs) correct() bool { return o.right }

// inScopeScore is the case's score for out-of-scope detection: the
// confidence of an in-scope label; 0 when the response has no label or
// the out-of-scope label (a fallback whatever the threshold). ok is false
// when a label has no numeric confidence: the case has no score.
func (o *confObs) inScopeScore() (score float64, ok bool) {
	if !o.hasLabel || o.oosLabel {
		return 0, true
	}
	return o.conf, o.hasConf
}

// confidences records, for every label dimension with a confidence path
// that the case expects something of, its confObs in ev.
func (e *Evaluator) confidences(ev *Evaluation, r *schema.Result, rs *response) {
	sc := e.suite.Schema
	for di, dim := range sc.Dimensions {
		if dim.Kind != schema.KindLabel || dim.Confidence == nil {
			continue
		}
		o := confObs{dim: di}
		switch {
		case len(ev.dims.labels) > 0 && ev.dims.labels[di].has:
			o.expected = ev.dims.labels[di].expected
			o.truth = truthLabel
			if dim.OutOfScope != "" && o.expected == dim.OutOfScope {
				o.truth = truthOutScope
			}
		case e.expectsNoLabel(r, di):
			o.truth = truthOutScope
		default:
			continue
		}
		o.hasLabel, o.right, o.oosLabel = labelFacts(dim, rs, o.expected)
		o.conf, o.hasConf = confidenceAt(dim.Confidence, rs)
		ev.confs = append(ev.confs, o)
	}
}

// labelFacts reads the response's label of dim: whether there is one,
// whether it is expected (in NFC, as labels compare) and whether it is the
// out-of-scope label. A plain string on a simple path is compared on the
// tape, without allocating.
func labelFacts(dim *spec.Dimension, rs *response, expected string) (has, right, oos bool) {
	if modeOf(dim.Label.Expr) == modeSimple {
		ref, ok := lookup(rs.doc, dim.Label.Expr)
		if !ok {
			return false, false, false
		}
		if rs.doc.Kind(ref) == jsondoc.String && rs.doc.Plain(ref) && nfc.Stable(rs.doc.StrBytes(ref)) {
			b := rs.doc.StrBytes(ref)
			return len(b) > 0, len(b) > 0 && string(b) == expected, dim.OutOfScope != "" && string(b) == dim.OutOfScope
		}
	}
	v, ok := first(dim.Label, rs)
	s, isLabel := labelOf(v)
	if !ok || !isLabel {
		return false, false, false
	}
	return true, s == expected, dim.OutOfScope != "" && s == dim.OutOfScope
}

// confidenceAt reads a number at p: on the tape for a simple path.
func confidenceAt(p *spec.Pattern, rs *response) (float64, bool) {
	if modeOf(p.Expr) == modeSimple {
		ref, ok := lookup(rs.doc, p.Expr)
		if !ok || rs.doc.Kind(ref) != jsondoc.Number {
			return 0, false
		}
		f, err := strconv.ParseFloat(string(rs.doc.Raw(ref)), 64)
		return f, err == nil
	}
	v, ok := first(p, rs)
	if !ok {
		return 0, false
	}
	return floatOf(v)
}

// expectsNoLabel reports whether r expects null on label dimension di's
// path: the utterance is out of scope and should get no prediction.
func (e *Evaluator) expectsNoLabel(r *schema.Result, di int) bool {
	sc := e.sourceOf(r)
	for i, x := range r.Expect {
		if x.Value != nil {
			continue
		}
		if c, err := e.path(sc, i, x.Path); err == nil && c.dim == di && !c.multi {
			return true
		}
	}
	return false
}

// fallbackExpected reports whether an expectation of null on path c is
// met as a label dimension's "no prediction": the response has no label
// there (absent, null or ""), or its confidence is below the dimension's
// min_confidence (a fallback).
func (e *Evaluator) fallbackExpected(c *compiled, rs *response) bool {
	if c.dim < 0 || c.multi {
		return false
	}
	dim := e.suite.Schema.Dimensions[c.dim]
	if dim.Kind != schema.KindLabel {
		return false
	}
	if has, _, _ := labelFacts(dim, rs, ""); !has {
		return true
	}
	if dim.Confidence == nil || dim.MinConfidence <= 0 {
		return false
	}
	f, ok := confidenceAt(dim.Confidence, rs)
	return ok && f < dim.MinConfidence
}

// floatOf returns a JSON number's value.
func floatOf(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	}
	return 0, false
}
