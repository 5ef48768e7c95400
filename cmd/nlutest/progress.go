package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// heartbeat is how often a run without a terminal prints a progress line
// when no case source finished meanwhile, so a CI log never stays silent
// through a large template.
const heartbeat = 10 * time.Second

// progress reports a run's progress on stderr: a live line (cases done of
// the whole run, pass/fail/error counts, rate, ETA) on a terminal that
// understands escape sequences; otherwise one line per finished case
// source and a line every heartbeat in between. A resumed run counts the
// cases recorded before from the start. Cases are counted as everywhere
// (pipeline.Run.Cases): every result is one, a scenario's turns
// included, and the total follows what the recorded scripts turn out to
// have.
type progress struct {
	a        *App
	run      caseCount
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

// caseCount is how progress learns a run's count of cases
// (*pipeline.Run).
type caseCount interface {
	Recorded() int
	Cases() int
	Open() bool
	Left() map[string]int
	CaseDelta(*schema.Result) int
}

var _ caseCount = (*pipeline.Run)(nil)

func newProgress(a *App, run caseCount) *progress {
	p := &progress{a: a, run: run, n: run.Recorded(), prior: run.Recorded(), expected: run.Left(), counts: map[string]*[3]int{},
		live: a.StderrTTY && a.getenv("TERM") != "dumb", clock: time.Now}
	p.start = p.clock()
	p.last = p.start
	return p
}

func (p *progress) done(r *schema.Result) {
	p.n++
	kind, key := r.SourceOf()
	p.expected[key] += p.run.CaseDelta(r)
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
	total := p.run.Cases()
	if p.live {
		if now.Sub(p.last) < 100*time.Millisecond && p.n < total {
			return
		}
		p.last = now
		fmt.Fprintf(p.a.Stderr, "\r\x1b[K%s", p.status(now))
		return
	}
	// A source is done once the last turn of its last script is in.
	if (r.Turn == 0 || r.Turn >= r.ScriptTurns) && c[0]+c[1]+c[2] == p.expected[key] {
		fmt.Fprintf(p.a.Stderr, "%s %s: %d %s, %d passed, %d failed, %d errored · %d/%d cases done\n",
			kind, key, p.expected[key], "case"+plural(p.expected[key]), c[0], c[1], c[2], p.n, total)
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
	total := p.run.Cases()
	eta := time.Duration(float64(total-p.n)/max(rate, 1e-9)) * time.Second
	shown := strconv.Itoa(total)
	if p.run.Open() {
		shown = "≥" + shown // scenarios to come may add cases
	}
	s := fmt.Sprintf("[%d/%s] %d passed · %d failed · %d errored · %.1f/s · ETA %s", p.n, shown,
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
