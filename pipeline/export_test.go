package pipeline

import (
	"math"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// SetReplayProbe makes every replay worker call f after each record it
// collected (f must be safe for concurrent use), until restore is called.
func SetReplayProbe(f func()) (restore func()) {
	old := afterRecord
	afterRecord = f
	return func() { afterRecord = old }
}

// EvalRecorder evaluates one result line at a time as a replay worker
// does (decode, rebuild into a case it reuses, evaluate), for
// BenchmarkEvalRecord.
type EvalRecorder struct {
	p    replayer
	r    schema.Result
	rest schema.Deferred
	into schema.Case
}

// NewEvalRecorder prepares an EvalRecorder.
func NewEvalRecorder(ev *assert.Evaluator, rb *spec.Rebuilder) *EvalRecorder {
	return &EvalRecorder{p: replayer{ev: ev, rb: rb}}
}

// Eval evaluates line and returns the result's outcome.
func (e *EvalRecorder) Eval(line []byte) (schema.Outcome, error) {
	ev, err := e.p.evaluate(&e.r, &e.rest, &e.into, line)
	if err != nil {
		return 0, err
	}
	ev.Release()
	return e.r.Outcome, nil
}

// ReadReplay runs a replay's reader alone over path, the workers' side
// only handing its batches back, for BenchmarkReplayReader.
func ReadReplay(path string) error {
	p := &replayer{path: path, work: make(chan *batch, 4), free: make(chan *batch, 6)}
	p.inflight.limit = replayInflight
	p.inflight.cond.L = &p.inflight.mu
	p.stopAt.Store(math.MaxInt64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range p.work {
			p.inflight.give(b.held)
			select {
			case p.free <- b:
			default:
			}
		}
	}()
	err := p.read(NewKeySet(), 0)
	close(p.work)
	<-done
	return err
}
