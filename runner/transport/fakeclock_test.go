package transport

import (
	"context"
	"slices"
	"sync"
	"time"
)

// FakeClock is a Clock for tests: Sleep advances the clock by exactly d and
// returns at once. It is safe for concurrent use and records every sleep.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the clock's current reading.
func (f *FakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep advances the clock by d (when positive) and records it. It returns
// ctx.Err() without advancing when ctx is already done.
func (f *FakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > 0 {
		f.now = f.now.Add(d)
		f.sleeps = append(f.sleeps, d)
	}
	return nil
}

// Advance moves the clock forward by d without recording a sleep.
func (f *FakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Sleeps returns a copy of the durations passed to Sleep, in order.
func (f *FakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sleeps)
}
