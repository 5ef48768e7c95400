package main

import (
	"fmt"
	"time"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// heartbeat is how often a run without a terminal prints a progress line
// when no case source finished meanwhile, so a CI log never stays silent
// through a large template.
const heartbeat = 10 * time.Second

// progress reports a run's progress on stderr: a live line (cases done of
// the whole run, pass/fail/error counts, rate, ETA) on a terminal that
// understands escape sequences; otherwise one line per finished case
// source and a line every heartbeat in between. A resumed run counts the
// cases recorded before from the start.
type progress struct {
	a        *App
	total    int    // cases of the whole run
	n        int    // cases done, earlier sessions included
	prior    int    // cases recorded by earlier sessions
	tally    [3]int // passed, failed, errored this session
	start    time.Time
	last     time.Time
	expected map[string]int     // by source name, this session
	counts   map[string]*[3]int // passed, failed, errored
	live     bool
	clock    func() time.Time
}

func newProgress(a *App, total, recorded int, perSource map[string]int) *progress {
	p := &progress{a: a, total: total, n: recorded, prior: recorded, expected: perSource, counts: map[string]*[3]int{},
		live: a.StderrTTY && a.getenv("TERM") != "dumb", clock: time.Now}
	p.start = p.clock()
	p.last = p.start
	return p
}

func (p *progress) done(r *schema.Result) {
	if r.SourceKind == spec.KindScenario && r.Turn != r.ScriptTurns {
		return // a scenario counts once, at its last turn (its outcome)
	}
	p.n++
	kind, key := r.SourceOf()
	c := p.counts[key]
	if c == nil {
		c = &[3]int{}
		p.counts[key] = c
	}
	i := 2
	switch r.Outcome {
	case schema.Pass:
		i = 0
	case schema.Fail:
		i = 1
	}
	c[i]++
	p.tally[i]++
	now := p.clock()
	if p.live {
		if now.Sub(p.last) < 100*time.Millisecond && p.n < p.total {
			return
		}
		p.last = now
		fmt.Fprintf(p.a.Stderr, "\r\x1b[K%s", p.status(now))
		return
	}
	if c[0]+c[1]+c[2] == p.expected[key] {
		fmt.Fprintf(p.a.Stderr, "%s %s: %d %s, %d passed, %d failed, %d errored · %d/%d cases done\n",
			kind, key, p.expected[key], "case"+plural(p.expected[key]), c[0], c[1], c[2], p.n, p.total)
		p.last = now
		return
	}
	if now.Sub(p.last) >= heartbeat {
		fmt.Fprintln(p.a.Stderr, p.status(now))
		p.last = now
	}
}

// status is the progress line: "[37/120] 30 passed · 6 failed · 1 errored
// · 12.3/s · ETA 7s", counts of this session (and of the whole run, when
// resumed, in the bracket).
func (p *progress) status(now time.Time) string {
	el := now.Sub(p.start).Seconds()
	rate := float64(p.n-p.prior) / max(el, 1e-9)
	eta := time.Duration(float64(p.total-p.n)/max(rate, 1e-9)) * time.Second
	s := fmt.Sprintf("[%d/%d] %d passed · %d failed · %d errored · %.1f/s · ETA %s", p.n, p.total,
		p.tally[0], p.tally[1], p.tally[2], rate, eta.Round(time.Second))
	if p.prior > 0 {
		s += fmt.Sprintf(" (resumed: %d recorded before)", p.prior)
	}
	return s
}

func (p *progress) finish() {
	if p.live && p.n > p.prior {
		fmt.Fprint(p.a.Stderr, "\r\x1b[K")
	}
}
