package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/combine"
	"github.com/nlutest/nlutest/spec/materials"
)

// ComposeLimit is the most values one materials block may compose: a
// larger product is a diagnostic, not an out-of-memory crash.
const ComposeLimit = 1_000_000

// composeSpec is a materials block's `compose` attribute, parsed.
type composeSpec struct {
	attr     *hcl.Attribute
	patterns []composePattern
}

// composePattern is one compose pattern such as "{姓}{名}".
type composePattern struct {
	lits []string
	// keys are the pattern's distinct placeholders in order of first use;
	// parts maps each placeholder occurrence to its index in keys.
	keys  []Placeholder
	parts []int
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
		cp := composePattern{lits: lits}
		for _, ph := range phs {
			k := slices.IndexFunc(cp.keys, func(x Placeholder) bool { return x.Key == ph.Key })
			if k < 0 {
				k = len(cp.keys)
				cp.keys = append(cp.keys, ph)
			}
			cp.parts = append(cp.parts, k)
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
			for _, ph := range p.keys {
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

// composeValues appends the values of m's compose patterns: every
// combination of each pattern's placeholders, pattern by pattern, the first
// placeholder changing slowest; values already present are skipped.
func (l *loader) composeValues(m *Materials, cs *composeSpec) bool {
	mats := l.suite.Materials
	// The product bound first, so an enormous compose fails fast.
	var total uint64
	var sizes [][]int
	for _, p := range cs.patterns {
		sz := make([]int, len(p.keys))
		prod := uint64(1)
		for i, ph := range p.keys {
			sz[i] = len(mats[ph.Material].Values)
			prod = satMul(prod, uint64(sz[i]))
		}
		sizes = append(sizes, sz)
		total = satAdd(total, prod)
	}
	if total > ComposeLimit {
		l.errorf(cs.attr.Expr.Range().Ptr(), "Too many composed values",
			"The materials %q composes up to %s values (%s); at most %s are allowed. Split it, or compose from smaller materials.",
			m.Name, groupDigits(total), composeSizes(cs, sizes), groupDigits(ComposeLimit))
		return false
	}
	seen := make(map[string]struct{}, len(m.Values)+int(total))
	for _, v := range m.Values {
		seen[v.Value] = struct{}{}
	}
	m.Values = slices.Grow(m.Values, int(total))
	var b strings.Builder
	for pi, p := range cs.patterns {
		parts := make([]*materials.Value, len(p.keys))
		_, err := combine.Product(sizes[pi], 0, func(tuple []int) bool {
			for i, ph := range p.keys {
				parts[i] = &mats[ph.Material].Values[tuple[i]]
				// {名} and {名#2} take distinct values.
				for j := range i {
					if p.keys[j].Material == ph.Material && tuple[j] == tuple[i] {
						return true
					}
				}
			}
			b.Reset()
			for i, k := range p.parts {
				b.WriteString(p.lits[i])
				b.WriteString(parts[k].Value)
			}
			b.WriteString(p.lits[len(p.lits)-1])
			v := b.String()
			if _, dup := seen[v]; dup {
				return true
			}
			seen[v] = struct{}{}
			m.Values = append(m.Values, composedValue(v, m.Level, p, parts))
			return true
		})
		if err != nil { // a part without values: reported on that block
			return false
		}
	}
	if len(m.Values) == 0 {
		l.errorf(cs.attr.Expr.Range().Ptr(), "Materials without values", "The materials %q composes no value: %s.", m.Name, composeSizes(cs, sizes))
		return false
	}
	return true
}

// composedValue is one composed value: its level is the highest of its
// parts' (M1 < M2 < M3 < M4; the block's level when no part has one), its
// tags the union of theirs, and its normalised value per schema the
// pattern filled with each part's normalised value (or raw value when the
// part has none for that schema), when any part has one.
func composedValue(v, defLevel string, p composePattern, parts []*materials.Value) materials.Value {
	mv := materials.Value{Value: v, Level: defLevel}
	top := ""
	for _, pv := range parts {
		if pv.Level != "" && (top == "" || LevelLess(top, pv.Level)) {
			top = pv.Level
		}
		for _, t := range pv.Tags {
			if !slices.Contains(mv.Tags, t) {
				mv.Tags = append(mv.Tags, t)
			}
		}
	}
	if top != "" {
		mv.Level = top
	}
	for _, pv := range parts {
		for schemaKey := range pv.Normalize {
			if _, ok := mv.Normalize[schemaKey]; ok {
				continue
			}
			if mv.Normalize == nil {
				mv.Normalize = map[string]string{}
			}
			var b strings.Builder
			for i, k := range p.parts {
				b.WriteString(p.lits[i])
				if n, ok := parts[k].Normalize[schemaKey]; ok {
					b.WriteString(n)
				} else {
					b.WriteString(parts[k].Value)
				}
			}
			b.WriteString(p.lits[len(p.lits)-1])
			mv.Normalize[schemaKey] = b.String()
		}
	}
	return mv
}

// LevelLess orders material levels: M1 < M2 < M3 < M4 (M followed by a
// number, compared as numbers), then any other level in text order.
func LevelLess(a, b string) bool {
	na, oka := levelNumber(a)
	nb, okb := levelNumber(b)
	switch {
	case oka && okb:
		return na < nb
	case oka != okb:
		return oka // M levels sort before other names
	}
	return a < b
}

func levelNumber(l string) (int, bool) {
	if len(l) < 2 || (l[0] != 'M' && l[0] != 'm') {
		return 0, false
	}
	n, err := strconv.Atoi(l[1:])
	return n, err == nil && n >= 0
}

func composeSizes(cs *composeSpec, sizes [][]int) string {
	var out []string
	for pi, p := range cs.patterns {
		var f []string
		for i, ph := range p.keys {
			f = append(f, fmt.Sprintf("%s %d", ph.Key, sizes[pi][i]))
		}
		out = append(out, strings.Join(f, " × "))
	}
	return strings.Join(out, " + ")
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// groupDigits writes n with thousands separators: 1,000,000.
func groupDigits(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}
