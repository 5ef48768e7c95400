package runner

import (
	"context"
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// Config says how Run executes cases.
type Config struct {
	// Concurrency is the number of calls in flight at once (≥ 1).
	Concurrency int
	// Evaluate, when set, runs in the worker right after each call, so
	// assertion work is spread over the workers.
	Evaluate func(*schema.Result)
	// OnResult receives every result, one at a time, in completion order.
	// An error stops the run.
	OnResult func(*schema.Result) error
}

// Generator streams cases to yield and stops at the first error it returns.
type Generator func(yield func(*schema.Case) error) error

// Run calls the target with every case gen yields. When ctx is cancelled
// (Ctrl-C) no new call starts, calls in flight finish and are handed to
// OnResult, and Run returns ctx.Err(). Calls themselves are not cut short
// by ctx: each is bounded by the target's timeout.
func Run(ctx context.Context, caller Caller, gen Generator, cfg Config) error {
	conc := max(cfg.Concurrency, 1)
	callCtx := context.WithoutCancel(ctx)
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()

	cases := make(chan *schema.Case, conc*2)
	results := make(chan *schema.Result, conc*2)
	var genErr error
	go func() {
		defer close(cases)
		genErr = gen(func(c *schema.Case) error {
			select {
			case cases <- c:
				return nil
			case <-stopCtx.Done():
				return stopCtx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range cases {
				if stopCtx.Err() != nil {
					continue // drain: cases not started are not recorded
				}
				r := caller.Call(callCtx, c)
				if cfg.Evaluate != nil {
					cfg.Evaluate(r)
				}
				results <- r
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var sinkErr error
	for r := range results {
		if sinkErr != nil || cfg.OnResult == nil {
			continue
		}
		if err := cfg.OnResult(r); err != nil {
			sinkErr = err
			stop()
		}
	}
	switch {
	case sinkErr != nil:
		return sinkErr
	case ctx.Err() != nil:
		return ctx.Err()
	case genErr != nil:
		return genErr
	}
	return nil
}
