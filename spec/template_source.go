package spec

import (
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/nlutest/nlutest/spec/reply"
)

// This file is the Source every kind built on a template shares
// (NewTemplateSource): it generates a template's cases (the generation
// machinery, shared with annotate, is in generate.go) and rebuilds them.
// The template kind itself, its block and its decoding, is
// sources/template.

// templateSource is a template as a case source.
type templateSource struct {
	s    *Suite
	t    *Template
	info SourceInfo
	// rebuild is made on the first Rebuild.
	once    sync.Once
	rebuild *templateRebuild
}

func newTemplateSource(s *Suite, t *Template) *templateSource {
	return &templateSource{s: s, t: t, info: SourceInfo{
		Level: t.Level, Core: t.Core, Scene: t.Scene, Expect: t.Expect, Asserts: t.Asserts,
		Slots: t.SlotKeys(), Reviewed: t.Reviewed, Perturb: t.Perturb, Reply: constReply(t.Reply), Rubrics: t.Rubrics,
		Tools: constTools(t.Tools),
	}}
}

// constReply is SourceInfo.Reply for a source whose every case has the
// reply checks rc (nil when rc is nil).
func constReply(rc *reply.Check) func(*schema.Case) *reply.Check {
	if rc == nil {
		return nil
	}
	return func(*schema.Case) *reply.Check { return rc }
}

func (ts *templateSource) Name() string         { return ts.t.Name }
func (ts *templateSource) Kind() string         { return schema.KindTemplate }
func (ts *templateSource) DeclRange() hcl.Range { return ts.t.DeclRange }
func (ts *templateSource) Info() *SourceInfo    { return &ts.info }

// Template returns the template block of a template source, or nil.
func TemplateOf(src Source) *Template {
	if ts, ok := src.(*templateSource); ok {
		return ts.t
	}
	return nil
}

func (ts *templateSource) Generate(g *Gen, yield func(*schema.Script) error) error {
	p := ts.t.Perturb
	if p == nil {
		return ts.s.generateTemplate(ts.t, g, yield)
	}
	return ts.s.generateTemplate(ts.t, g, func(sc *schema.Script) error {
		if err := yield(sc); err != nil {
			return err
		}
		return p.Each(sc.Turns[0], yield)
	})
}

// SlotKeys lists the template's placeholders as written ("城市", "城市#2").
func (t *Template) SlotKeys() []string {
	keys := make([]string, len(t.Slots))
	for i, sr := range t.Slots {
		keys[i] = sr.Key
	}
	return keys
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
		g := s.prepare(t)
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
			w := &slotRebuilder{cb: s.newCaseBuilder(t, g), last: make([]lastValue, len(t.Slots))}
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
func (ts *templateSource) Rebuild(saved Saved) (*schema.Case, bool) {
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

// anyText, as the saved text, makes build check the id only (a
// conversation checks its turn's text itself).
const anyText = "\x00"

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
	if (c.ID != id && !variant) || (text != anyText && c.Text != text && !variant) {
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

// generationSettings reads what every template-like block (template,
// conversation, memory) says about its cases and how they are drawn:
// level, core, scene, tags, strategy (default uniq), limit, count, seed,
// material_levels (checked against the suite's levels) and reviewed.
func (l *loader) generationSettings(t *Template, c *hcl.BodyContent, b *hcl.Block) {
	s := l.suite
	t.Level = l.str(c.Attributes, "level", s.Defaults.Level)
	t.Core = l.boolean(c.Attributes, "core", false)
	t.Scene = l.strList(c.Attributes, "scene")
	t.Tags = l.strList(c.Attributes, "tags")
	t.Strategy = l.strategy(c.Attributes, s.Defaults.Strategy)
	if t.Strategy == "" {
		t.Strategy = "uniq"
	}
	t.Limit = l.integer(c.Attributes, "limit", s.Defaults.Limit, 0)
	t.Count = l.integer(c.Attributes, "count", 0, 0)
	t.Seed = uint64(l.integer(c.Attributes, "seed", 0, 0))
	t.MaterialLevels = l.materialLevels(c.Attributes)
	if t.Strategy == "random" && t.Count == 0 {
		l.errorf(b.DefRange.Ptr(), "Random strategy needs count", "strategy = \"random\" draws count cases; add count = N (and seed = S to choose another draw).")
	}
	t.Reviewed = l.boolean(c.Attributes, "reviewed", true)
}
