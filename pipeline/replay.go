package pipeline

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Replay feeds a results file into the collector: each result is
// re-evaluated against the suite (rebuilt from the suite as it is now when
// rb is set). One goroutine reads lines in batches and drops repeated ids
// (the first record of an id wins; seen collects the ids); every core
// decodes, evaluates and collects batches into a collector of its own, and
// the collectors merge at the end by sequence number, so reports never
// depend on scheduling. It returns the number of results whose case could
// not be rebuilt and kept their recorded expectations. A record that does
// not decode is an error naming its line (the first such line).
func Replay(path string, ev *assert.Evaluator, rb *spec.Rebuilder, col *assert.Collector, seen *KeySet) (int, error) {
	workers := runtime.GOMAXPROCS(0)
	p := &replayer{path: path, ev: ev, rb: rb,
		work: make(chan *batch, 2*workers), free: make(chan *batch, 3*workers)}
	p.inflight.limit = max(replayInflight, workers*replayInflightPerWorker)
	p.inflight.cond.L = &p.inflight.mu
	p.stopAt.Store(math.MaxInt64)
	cols := make([]*assert.Collector, workers)
	var wg sync.WaitGroup
	for w := range workers {
		cols[w] = col.Fork()
		wg.Add(1)
		go func(c *assert.Collector) {
			defer wg.Done()
			p.worker(c)
		}(cols[w])
	}
	// Sequence numbers continue after what the collector holds (an earlier
	// run directory).
	err := p.read(seen, col.Next())
	close(p.work)
	wg.Wait()
	if err != nil && err != errStop {
		return 0, err
	}
	if p.firstErr != nil {
		return 0, p.firstErr
	}
	for _, c := range cols {
		col.Merge(c)
	}
	return int(p.stale.Load()), nil
}

// How the reader cuts the file into batches, and how much of it may be
// read ahead of the workers. A batch is at most replayBatch lines and at
// most replayBatchBytes (a longer line is a batch alone), and the batches
// handed out and not finished yet hold at most the in-flight budget
// (replayInflight, or replayInflightPerWorker per core on a machine with
// many) — or a single batch over it — so memory does not grow with the
// size or number of the records: the audit of 2026-12-01 saw eval of 150
// results with 8 MB responses peak at 4.6 GB when the reader gathered them
// all in one batch. Records of an ordinary size (1–2 KB) fill batches of
// 512 lines, and the budget is never reached.
const (
	replayBatch             = 512
	replayBatchBytes        = 1 << 20
	replayInflight          = 16 << 20
	replayInflightPerWorker = 4 << 20
)

// batch is a run of result lines for one worker.
type batch struct {
	buf   []byte  // the batch's lines, back to back
	ends  []int   // end of each line in buf
	lines []int   // line number of each
	seqs  []int64 // sequence number of each
	held  int     // bytes taken from the in-flight budget
}

// budget bounds the bytes of the batches handed to workers and not
// finished yet. One batch is let through whatever its size when none is
// in flight, so a line longer than the budget is read, not refused.
type budget struct {
	mu          sync.Mutex
	cond        sync.Cond
	used, limit int
}

// take waits until n bytes fit in the budget (or nothing is in flight).
func (b *budget) take(n int) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.limit {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

// give returns n bytes to the budget.
func (b *budget) give(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Signal() // one reader waits
}

// replayer is the shared state of one Replay.
type replayer struct {
	path       string
	ev         *assert.Evaluator
	rb         *spec.Rebuilder
	work, free chan *batch
	inflight   budget
	// stopAt is the first line known to be bad (math.MaxInt64 while none
	// is): lines after it need no work, lines before it still get
	// decoded, so the error reported is the first bad line's whatever
	// the workers' timing.
	stopAt   atomic.Int64
	stale    atomic.Int64
	mu       sync.Mutex
	firstErr error
}

var errStop = errors.New("stop")

// afterRecord, when set (by tests), is called by a worker after each record
// it collected: the memory tests measure the live heap there.
var afterRecord func()

// fail records the error of a line; the error of the first line wins.
func (p *replayer) fail(line int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if int64(line) < p.stopAt.Load() {
		p.firstErr = err
		p.stopAt.Store(int64(line))
	}
}

// past reports whether line comes after the first bad line found so far.
func (p *replayer) past(line int) bool { return int64(line) > p.stopAt.Load() }

// read hands batches of first-seen lines to the workers. A line whose key
// is a generated id (hexKey) goes into the batch at once and its key waits
// with up to keyGroup-1 others: the group is looked up in the key set
// together (KeySet.addHexGroup), which loads their table slots at once
// instead of one cache miss after another, and the lines of keys seen
// before are then taken out of the batch. Other keys are looked up as
// their line comes (the two kinds of key never meet).
func (p *replayer) read(seen *KeySet, seq int64) error {
	r := &batchReader{p: p, seen: seen, seq: seq, cur: &batch{}}
	err := runner.ReadLines(p.path, r.line)
	r.flush()
	if len(r.cur.ends) > 0 {
		r.send()
	}
	return err
}

// keyGroup is how many generated ids the reader looks up together.
const keyGroup = 16

// batchReader is the reader's state: the batch being filled and the
// keys of its lines not looked up yet.
type batchReader struct {
	p    *replayer
	seen *KeySet
	seq  int64 // the next line's sequence number
	cur  *batch
	key  []byte
	// pending are the generated ids of the last lines of cur, by line
	// index in cur, not looked up yet.
	pending [keyGroup]uint64
	at      [keyGroup]int
	added   [keyGroup]bool
	npend   int
}

// line is the ReadLines callback.
func (r *batchReader) line(line []byte, n int) error {
	p := r.p
	if p.past(n) {
		return errStop
	}
	var err error
	if r.key, err = schema.AppendRecordKey(r.key[:0], line); err != nil {
		p.fail(n, &runner.RecordError{Path: p.path, Line: n, Err: err})
		return errStop
	}
	hk, isHex := hexKey(r.key)
	if !isHex && !r.seen.AddBytes(r.key) {
		return nil
	}
	cur := r.cur
	if len(cur.ends) > 0 && len(cur.buf)+len(line) > replayBatchBytes {
		r.flush()
		if len(cur.ends) > 0 {
			r.send() // a long line goes alone
			cur = r.cur
		}
	}
	if len(cur.ends) == 0 && len(line) > cap(cur.buf) {
		cur.buf = make([]byte, 0, len(line)) // its size, not doubled
	}
	cur.buf = append(cur.buf, line...)
	cur.ends = append(cur.ends, len(cur.buf))
	cur.lines = append(cur.lines, n)
	if isHex {
		r.pending[r.npend], r.at[r.npend] = hk, len(cur.ends)-1
		if r.npend++; r.npend == keyGroup {
			r.flush()
		}
	}
	if len(cur.ends) >= replayBatch || len(cur.buf) >= replayBatchBytes {
		r.flush()
		if len(cur.ends) > 0 {
			r.send()
		}
	}
	return nil
}

// flush looks the pending ids up and takes the lines of those seen
// before out of the batch.
func (r *batchReader) flush() {
	n := r.npend
	if n == 0 {
		return
	}
	r.npend = 0
	r.seen.hex.addGroup(r.pending[:n], r.added[:n])
	for i := range n {
		if !r.added[i] {
			r.cur.drop(r.at[:n], r.added[:n])
			return
		}
	}
}

// drop takes out of b the lines at[i] for which keep[i] is false (at
// ascends).
func (b *batch) drop(at []int, keep []bool) {
	w, k := 0, 0 // lines kept so far; next entry of at
	start, wbuf := 0, 0
	for i, end := range b.ends {
		if k < len(at) && at[k] == i {
			k++
			if !keep[k-1] {
				start = end
				continue
			}
		}
		wbuf += copy(b.buf[wbuf:], b.buf[start:end])
		start = end
		b.ends[w], b.lines[w] = wbuf, b.lines[i]
		w++
	}
	b.buf, b.ends, b.lines = b.buf[:wbuf], b.ends[:w], b.lines[:w]
}

// send numbers the lines of the current batch and hands it to the workers
// (send).
func (r *batchReader) send() {
	b := r.cur
	for range b.ends {
		b.seqs = append(b.seqs, r.seq)
		r.seq++
	}
	r.cur = r.p.send(b)
}

// send hands b to the workers once the in-flight budget has room for it
// and returns an empty batch (a recycled one when a worker has freed one).
func (p *replayer) send(b *batch) *batch {
	b.held = cap(b.buf)
	p.inflight.take(b.held)
	p.work <- b
	select {
	case b = <-p.free:
		b.buf, b.ends, b.lines, b.seqs = b.buf[:0], b.ends[:0], b.lines[:0], b.seqs[:0]
		return b
	default:
		return &batch{}
	}
}

// worker decodes, rebuilds, evaluates and collects batches into c.
func (p *replayer) worker(c *assert.Collector) {
	var r schema.Result
	var rest schema.Deferred
	// into is where cases are rebuilt: its slot map and expectations serve
	// every result in turn (the collector keeps no reference to them).
	var into schema.Case
	lineNo, held := 0, 0
	defer func() {
		// A bug must not take the process down without a word: it becomes
		// this record's error, and the channel is drained so the reader
		// finishes.
		if x := recover(); x != nil {
			p.fail(lineNo, fmt.Errorf("%s:%d: internal error evaluating this record: %v (please report it)", p.path, lineNo, x))
			p.inflight.give(held)
			for b := range p.work {
				p.inflight.give(b.held)
			}
		}
	}()
	for b := range p.work {
		held = b.held
		start := 0
		for i, end := range b.ends {
			line := b.buf[start:end]
			start = end
			lineNo = b.lines[i]
			if p.past(lineNo) {
				break // lines of a batch ascend
			}
			evaluation, err := p.evaluate(&r, &rest, &into, line)
			if err != nil {
				p.fail(lineNo, &runner.RecordError{Path: p.path, Line: lineNo, Err: err})
				break
			}
			c.AddAt(&r, evaluation, b.seqs[i])
			evaluation.Release()
			if afterRecord != nil {
				afterRecord()
			}
		}
		p.inflight.give(b.held)
		held = 0
		if cap(b.buf) > 2*replayBatchBytes {
			continue // a long line's buffer is not kept
		}
		select {
		case p.free <- b:
		default:
		}
	}
}

// evaluate decodes one record into r, rebuilds its case from the suite when
// it can (in into, else decodes the recorded case), and evaluates it.
func (p *replayer) evaluate(r *schema.Result, rest *schema.Deferred, into *schema.Case, line []byte) (*assert.Evaluation, error) {
	if err := r.DecodeForEval(line, rest); err != nil {
		return nil, err
	}
	rebuilt := false
	if p.rb != nil {
		if c, ok := p.rb.RebuildRecordInto(into, &r.Case, rest.Slots); ok {
			r.Case, rebuilt = *c, true
		} else {
			p.stale.Add(1)
		}
	}
	if !rebuilt {
		if err := rest.DecodeCase(&r.Case); err != nil {
			return nil, err
		}
	}
	return p.ev.EvaluateParsed(r, rest.Response()), nil
}
