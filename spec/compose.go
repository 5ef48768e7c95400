package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/materials"
)

// composeSpec is a materials block's `compose` attribute, parsed.
type composeSpec struct {
	attr     *hcl.Attribute
	patterns []materials.Pattern
}

// decodeCompose parses a materials block's compose patterns; their
// placeholders are resolved once every materials block is known.
func (l *loader) decodeCompose(m *Materials, attrs hcl.Attributes) {
	a := attrs["compose"]
	m.Compose = l.strList(attrs, "compose")
	m.ComposeRange = a.Expr.Range()
	cs := &composeSpec{attr: a}
	for _, p := range m.Compose {
		lits, phs, err := ParsePlaceholders(p)
		if err != nil {
			l.errorf(a.Expr.Range().Ptr(), "Invalid placeholder", "%s.", capitalize(err.Error()))
			continue
		}
		if len(phs) == 0 {
			l.errorf(a.Expr.Range().Ptr(), "Compose pattern without placeholders",
				"The compose pattern %q names no materials; write values = [%q] for a fixed value, or use placeholders such as \"{姓}{名}\".", p, lits[0])
			continue
		}
		cp := materials.Pattern{Lits: lits}
		for _, ph := range phs {
			k := slices.IndexFunc(cp.Refs, func(x materials.Ref) bool { return x.Key == ph.Key })
			if k < 0 {
				k = len(cp.Refs)
				cp.Refs = append(cp.Refs, materials.Ref{Key: ph.Key, Material: ph.Material})
			}
			cp.Parts = append(cp.Parts, k)
		}
		cs.patterns = append(cs.patterns, cp)
	}
	if len(m.Compose) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty compose", "compose lists patterns such as [\"{姓}{名}\", \"{名}\"]; this list is empty.")
	}
	m.compose = cs
}

// resolveCompose builds the values of every composed materials block, the
// blocks it composes from first, and reports unknown names, cycles and
// products over ComposeLimit. It runs after every materials block is
// decoded and before templates are.
func (l *loader) resolveCompose() {
	const (
		unvisited = iota
		visiting
		done
		failed
	)
	state := map[string]int{}
	var stack []string
	var visit func(name string) bool
	visit = func(name string) bool {
		switch state[name] {
		case done:
			return true
		case failed:
			return false
		case visiting:
			i := slices.Index(stack, name)
			cycle := append(slices.Clone(stack[i:]), name)
			first := l.suite.Materials[cycle[0]].compose
			l.errorf(first.attr.Expr.Range().Ptr(), "Compose cycle",
				"The materials compose each other in a cycle: %s. A composed value must end in plain values; remove one of these placeholders.", strings.Join(cycle, " → "))
			for _, n := range cycle[:len(cycle)-1] {
				state[n] = failed
			}
			return false
		}
		m := l.suite.Materials[name]
		if m.broken && m.compose == nil {
			state[name] = failed // its own error is reported
			return false
		}
		cs := m.compose
		if cs == nil {
			state[name] = done
			return true
		}
		state[name] = visiting
		stack = append(stack, name)
		ok := true
		for _, p := range cs.patterns {
			for _, ph := range p.Refs {
				if _, known := l.suite.Materials[ph.Material]; !known {
					rng := l.subRange(cs.attr.Expr.Range(), "{"+ph.Key+"}")
					l.errorf(&rng, "Unknown materials",
						"The compose placeholder {%s} names no materials block.%s Declare materials %q { values = [...] } or fix the name.",
						ph.Key, didYouMeanBrace(ph.Material, l.suite.MatOrder), ph.Material)
					ok = false
					continue
				}
				if !visit(ph.Material) {
					ok = false
				}
			}
		}
		stack = stack[:len(stack)-1]
		if state[name] == failed { // part of a cycle found below
			return false
		}
		if ok {
			ok = l.composeValues(m, cs)
		}
		if ok {
			state[name] = done
		} else {
			state[name] = failed
			m.broken = true
		}
		return ok
	}
	for _, name := range l.suite.MatOrder {
		if m := l.suite.Materials[name]; m != nil && m.compose != nil {
			visit(name)
		}
	}
}

// composeValues appends the values of m's compose patterns
// (materials.Compose) and reports why it cannot.
func (l *loader) composeValues(m *Materials, cs *composeSpec) bool {
	mats := l.suite.Materials
	vals, ok, diags := materials.Compose(m.Name, m.Level, m.Values, cs.patterns,
		func(name string) []materials.Value { return mats[name].Values }, cs.attr.Expr.Range())
	m.Values = vals
	l.diags = append(l.diags, diags...)
	return ok
}
