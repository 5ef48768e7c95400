package assert

import "github.com/nlutest/nlutest/assert/metrics"

// The per-case observations an Evaluation holds, for metric families
// outside this package: a family reads them in its Acc.Add from
// Observation.Eval (nil when the suite's schema declares no dimensions or
// the case errored) by the index of the dimension in the suite's schema
// (spec.Schema.Dimensions), and reads the rest of the case — its reply,
// references, judge verdict, usage, latency — from Observation.Result.
// Nothing here copies or parses: the views share the evaluation's memory,
// valid until the Add returns.

// LabelObservation is what a case showed of one label dimension (intent,
// domain).
type LabelObservation struct {
	// Expected is the label the case expects.
	Expected string
	// Predicted is the response's prediction; "" when it has none or its
	// confidence is under the dimension's min_confidence.
	Predicted string
	// TopK are the labels top-k reads, best first: the ranking by score
	// (ranking_confidence), else the label at the path (whatever its
	// confidence) and the ranking in document order.
	TopK []string
}

// Dimensions returns how many dimensions the evaluation indexes: the
// suite schema's.
func (ev *Evaluation) Dimensions() int {
	return max(len(ev.dims.tallies), len(ev.dims.cases), len(ev.dims.labels))
}

// Label returns the observation of label dimension i; false when the case
// expects no label of it (or i is not a label dimension).
func (ev *Evaluation) Label(i int) (LabelObservation, bool) {
	if i >= len(ev.dims.labels) || !ev.dims.labels[i].has {
		return LabelObservation{}, false
	}
	l := &ev.dims.labels[i]
	return LabelObservation{Expected: l.expected, Predicted: l.prediction, TopK: l.topk}, true
}

// Units returns the units of leaf or items dimension i the case expected
// and the response recognised (metrics.Tally: expected, recognised,
// correct, per value and type); false when the case does not annotate it.
func (ev *Evaluation) Units(i int) (*metrics.Tally, bool) {
	if i >= len(ev.dims.tallies) || !ev.dims.counted[i] {
		return nil, false
	}
	return &ev.dims.tallies[i], true
}

// CaseMet reports, for case dimension i, whether the case annotates it
// and, if so, whether all its expectations were met.
func (ev *Evaluation) CaseMet(i int) (met, annotated bool) {
	if i >= len(ev.dims.cases) || ev.dims.cases[i] == 0 {
		return false, false
	}
	return ev.dims.cases[i] > 0, true
}
