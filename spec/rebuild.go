package spec

import (
	"errors"
	"strings"
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// Rebuilder re-derives saved cases from the suite as it is now, so `nlutest
// eval` checks recorded responses against today's expectations, splits and
// levels (seed 000's per-case lifecycle: edit an expectation, re-evaluate).
type Rebuilder struct {
	s      *Suite
	mu     sync.Mutex
	index  map[*Template][]map[string]int // per slot: value → index into the slot's candidates
	pools  map[*Template]*sync.Pool
	byName map[string]*Template
	// ready holds what prepared made, read without the lock.
	ready sync.Map // *Template → *preparedTemplate
}

// NewRebuilder prepares a rebuilder for s.
func (s *Suite) NewRebuilder() *Rebuilder {
	rb := &Rebuilder{s: s, index: map[*Template][]map[string]int{}, pools: map[*Template]*sync.Pool{}, byName: map[string]*Template{}}
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
	idx, pool := rb.prepared(t)
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
	return rb.build(pool, tuple, saved.ID, saved.Text)
}

// RebuildRecord is Rebuild for a result record read by
// schema.Result.DecodeForEval: the saved case is given by its template, id,
// text and raw slots object, which is read without building a map.
func (rb *Rebuilder) RebuildRecord(template, id, text string, slots []byte) (c *schema.Case, ok bool) {
	t := rb.byName[template]
	if t == nil {
		return nil, false
	}
	idx, pool := rb.prepared(t)
	var buf [8]int
	tuple := buf[:0]
	if len(t.Slots) > len(buf) {
		tuple = make([]int, 0, len(t.Slots))
	}
	for range t.Slots {
		tuple = append(tuple, -1)
	}
	n := 0
	err := schema.EachSlotValue(slots, func(name, value []byte) error {
		n++
		for i, sr := range t.Slots {
			if sr.Key == string(name) {
				j, ok := idx[i][string(value)]
				if !ok || tuple[i] >= 0 {
					return errNoRebuild
				}
				tuple[i] = j
				return nil
			}
		}
		return errNoRebuild
	})
	if err != nil || n != len(t.Slots) {
		return nil, false
	}
	return rb.build(pool, tuple, id, text)
}

var errNoRebuild = errors.New("case cannot be rebuilt")

// build makes the case of tuple and checks it is the saved one.
func (rb *Rebuilder) build(pool *sync.Pool, tuple []int, id, text string) (*schema.Case, bool) {
	// A builder reuses buffers, so each goroutine takes its own from the pool.
	cb := pool.Get().(*caseBuilder)
	defer pool.Put(cb)
	c := cb.build(tuple)
	if c.ID != id || c.Text != text {
		return nil, false
	}
	if err := cb.assignSplits(c); err != nil {
		return nil, false
	}
	return c, true
}

// prepared returns the value index and builder pool of a template,
// making them on first use.
func (rb *Rebuilder) prepared(t *Template) ([]map[string]int, *sync.Pool) {
	if p, ok := rb.ready.Load(t); ok { // every call after the first
		p := p.(*preparedTemplate)
		return p.index, p.pool
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if idx, ok := rb.index[t]; ok {
		return idx, rb.pools[t]
	}
	g := rb.s.prepare(t)
	idx := make([]map[string]int, len(t.Slots))
	for i := range t.Slots {
		m := make(map[string]int, len(g.values[i]))
		for j, v := range g.values[i] {
			if _, dup := m[v.Value]; !dup {
				m[v.Value] = j
			}
		}
		idx[i] = m
	}
	schemaKey := strings.ToLower(rb.s.SchemaName)
	pool := &sync.Pool{New: func() any {
		return &caseBuilder{s: rb.s, t: t, g: g, schemaKey: schemaKey, exp: make([]string, len(t.Slots)), splitSets: map[uint64][]string{}}
	}}
	rb.index[t], rb.pools[t] = idx, pool
	rb.ready.Store(t, &preparedTemplate{idx, pool})
	return idx, pool
}

type preparedTemplate struct {
	index []map[string]int
	pool  *sync.Pool
}
