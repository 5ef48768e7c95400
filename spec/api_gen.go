package spec

import "sync"

// This file is what the template generation engine (spec/generate, which
// imports spec) reads of a suite and a generation beyond their exported
// fields: the per-suite cache of prepared templates, the generation's
// options, a source's memoizing Splitter and a template's slot keys.

// genCache is a suite's cache of templates prepared for generation.
type genCache struct {
	mu sync.Mutex
	m  map[*Template]any
}

// Prepared returns what prepare made for template t the first time
// Prepared was asked for t on suite s, calling prepare then: the
// generation engine's per-template cache, shared by the goroutines that
// generate from or rebuild one suite (prepare runs once per template, under
// a lock).
func (s *Suite) Prepared(t *Template, prepare func() any) any {
	s.gen.mu.Lock()
	defer s.gen.mu.Unlock()
	if v, ok := s.gen.m[t]; ok {
		return v
	}
	v := prepare()
	if s.gen.m == nil {
		s.gen.m = map[*Template]any{}
	}
	s.gen.m[t] = v
	return v
}

// Options are the options of the Suite.Generate call this generation
// serves (its Warn reports into the generation's stream, as Gen.Warn).
func (g *Gen) Options() GenOptions { return g.opts }

// SourceSplitter returns a Splitter for the cases of one source of s
// (one template's, say), to be kept where it is used (a value, so a case
// builder holds it without an allocation of its own): it evaluates a
// split's where condition that reads only source attributes (level,
// scene, tags …) once and reuses the value for the source's other cases.
func SourceSplitter(s *Suite) Splitter { return Splitter{s: s, useMemo: true} }

// SlotKeys lists the template's placeholders as written ("城市", "城市#2").
func (t *Template) SlotKeys() []string {
	keys := make([]string, len(t.Slots))
	for i, sr := range t.Slots {
		keys[i] = sr.Key
	}
	return keys
}
