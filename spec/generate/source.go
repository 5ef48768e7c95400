package generate

import (
	"errors"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/perturb"
)

// This file is the Source every kind built on a template shares
// (NewSource): it generates a template's cases (engine.go) and rebuilds
// them. The template kind itself, its block and its decoding, is
// sources/template.

// templateSource is a template as a case source.
type templateSource struct {
	s    *spec.Suite
	t    *spec.Template
	info spec.SourceInfo
	// rebuild is made on the first Rebuild.
	once    sync.Once
	rebuild *templateRebuild
}

// NewSource returns template t of suite s as a case source: the template
// kind's own (its Info from t, Generate through Template, Rebuild of
// saved cases with their slot values). A kind built on a template keeps
// one to rebuild its saved cases' text.
func NewSource(s *spec.Suite, t *spec.Template) spec.Source {
	return &templateSource{s: s, t: t, info: spec.SourceInfo{
		Level: t.Level, Core: t.Core, Scene: t.Scene, Expect: t.Expect, Asserts: t.Asserts,
		Slots: t.SlotKeys(), Reviewed: t.Reviewed, Perturb: t.Perturb, Reply: spec.ConstReply(t.Reply), Rubrics: t.Rubrics,
		Tools: spec.ConstTools(t.Tools),
	}}
}

func (ts *templateSource) Name() string           { return ts.t.Name }
func (ts *templateSource) Kind() string           { return schema.KindTemplate }
func (ts *templateSource) DeclRange() hcl.Range   { return ts.t.DeclRange }
func (ts *templateSource) Info() *spec.SourceInfo { return &ts.info }

// TemplateOf returns the template block of a source NewSource made, or
// nil for any other source.
func TemplateOf(src spec.Source) *spec.Template {
	if ts, ok := src.(*templateSource); ok {
		return ts.t
	}
	return nil
}

func (ts *templateSource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	p := ts.t.Perturb
	if p == nil {
		return Template(ts.s, ts.t, g, yield, nil)
	}
	return Template(ts.s, ts.t, g, func(sc *schema.Script) error {
		if err := yield(sc); err != nil {
			return err
		}
		return p.Each(sc.Turns[0], yield)
	}, nil)
}

// templateRebuild is what rebuilding a template's cases needs: each slot's
// value index and a pool of rebuilders (a case builder reuses buffers, so
// each goroutine takes its own).
type templateRebuild struct {
	index []map[string]int // per slot: value → index into the slot's candidates
	pool  sync.Pool        // of *slotRebuilder
}

// slotRebuilder is one goroutine's case builder and, per slot, the value
// it looked up last and its index: records in a results file follow the
// generation's order, so a slot's value is most often the one of the
// record before, found without hashing it again.
type slotRebuilder struct {
	cb   *caseBuilder
	last []lastValue
}

type lastValue struct {
	value string // g.values[slot][j].Value
	j     int    // -1: none yet
}

// lookup is p.index[i][string(value)], from the value looked up last for
// slot i when it is the same.
func (w *slotRebuilder) lookup(p *templateRebuild, i int, value []byte) (int, bool) {
	l := &w.last[i]
	if l.j >= 0 && l.value == string(value) {
		return l.j, true
	}
	j, ok := p.index[i][string(value)]
	if ok {
		l.value, l.j = w.cb.g.values[i][j].Value, j
	}
	return j, ok
}

func (ts *templateSource) prepared() *templateRebuild {
	ts.once.Do(func() {
		s, t := ts.s, ts.t
		g := prepare(s, t)
		p := &templateRebuild{index: make([]map[string]int, len(t.Slots))}
		for i := range t.Slots {
			m := make(map[string]int, len(g.values[i]))
			for j, v := range g.values[i] {
				if _, dup := m[v.Value]; !dup {
					m[v.Value] = j
				}
			}
			p.index[i] = m
		}
		p.pool.New = func() any {
			w := &slotRebuilder{cb: newCaseBuilder(s, t, g), last: make([]lastValue, len(t.Slots))}
			for i := range w.last {
				w.last[i].j = -1
			}
			return w
		}
		ts.rebuild = p
	})
	return ts.rebuild
}

// Rebuild returns the case the template now generates for the saved case's
// slot values. It fails when the template's placeholders changed or a slot
// value is no longer among its materials.
func (ts *templateSource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	t := ts.t
	p := ts.prepared()
	w := p.pool.Get().(*slotRebuilder)
	defer p.pool.Put(w)
	var buf [8]int
	tuple := buf[:0]
	if len(t.Slots) > len(buf) {
		tuple = make([]int, 0, len(t.Slots))
	}
	if saved.Case != nil {
		if len(t.Slots) != len(saved.Case.Slots) {
			return nil, false
		}
		for i, sr := range t.Slots {
			sl, ok := saved.Case.Slots[sr.Key]
			if !ok {
				return nil, false
			}
			j, ok := p.index[i][sl.Value]
			if !ok {
				return nil, false
			}
			tuple = append(tuple, j)
		}
		return ts.build(w.cb, tuple, saved.Case.ID, saved.Case.Text, saved.Into)
	}
	for range t.Slots {
		tuple = append(tuple, -1)
	}
	n := 0
	err := schema.EachSlotValue(saved.Slots, func(name, value []byte) error {
		n++
		for i, sr := range t.Slots {
			if sr.Key == string(name) {
				j, ok := w.lookup(p, i, value)
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
	return ts.build(w.cb, tuple, saved.ID, saved.Text, saved.Into)
}

// errNoRebuild stops the walk over a saved case's slots at the first
// that does not rebuild.
var errNoRebuild = errors.New("case cannot be rebuilt")

// build makes the case of tuple and checks it is the saved one (or, for
// the id of a perturbed variant, makes that variant of it). It builds in
// into when that is set (Saved.Into).
func (ts *templateSource) build(cb *caseBuilder, tuple []int, id, text string, into *schema.Case) (*schema.Case, bool) {
	c := into
	if c == nil {
		c = &schema.Case{}
	}
	cb.wantID, cb.wantText = id, text
	cb.fill(c, tuple)
	cb.wantID, cb.wantText = "", ""
	variant := false
	if c.ID != id && ts.t.Perturb != nil {
		orig, ok := perturb.SplitID(id)
		variant = ok && orig == c.ID
	}
	if (c.ID != id && !variant) || (text != spec.AnyText && c.Text != text && !variant) {
		return nil, false
	}
	if err := cb.sp.Assign(c); err != nil {
		return nil, false
	}
	if variant {
		v, ok := ts.t.Perturb.Variant(c, id)
		return v, ok && v.Text == text
	}
	return c, true
}
