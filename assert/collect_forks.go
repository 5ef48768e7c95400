package assert

import (
	"sync"
	"sync/atomic"
)

// forkGroup tells the collectors forked from one collector (eval's
// workers, fed disjoint results) how many cases of each kind the others
// have listed, so that a fork stops listing cases that cannot be among
// the first schema.MaxReportCases of their kind in the run's order: those
// the merge would drop. Without it every worker keeps its own 100,000
// passing cases, most of which the merge then throws away.
type forkGroup struct {
	mu    sync.Mutex // serialises Fork
	forks atomic.Pointer[[]*forkProgress]
}

// add registers a new fork. Forks already fed results may be reading the
// list: it is replaced, never changed.
func (g *forkGroup) add() *forkProgress {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := &forkProgress{group: g}
	var forks []*forkProgress
	if old := g.forks.Load(); old != nil {
		forks = append(forks, *old...)
	}
	forks = append(forks, p)
	g.forks.Store(&forks)
	return p
}

// forkProgress is what one fork has listed, per kind (0 passing, 1 not):
// how many cases, and the highest sequence number among them. It is
// written by its fork only and read by the others.
type forkProgress struct {
	group *forkGroup
	n     [2]atomic.Int64
	last  [2]atomic.Int64
	_     [64]byte // the forks' counters sit on their own cache lines
}

// kept records that the fork listed a case of kind numbered seq. The
// highest number is published before the count, so a reader that sees a
// count and then a highest number below some seq knows that every case
// counted comes before seq.
func (p *forkProgress) kept(kind int, seq int64) {
	if p == nil {
		return
	}
	if seq > p.last[kind].Load() {
		p.last[kind].Store(seq)
	}
	p.n[kind].Add(1)
}

// listedBefore returns a lower bound of the number of cases of kind the
// forks of p's group have listed with a number below seq: the cases of
// each fork whose highest listed number is below seq. 0 for a collector
// that was not forked.
func (p *forkProgress) listedBefore(kind int, seq int64) int {
	if p == nil {
		return 0
	}
	total := 0
	for _, f := range *p.group.forks.Load() {
		n := f.n[kind].Load()
		if f.last[kind].Load() < seq {
			total += int(n)
		}
	}
	return total
}
