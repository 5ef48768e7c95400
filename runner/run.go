package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// Config says how Run executes scripts. E is the per-result evaluation
// value the caller's Evaluate produces and OnResult consumes.
type Config[E any] struct {
	// Concurrency is the number of scripts in flight at once (≥ 1); each
	// has at most one call in flight.
	Concurrency int
	// Evaluate, when set, runs in the worker right after each turn's call,
	// so assertion work is spread over the workers.
	Evaluate func(*schema.Result) E
	// OnResult receives every result with its evaluation, one at a time,
	// in completion order (the turns of one script in turn order). An error
	// stops the run.
	OnResult func(*schema.Result, E) error
	// OnDropped, when set, receives, one at a time, each failed call that
	// is not a result (see Run) and so is not handed to OnResult.
	OnDropped func(*schema.Result)
	// OnIdle, when set, is called after OnResult (or OnDropped) whenever
	// no other finished turn is waiting, so Run is about to wait for the
	// next: a sink that gathers results (ResultsWriter.Add) writes them
	// then. Results that finish together share one write; a run whose
	// calls finish one at a time still writes each at once. An error
	// stops the run as one from OnResult does.
	OnIdle func() error
	// IdleGap, when positive, spaces OnIdle's calls: within IdleGap of
	// its last call OnIdle is not called again; the turns handed on
	// meanwhile get it when the gap ends (a timer), even if Run is then
	// waiting, or as Run ends, whichever comes first. So a run whose
	// calls finish far apart still has OnIdle after each, while under
	// load a sink writes at most once per gap, and nothing handed on
	// waits longer than the gap for OnIdle.
	IdleGap time.Duration
}

// CallGrace is how long calls in flight may go on after ctx is cancelled
// before they are cut short.
var CallGrace = 500 * time.Millisecond

// NotAResult reports whether r is a failed call that says nothing about
// the target: a failure on this side (CallError.Local: out of file
// descriptors), or any failure once the run was interrupted (a call cut
// short, the embedded demo service stopping). Such calls are not recorded,
// so `run --resume` calls them again and they never change a verdict.
func NotAResult(r *schema.Result, interrupted bool) bool {
	return r.Error != nil && (r.Error.Local || interrupted)
}

// ScriptSource streams scripts to yield and stops at the first error it
// returns.
type ScriptSource func(yield func(*schema.Script) error) error

// done is one finished turn on its way from a worker to OnResult (or, for
// a call that is not a result, to OnDropped).
type done[E any] struct {
	r       *schema.Result
	ev      E
	dropped bool
}

// Run runs every script scripts yields against the target: the turns of a
// script in order, in one session, within one worker; scripts in parallel
// up to cfg.Concurrency. A turn whose call errors ends its script: later
// turns are not called.
//
// When ctx is cancelled (Ctrl-C) no new script starts, calls in flight
// get CallGrace to finish, then are cut short, and Run returns ctx.Err().
// A call that fails once ctx is cancelled, or fails on this side (see
// NotAResult), is not a result: it goes to OnDropped, not OnResult, and
// ends its script. When OnResult fails, scripts in flight stop after their
// current turn and Run returns that error.
func Run[E any](ctx context.Context, caller Caller, scripts ScriptSource, cfg Config[E]) error {
	conc := max(cfg.Concurrency, 1)
	callCtx, cutCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cutCalls()
	// The grace is read here, not in the function below: that function
	// may still be starting when Run returns (ctx cancelled just then),
	// and must not read the variable after Run is done with it.
	grace := CallGrace
	defer context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cutCalls()
		case <-callCtx.Done(): // Run returned
		}
	})()
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()

	queue := make(chan *schema.Script, conc*2)
	results := make(chan done[E], conc*2)
	var halted atomic.Bool // OnResult failed: abandon the turns left
	var genErr error
	go func() {
		defer close(queue)
		genErr = scripts(func(s *schema.Script) error {
			select {
			case queue <- s:
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
			for s := range queue {
				if stopCtx.Err() != nil {
					continue // drain: scripts not started are not recorded
				}
				runScript(callCtx, ctx, caller, s, &cfg, results, &halted)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	sinkErr := sink(&cfg, results, func() { halted.Store(true); stop() })
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

// sink hands every finished turn on results to cfg's sinks (deliver) and
// calls OnIdle as Config says, until results is closed. It returns the
// first error of OnResult or OnIdle, having called halt at once: no sink
// is called after it, OnDropped aside.
func sink[E any](cfg *Config[E], results <-chan done[E], halt func()) error {
	var sinkErr error
	fail := func(err error) {
		if err != nil && sinkErr == nil {
			sinkErr = err
			halt()
		}
	}
	idle := idler{gap: cfg.IdleGap, onIdle: cfg.OnIdle}
	defer idle.stop()
	for {
		var d done[E]
		var ok bool
		if due := idle.due(); due == nil {
			d, ok = <-results // a receive costs less than a select
		} else {
			select {
			case d, ok = <-results:
			case <-due:
				if sinkErr == nil {
					fail(idle.call())
				}
				continue
			}
		}
		if !ok {
			break
		}
		err := deliver(cfg, d, sinkErr != nil)
		if err == nil && sinkErr == nil && len(results) == 0 {
			err = idle.handedOn()
		}
		fail(err)
	}
	if idle.armed && sinkErr == nil {
		fail(idle.call()) // the last turns handed on do not wait for the gap
	}
	return sinkErr
}

// idler calls a Config's OnIdle for Run, no more often than once per gap
// (see Config.IdleGap).
type idler struct {
	gap    time.Duration
	onIdle func() error
	last   time.Time   // when onIdle last ran
	timer  *time.Timer // armed while turns handed on wait for the gap to end
	armed  bool
}

// handedOn is called when every finished turn has been handed on: it
// calls onIdle now, or arms the timer for the end of the gap.
func (i *idler) handedOn() error {
	if i.onIdle == nil || i.armed {
		return nil
	}
	if i.gap <= 0 {
		return i.onIdle()
	}
	now := time.Now()
	if wait := i.gap - now.Sub(i.last); wait > 0 {
		if i.timer == nil {
			i.timer = time.NewTimer(wait)
		} else {
			i.timer.Reset(wait)
		}
		i.armed = true
		return nil
	}
	i.last = now
	return i.onIdle()
}

// due is the armed timer's channel; nil (never ready) when none is armed.
func (i *idler) due() <-chan time.Time {
	if !i.armed {
		return nil
	}
	return i.timer.C
}

// call runs onIdle once the timer fired.
func (i *idler) call() error {
	i.armed = false
	i.last = time.Now()
	return i.onIdle()
}

func (i *idler) stop() {
	if i.timer != nil {
		i.timer.Stop()
	}
}

// deliver hands d to OnDropped or, unless the sink already failed, to
// OnResult, and returns OnResult's error.
func deliver[E any](cfg *Config[E], d done[E], failed bool) error {
	if d.dropped {
		if cfg.OnDropped != nil {
			cfg.OnDropped(d.r)
		}
		return nil
	}
	if failed || cfg.OnResult == nil {
		return nil
	}
	return cfg.OnResult(d.r, d.ev)
}

// runScript runs the turns of one script in one session and sends each
// result on. It stops at the first turn whose call errors. In a script of
// several turns, the result that ends it (the last turn, or the turn whose
// call errored) carries the number of turns that ran (ScriptTurns): a
// script that never sends one was cut short and must not be recorded.
// A failed call that is not a result (NotAResult, judged against runCtx)
// is sent as dropped.
func runScript[E any](ctx, runCtx context.Context, caller Caller, s *schema.Script, cfg *Config[E], results chan<- done[E], halted *atomic.Bool) {
	if s.Len() == 0 {
		return
	}
	send := func(r *schema.Result) {
		if NotAResult(r, runCtx.Err() != nil) {
			results <- done[E]{r: r, dropped: true}
			return
		}
		var ev E
		if cfg.Evaluate != nil {
			ev = cfg.Evaluate(r)
		}
		results <- done[E]{r: r, ev: ev}
	}
	multi := s.Turns[0].Turn > 0
	if multi { // a conversation: a new session id each run
		sid := NewSessionID(s.ID)
		for _, t := range s.Turns {
			t.Conversation = sid
		}
	}
	sess, err := caller.Open(ctx, s)
	if err != nil {
		r := SessionError(s.Turns[0], err)
		if multi {
			r.ScriptTurns = 1
		}
		send(r)
		return
	}
	defer sess.Close()
	var history []schema.Message
	var tools earlierTools
	turn := s.Turns[0]
	for i := 0; turn != nil; i++ {
		if i > 0 && halted.Load() {
			return
		}
		turn.History = history
		r := sess.Call(ctx, turn, history)
		r.History, turn.History = nil, nil // each turn's would keep an older copy of the history
		var next *schema.Case
		if r.Error == nil {
			next = nextTurn(s, i, r)
		}
		if next != nil {
			if multi {
				next.Conversation = turn.Conversation
			}
			if turn.Event != schema.EventStart { // the bot spoke first: no user message
				history = append(history, schema.Message{Role: "user", Content: turn.Text})
			}
			history = append(history, schema.Message{Role: "assistant", Content: r.Reply})
			if s.After != nil {
				s.After(i, r, next)
			}
		}
		if multi && next == nil {
			r.ScriptTurns = i + 1 // this turn ends the script
			if len(tools) > 0 {
				r.EarlierTools = tools
			}
			if s.FinalState != nil && r.Error == nil {
				readFinalState(ctx, sess, s.FinalState, r)
			}
		}
		tools.add(r)
		send(r)
		if r.Error != nil {
			return
		}
		turn = next
	}
}

// nextTurn is the turn after turn i (whose result is r) of script s: the
// next of its Turns, else what its Next computes (a dynamic script), else
// nil at the end.
func nextTurn(s *schema.Script, i int, r *schema.Result) *schema.Case {
	if i+1 < s.Len() {
		return s.At(i + 1)
	}
	if s.Next != nil {
		c := s.Next(i, r)
		if c != nil {
			c.Repeat = r.Repeat // the same repetition (--repeat)
		}
		return c
	}
	return nil
}
