package main

import (
	"fmt"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// progress reports a run's progress on stderr: a live line (count, rate,
// ETA) on a terminal, one line per finished case source otherwise.
type progress struct {
	a        *App
	total    int
	n        int
	start    time.Time
	last     time.Time
	expected map[string]int     // by source name
	counts   map[string]*[3]int // passed, failed, errored
	live     bool
}

func newProgress(a *App, total int, perSource map[string]int) *progress {
	return &progress{a: a, total: total, start: time.Now(), expected: perSource, counts: map[string]*[3]int{}, live: a.StderrTTY}
}

func (p *progress) done(r *schema.Result) {
	p.n++
	kind, key := r.SourceOf()
	c := p.counts[key]
	if c == nil {
		c = &[3]int{}
		p.counts[key] = c
	}
	switch r.Outcome {
	case schema.Pass:
		c[0]++
	case schema.Fail:
		c[1]++
	default:
		c[2]++
	}
	if p.live {
		now := time.Now()
		if now.Sub(p.last) < 100*time.Millisecond && p.n < p.total {
			return
		}
		p.last = now
		el := now.Sub(p.start).Seconds()
		rate := float64(p.n) / max(el, 1e-9)
		eta := time.Duration(float64(p.total-p.n)/max(rate, 1e-9)) * time.Second
		fmt.Fprintf(p.a.Stderr, "\r\x1b[K[%d/%d] %.1f/s ETA %s", p.n, p.total, rate, eta.Round(time.Second))
		return
	}
	if c[0]+c[1]+c[2] == p.expected[key] {
		fmt.Fprintf(p.a.Stderr, "%s %s: %d cases, %d passed, %d failed, %d errored [%d/%d]\n", kind, key, p.expected[key], c[0], c[1], c[2], p.n, p.total)
	}
}

func (p *progress) finish() {
	if p.live && p.n > 0 {
		fmt.Fprint(p.a.Stderr, "\r\x1b[K")
	}
}
