package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/materials"
)

// decodeCompose parses a materials block's compose patterns; their
// placeholders are resolved once every materials block is known.
func (l *loader) decodeCompose(m *Materials, attrs hcl.Attributes) {
	a := attrs["compose"]
	m.Compose = l.strList(attrs, "compose")
	m.ComposeRange = a.Expr.Range()
	cs := &materials.Composition{At: a.Expr.Range()}
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
		cs.Patterns = append(cs.Patterns, cp)
	}
	if len(m.Compose) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty compose", "compose lists patterns such as [\"{姓}{名}\", \"{名}\"]; this list is empty.")
	}
	m.compose = cs
}

// resolveCompose builds the values of every composed materials block
// (materials.Resolve), the blocks it composes from first, and reports
// unknown names, cycles and products over materials.ComposeLimit. It runs
// after every materials block is decoded and before templates are.
func (l *loader) resolveCompose() {
	composes := func(name string) bool { m := l.suite.Materials[name]; return m != nil && m.compose != nil }
	if !slices.ContainsFunc(l.suite.MatOrder, composes) {
		return // nothing to resolve: no allocation for the common suite
	}
	blocks := make(map[string]*materials.Block, len(l.suite.Materials))
	for name, m := range l.suite.Materials {
		if m == nil {
			blocks[name] = nil
			continue
		}
		blocks[name] = &materials.Block{Name: m.Name, Level: m.Level, Values: m.Values, Composition: m.compose, Broken: m.broken}
	}
	l.diags = append(l.diags, materials.Resolve(l.suite.MatOrder, blocks, func(ref materials.Ref, at hcl.Range) *hcl.Diagnostic {
		rng := l.subRange(at, "{"+ref.Key+"}")
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown materials",
			Detail: fmt.Sprintf("The compose placeholder {%s} names no materials block.%s Declare materials %q { values = [...] } or fix the name.",
				ref.Key, didYouMeanBrace(ref.Material, l.suite.MatOrder), ref.Material),
			Subject: &rng}
	})...)
	for name, b := range blocks {
		if m := l.suite.Materials[name]; m != nil {
			m.Values, m.broken = b.Values, b.Broken
		}
	}
}
