package spec

import (
	"strings"
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// Rebuilder re-derives saved cases from the suite as it is now, so `nlutest
// eval` checks recorded responses against today's expectations, splits and
// levels (seed 000's per-case lifecycle: edit an expectation, re-evaluate).
type Rebuilder struct {
	s        *Suite
	mu       sync.Mutex
	index    map[*Template][]map[string]int // per slot: value → index into the slot's candidates
	builders map[*Template]*caseBuilder
	byName   map[string]*Template
}

// NewRebuilder prepares a rebuilder for s.
func (s *Suite) NewRebuilder() *Rebuilder {
	rb := &Rebuilder{s: s, index: map[*Template][]map[string]int{}, builders: map[*Template]*caseBuilder{}, byName: map[string]*Template{}}
	for _, t := range s.Templates {
		rb.byName[t.Name] = t
	}
	return rb
}

// Rebuild returns the case the suite now generates for the saved case's
// template and slot values. ok is false when the template is gone, its
// placeholders changed, or a slot value is no longer among its materials;
// the caller then keeps the saved case.
func (rb *Rebuilder) Rebuild(saved *schema.Case) (c *schema.Case, ok bool) {
	t := rb.byName[saved.Template]
	if t == nil || len(t.Slots) != len(saved.Slots) {
		return nil, false
	}
	rb.mu.Lock()
	g := rb.s.prepare(t)
	// The builder's buffers are reused, so rebuilding holds the lock.
	idx := rb.index[t]
	if idx == nil {
		idx = make([]map[string]int, len(t.Slots))
		for i := range t.Slots {
			m := make(map[string]int, len(g.values[i]))
			for j, v := range g.values[i] {
				if _, dup := m[v.Value]; !dup {
					m[v.Value] = j
				}
			}
			idx[i] = m
		}
		rb.index[t] = idx
	}
	cb := rb.builders[t]
	if cb == nil {
		cb = &caseBuilder{s: rb.s, t: t, g: g, schemaKey: strings.ToLower(rb.s.SchemaName), exp: make([]string, len(t.Slots)), splitSets: map[uint64][]string{}}
		rb.builders[t] = cb
	}
	defer rb.mu.Unlock()
	tuple := make([]int, len(t.Slots))
	for i, sr := range t.Slots {
		sl, ok := saved.Slots[sr.Key]
		if !ok {
			return nil, false
		}
		j, ok := idx[i][sl.Value]
		if !ok {
			return nil, false
		}
		tuple[i] = j
	}
	c = cb.build(tuple)
	if c.ID != saved.ID || c.Text != saved.Text {
		return nil, false
	}
	if err := cb.assignSplits(c); err != nil {
		return nil, false
	}
	return c, true
}
