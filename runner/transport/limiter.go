package transport

import (
	"context"
	"math"
	"time"
)

// Clock is the time source of a Limiter and of retry back-off. RealClock is
// used in production; FakeClock (in the tests) makes pacing testable without
// wall-clock assertions.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, whichever comes first, and
	// returns ctx.Err() in the latter case.
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the Clock of the wall: time.Now and a timer.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits for d on a timer, returning early with ctx.Err() when ctx is
// done. A non-positive d returns ctx.Err() at once.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxWindowStarts bounds the sliding-window history of a Limiter so that very
// high rates do not keep an unbounded ring of start times.
const maxWindowStarts = 4096

// Limiter admits at most `rate` request starts per second. Waiters are served
// one at a time in arrival order (FIFO is not guaranteed under contention, but
// admission is serialized). Two rules apply to each start:
//
//  1. GCRA schedule: start k is not admitted before start k-1's scheduled time
//     plus 1/rate. The schedule advances from scheduled, not actual, times, so
//     a late timer wake-up is caught up on instead of lowering the rate.
//  2. Sliding window: start k is not admitted before start k-N's actual time
//     plus N/rate, where N = ceil(rate) (capped at 4096). This turns the
//     catch-up of rule 1 into "never more than N starts in any window of
//     N/rate seconds" — for rate 2, never 3 starts within one second.
//
// With a perfect clock both rules give starts exactly 1/rate apart. A nil
// *Limiter, or one made with rate <= 0, admits everything at once.
type Limiter struct {
	clk      Clock
	interval time.Duration // 1/rate rounded up to the nanosecond
	window   time.Duration // n × interval
	turn     chan struct{} // capacity 1: the admission token

	// Guarded by turn.
	next   time.Time   // scheduled time of the next start
	starts []time.Time // ring of the last len(starts) actual start times
	head   int         // index of the oldest entry once the ring is full
	filled int         // entries in the ring

	onStart func(time.Time) // test hook, called while holding turn
}

// NewLimiter returns a Limiter admitting at most rate starts per second on
// clk (RealClock when nil). A rate that is not positive and finite means
// unlimited.
func NewLimiter(rate float64, clk Clock) *Limiter {
	if clk == nil {
		clk = RealClock{}
	}
	l := &Limiter{clk: clk}
	if !(rate > 0) || math.IsInf(rate, 1) {
		return l
	}
	iv := math.Ceil(float64(time.Second) / rate)
	if iv < 1 {
		iv = 1
	}
	if iv > float64(math.MaxInt64/maxWindowStarts) {
		iv = float64(math.MaxInt64 / maxWindowStarts)
	}
	n := int(math.Min(math.Ceil(rate), maxWindowStarts))
	l.interval = time.Duration(iv)
	l.window = time.Duration(n) * l.interval
	l.starts = make([]time.Time, n)
	l.turn = make(chan struct{}, 1)
	return l
}

// Unlimited reports whether the limiter admits every start at once.
func (l *Limiter) Unlimited() bool { return l == nil || l.interval == 0 }

// Interval returns the minimum spacing between starts (1/rate rounded up to
// the nanosecond), or 0 when unlimited.
func (l *Limiter) Interval() time.Duration {
	if l == nil {
		return 0
	}
	return l.interval
}

// Wait blocks until a request may start, or until ctx is done, in which case
// it returns ctx.Err() and consumes no slot. It is safe for concurrent use.
func (l *Limiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.Unlimited() {
		return nil
	}
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.turn }()

	now := l.clk.Now()
	t := l.next
	if l.filled == len(l.starts) {
		if w := l.starts[l.head].Add(l.window); w.After(t) {
			t = w
		}
	}
	if t.Before(now) {
		t = now
	}
	if d := t.Sub(now); d > 0 {
		if err := l.clk.Sleep(ctx, d); err != nil {
			return err
		}
	}
	actual := l.clk.Now()
	if actual.Before(t) { // a clock that woke early: never start ahead of t
		if err := l.clk.Sleep(ctx, t.Sub(actual)); err != nil {
			return err
		}
		actual = l.clk.Now()
	}
	l.record(actual)
	l.next = t.Add(l.interval)
	if l.onStart != nil {
		l.onStart(actual)
	}
	return nil
}

func (l *Limiter) record(t time.Time) {
	if l.filled < len(l.starts) {
		l.starts[l.filled] = t
		l.filled++
		return
	}
	l.starts[l.head] = t
	l.head = (l.head + 1) % len(l.starts)
}
