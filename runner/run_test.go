package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// fakeCaller is a Caller whose sessions record what they were asked.
// A turn whose text starts with "fail" errors; hook, when set, runs before
// each call (to block or signal).
type fakeCaller struct {
	mu      sync.Mutex
	calls   []string // "script/turn", in call order
	opened  atomic.Int32
	openErr map[string]error
	hook    func(script string, turn int)
}

type fakeSession struct {
	c      *fakeCaller
	script *schema.Script
	next   int
	closed bool
}

func (f *fakeCaller) Preflight(context.Context) error { return nil }
func (f *fakeCaller) Close()                          {}
func (f *fakeCaller) Open(_ context.Context, s *schema.Script) (Session, error) {
	if err := f.openErr[s.ID]; err != nil {
		return nil, err
	}
	f.opened.Add(1)
	return &fakeSession{c: f, script: s}, nil
}

func (s *fakeSession) Call(_ context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	i := s.next
	s.next++
	if s.closed || s.script.Turns[i] != turn {
		panic(fmt.Sprintf("script %s: turn %d called out of order or after Close", s.script.ID, i))
	}
	if len(history) != 2*i {
		panic(fmt.Sprintf("script %s turn %d: history of %d messages, want %d", s.script.ID, i, len(history), 2*i))
	}
	for j := range i {
		if history[2*j].Role != "user" || history[2*j].Content != s.script.Turns[j].Text || history[2*j+1].Role != "assistant" || history[2*j+1].Content != "re:"+s.script.Turns[j].Text {
			panic(fmt.Sprintf("script %s turn %d: history %v", s.script.ID, i, history))
		}
	}
	if s.c.hook != nil {
		s.c.hook(s.script.ID, i)
	}
	s.c.mu.Lock()
	s.c.calls = append(s.c.calls, fmt.Sprintf("%s/%d", s.script.ID, i))
	s.c.mu.Unlock()
	r := &schema.Result{Case: *turn, Response: []byte(`"re:` + turn.Text + `"`), Reply: "re:" + turn.Text}
	if strings.HasPrefix(turn.Text, "fail") {
		r.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "boom"}
		r.Response = nil
	}
	return r
}

func (s *fakeSession) Close() { s.closed = true }

func (f *fakeCaller) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// script builds a script whose turn texts are given; turn ids are ID/i.
func script(id string, texts ...string) *schema.Script {
	s := &schema.Script{ID: id}
	for i, t := range texts {
		s.Turns = append(s.Turns, &schema.Case{ID: fmt.Sprintf("%s/%d", id, i), Text: t})
	}
	return s
}

func source(scripts ...*schema.Script) ScriptSource {
	return func(yield func(*schema.Script) error) error {
		for _, s := range scripts {
			if err := yield(s); err != nil {
				return err
			}
		}
		return nil
	}
}

// collect runs the scripts and returns the ids of the results OnResult got,
// in order, with the evaluation Evaluate gave each.
func collect(t *testing.T, ctx context.Context, c Caller, conc int, scripts ...*schema.Script) ([]string, error) {
	t.Helper()
	var got []string
	err := Run(ctx, c, source(scripts...), Config[string]{
		Concurrency: conc,
		Evaluate:    func(r *schema.Result) string { return "ev:" + r.ID },
		OnResult: func(r *schema.Result, ev string) error {
			if ev != "ev:"+r.ID {
				t.Errorf("result %s came with evaluation %q", r.ID, ev)
			}
			got = append(got, r.ID)
			return nil
		},
	})
	return got, err
}

func TestRunTurnsInOrderWithHistory(t *testing.T) {
	var scripts []*schema.Script
	for i := range 20 {
		scripts = append(scripts, script(fmt.Sprintf("s%d", i), "a", "b", "c", "d", "e"))
	}
	c := &fakeCaller{}
	got, err := collect(t, context.Background(), c, 4, scripts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100 || c.opened.Load() != 20 {
		t.Fatalf("%d results from %d sessions, want 100 from 20", len(got), c.opened.Load())
	}
	last := map[string]int{}
	for _, id := range got {
		var s string
		var turn int
		fmt.Sscanf(strings.Replace(id, "/", " ", 1), "%s %d", &s, &turn)
		if prev, ok := last[s]; (ok && turn != prev+1) || (!ok && turn != 0) {
			t.Fatalf("OnResult got %s after turn %d of the same script", id, prev)
		}
		last[s] = turn
	}
}

func TestRunScriptsInParallel(t *testing.T) {
	// Each script's first turn waits until both scripts are in a call: it
	// can only finish when two sessions run at once.
	var wg sync.WaitGroup
	wg.Add(2)
	c := &fakeCaller{hook: func(_ string, turn int) {
		if turn != 0 {
			return
		}
		wg.Done()
		ch := make(chan struct{})
		go func() { wg.Wait(); close(ch) }()
		select {
		case <-ch:
		case <-time.After(hangLimit):
			panic("the second script never started while the first was in a call")
		}
	}}
	got, err := collect(t, context.Background(), c, 2, script("a", "1", "2"), script("b", "1", "2"))
	if err != nil || len(got) != 4 {
		t.Fatalf("results %v, error %v", got, err)
	}
}

func TestRunErrorEndsScript(t *testing.T) {
	c := &fakeCaller{openErr: map[string]error{"closed": errors.New("no session")}}
	got, err := collect(t, context.Background(), c, 1,
		script("a", "1", "fail", "3"), script("closed", "1", "2"), script("b", "1", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a/0 a/1 closed/0 b/0 b/1"; strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s", got, want)
	}
	if want := "a/0 a/1 b/0 b/1"; strings.Join(c.called(), " ") != want {
		t.Errorf("calls %v, want %s (no call after a failed turn or for an unopened session)", c.called(), want)
	}
}

func TestRunSessionErrorRecorded(t *testing.T) {
	c := &fakeCaller{openErr: map[string]error{"x": errors.New("no session today")}}
	var rs []*schema.Result
	err := Run(context.Background(), c, source(script("x", "1", "2")), Config[struct{}]{
		OnResult: func(r *schema.Result, _ struct{}) error { rs = append(rs, r); return nil },
	})
	if err != nil || len(rs) != 1 {
		t.Fatalf("%d results, error %v", len(rs), err)
	}
	if e := rs[0].Error; e == nil || e.Type != ErrSession || e.Message != "no session today" || rs[0].Outcome != schema.Error {
		t.Errorf("first turn of an unopened session: %+v", rs[0])
	}
}

func TestRunCancelFinishesScriptsInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan struct{})
	c := &fakeCaller{hook: func(s string, turn int) {
		if s == "a" && turn == 1 {
			<-cancelled // the second turn starts after Ctrl-C
		}
	}}
	var got []string
	err := Run(ctx, c, source(script("a", "1", "2", "3"), script("b", "1"), script("c", "1")), Config[struct{}]{
		Concurrency: 1,
		OnResult: func(r *schema.Result, _ struct{}) error {
			got = append(got, r.ID)
			if r.ID == "a/0" {
				cancel()
				close(cancelled)
			}
			return nil
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if want := "a/0 a/1 a/2"; strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s: the script in flight finishes, no new script starts", got, want)
	}
}

func TestRunOnResultErrorStops(t *testing.T) {
	sinkErr := errors.New("disk full")
	// a's second turn returns only once Run has stopped taking scripts
	// (the source's yield fails), which it does right after it saw the
	// OnResult error: so Run knows of the error before the turn ends,
	// however the goroutines are scheduled.
	stopped := make(chan struct{})
	c := &fakeCaller{hook: func(s string, turn int) {
		if s == "a" && turn == 1 {
			<-stopped
		}
	}}
	// More scripts than the queue holds, so the source is blocked in
	// yield until Run stops.
	src := func(yield func(*schema.Script) error) error {
		for i := 0; ; i++ {
			s := script(fmt.Sprintf("x%d", i), "1")
			switch i {
			case 0:
				s = script("a", "1", "2", "3")
			case 1:
				s = script("b", "1")
			}
			if err := yield(s); err != nil {
				close(stopped)
				return err
			}
		}
	}
	var n int
	err := Run(context.Background(), c, src, Config[struct{}]{
		Concurrency: 1,
		OnResult: func(r *schema.Result, _ struct{}) error {
			n++
			if r.ID == "a/0" {
				return sinkErr
			}
			return nil
		},
	})
	if !errors.Is(err, sinkErr) {
		t.Errorf("Run returned %v, want the OnResult error", err)
	}
	if n != 1 {
		t.Errorf("OnResult was called %d times after its error", n-1)
	}
	if want := "a/0 a/1"; strings.Join(c.called(), " ") != want {
		t.Errorf("calls %v, want %s: no turn and no script after OnResult failed", c.called(), want)
	}
}

func TestRunSourceError(t *testing.T) {
	genErr := errors.New("bad template")
	err := Run(context.Background(), &fakeCaller{}, func(yield func(*schema.Script) error) error {
		if err := yield(script("a", "1")); err != nil {
			return err
		}
		return genErr
	}, Config[struct{}]{})
	if !errors.Is(err, genErr) {
		t.Errorf("Run returned %v, want the source's error", err)
	}
}

func TestCallOneStateless(t *testing.T) {
	c := &fakeCaller{}
	r := CallOne(context.Background(), c, &schema.Case{ID: "x", Text: "hi"})
	if string(r.Response) != `"re:hi"` || c.opened.Load() != 1 {
		t.Errorf("CallOne: %+v, %d sessions", r, c.opened.Load())
	}
}

// ctxCaller's sessions wait for their context (a hanging service) when
// the turn text is "hang", and fail locally when it is "emfile". Each call
// sends its text on started first.
type ctxCaller struct {
	fakeCaller
	started chan string
}

type ctxSession struct{ c *ctxCaller }

func (c *ctxCaller) Open(context.Context, *schema.Script) (Session, error) { return ctxSession{c}, nil }
func (ctxSession) Close()                                                  {}
func (s ctxSession) Call(ctx context.Context, turn *schema.Case, _ []schema.Message) *schema.Result {
	s.c.started <- turn.Text
	r := &schema.Result{Case: *turn}
	switch turn.Text {
	case "hang":
		<-ctx.Done()
		r.Error = &schema.CallError{Type: schema.ErrConnection, Message: "server closed"}
	case "emfile":
		r.Error = &schema.CallError{Type: schema.ErrConnection, Message: "socket: too many open files", Local: true}
	default:
		r.Response = []byte(`{}`)
	}
	return r
}

func TestRunInterruptionErrorsAreNotResults(t *testing.T) {
	old := CallGrace
	CallGrace = 50 * time.Millisecond
	defer func() { CallGrace = old }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The interrupt comes once all four calls started and ok/0 is
	// recorded, whatever the machine's speed.
	c := &ctxCaller{started: make(chan string, 4)}
	okRecorded := make(chan struct{})
	go func() {
		for range 4 {
			<-c.started
		}
		<-okRecorded
		cancel()
	}()
	var recorded, dropped []string
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, c, source(script("ok", "fine"), script("emfile", "emfile"), script("h1", "hang"), script("h2", "hang")), Config[struct{}]{
			Concurrency: 4,
			OnResult: func(r *schema.Result, _ struct{}) error {
				recorded = append(recorded, r.ID)
				if r.ID == "ok/0" {
					close(okRecorded)
				}
				return nil
			},
			OnDropped: func(r *schema.Result) { dropped = append(dropped, r.ID) },
		})
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangLimit):
		t.Fatalf("Run still waits for the hanging calls %s after the interrupt: they were not cut short after the grace", hangLimit)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	sort.Strings(dropped)
	if strings.Join(recorded, " ") != "ok/0" || strings.Join(dropped, " ") != "emfile/0 h1/0 h2/0" {
		t.Errorf("recorded %v, dropped %v: want only ok/0 recorded; a local failure and calls failing after the interrupt are not results", recorded, dropped)
	}
}

// hangLimit bounds a wait for something that must happen; it is never a
// timing assertion (a working Run is far within it on any machine).
const hangLimit = 3 * time.Minute

// echoCaller answers every turn with "re:" and its text; a text starting
// with "fail" errors.
type echoCaller struct{ histories [][]schema.Message }

func (e *echoCaller) Preflight(context.Context) error                       { return nil }
func (e *echoCaller) Close()                                                {}
func (e *echoCaller) Open(context.Context, *schema.Script) (Session, error) { return e, nil }
func (e *echoCaller) Call(_ context.Context, turn *schema.Case, h []schema.Message) *schema.Result {
	e.histories = append(e.histories, h)
	r := &schema.Result{Case: *turn, Reply: "re:" + turn.Text, Response: []byte(`"re:` + turn.Text + `"`)}
	if strings.HasPrefix(turn.Text, "fail") {
		r.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "boom"}
	}
	return r
}

// TestRunDynamicScript: a script with Next runs the turns Next computes
// from each result until it returns nil; the state Next needs travels in
// the cases (Agenda), the session id is the script's, and only the last
// turn carries the script's turn count. A turn whose call errors ends it.
func TestRunDynamicScript(t *testing.T) {
	mk := func(stop int, failAt int) *schema.Script {
		s := &schema.Script{ID: "sc", Turns: []*schema.Case{{ID: "sc/1", Script: "sc", Turn: 1, Text: "你好", Agenda: 1}}}
		s.Next = func(i int, r *schema.Result) *schema.Case {
			n := r.Agenda.(int)
			if n >= stop {
				return nil
			}
			text := "第" + strconv.Itoa(n+1) + "轮 " + r.Reply
			if n+1 == failAt {
				text = "fail " + text
			}
			return &schema.Case{ID: "sc/" + strconv.Itoa(n+1), Script: "sc", Turn: n + 1, Text: text, Agenda: n + 1}
		}
		return s
	}
	for _, tc := range []struct {
		name         string
		stop, failAt int
		want         []string
		stamps       []int
	}{
		{"ends when Next says", 3, 0, []string{"你好", "第2轮 re:你好", "第3轮 re:第2轮 re:你好"}, []int{0, 0, 3}},
		{"an error ends it", 5, 2, []string{"你好", "fail 第2轮 re:你好"}, []int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &echoCaller{}
			var texts []string
			var stamps []int
			sessions := map[string]bool{}
			err := Run(context.Background(), c, source(mk(tc.stop, tc.failAt)), Config[int]{OnResult: func(r *schema.Result, _ int) error {
				texts = append(texts, r.Text)
				stamps = append(stamps, r.ScriptTurns)
				sessions[r.Conversation] = true
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(texts, tc.want) || !slices.Equal(stamps, tc.stamps) {
				t.Fatalf("turns %q stamped %v, want %q stamped %v", texts, stamps, tc.want, tc.stamps)
			}
			if len(sessions) != 1 || sessions[""] {
				t.Fatalf("sessions %v, want one session id for every turn", sessions)
			}
			if h := c.histories[len(c.histories)-1]; len(h) != 2*(len(tc.want)-1) || h[1].Content != "re:你好" {
				t.Fatalf("last turn's history %v", h)
			}
		})
	}
}
