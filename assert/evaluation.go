package assert

import (
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// Evaluation is what evaluating one result found beyond its outcome and
// failures: the per-case analysis the collector's metric families count
// (today the dimension units: what each schema dimension expected and
// recognised). Evaluate returns it and Collector.Add takes it, so the
// analysis travels with the result explicitly, never hidden in it.
//
// One evaluation may be added to any number of collectors. Release hands
// its memory back for the next result once every collector has it; an
// evaluation never released is simply garbage collected.
type Evaluation struct {
	dims caseDims
	// confs are the label dimensions' confidences (labelconf.go).
	confs []confObs
}

var evaluationPool = sync.Pool{New: func() any { return &Evaluation{} }}

// newEvaluation returns an empty evaluation from the pool.
func newEvaluation() *Evaluation {
	ev := evaluationPool.Get().(*Evaluation)
	ev.dims.reset()
	ev.confs = ev.confs[:0]
	return ev
}

// Release returns ev's memory to the pool; ev must not be used after.
// A nil ev is a no-op.
func (ev *Evaluation) Release() {
	if ev != nil {
		evaluationPool.Put(ev)
	}
}

// Analyse returns the evaluation of r without changing r: for a result
// evaluated earlier whose evaluation is gone (Collector.Add re-derives it
// so a result never silently loses its dimension metrics).
func (e *Evaluator) Analyse(r *schema.Result) *Evaluation {
	cp := *r
	cp.Failures = nil
	return e.Evaluate(&cp)
}
