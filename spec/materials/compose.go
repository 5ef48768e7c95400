package materials

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/combine"
)

// ComposeLimit is the most values one materials block may compose: a
// larger product is a diagnostic, not an out-of-memory crash.
const ComposeLimit = 1_000_000

// Pattern is one compose pattern such as "{姓}{名}", parsed.
type Pattern struct {
	// Lits are the literal texts around the placeholders, one more than
	// Parts.
	Lits []string
	// Refs are the pattern's distinct placeholders in order of first use;
	// Parts maps each placeholder occurrence to its index in Refs.
	Refs  []Ref
	Parts []int
}

// Ref is a placeholder of a compose pattern: Key as written between the
// braces ("名#2") and the materials block it draws from (Material, "名").
// Two refs to one block ({名}{名#2}) take distinct values.
type Ref struct {
	Key      string
	Material string
}

// Compose returns a composed block's values: own (the block's own values)
// followed by every combination of each pattern's placeholders, pattern by
// pattern, the first placeholder changing slowest; a value already
// present is skipped. values gives the values of the block a placeholder
// names. A composed value's level is the highest of its parts' (LevelLess;
// level when no part has one), its tags the union of theirs, and its
// normalised value per schema the pattern filled with each part's
// normalised value (or raw value when the part has none for that schema).
//
// ok is false when the block cannot be composed: its name's product is
// over ComposeLimit or composes no value (a diagnostic at at, the compose
// attribute's range, about the block name), or a part has no values (no
// diagnostic: that block's own error says so).
func Compose(name, level string, own []Value, patterns []Pattern, values func(material string) []Value, at hcl.Range) (out []Value, ok bool, diags hcl.Diagnostics) {
	// The product bound first, so an enormous compose fails fast.
	var total uint64
	var sizes [][]int
	for _, p := range patterns {
		sz := make([]int, len(p.Refs))
		prod := uint64(1)
		for i, ref := range p.Refs {
			sz[i] = len(values(ref.Material))
			prod = satMul(prod, uint64(sz[i]))
		}
		sizes = append(sizes, sz)
		total = satAdd(total, prod)
	}
	if total > ComposeLimit {
		return own, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Too many composed values",
			Detail: fmt.Sprintf("The materials %q composes up to %s values (%s); at most %s are allowed. Split it, or compose from smaller materials.",
				name, groupDigits(total), composeSizes(patterns, sizes), groupDigits(ComposeLimit)),
			Subject: at.Ptr()}}
	}
	seen := make(map[string]struct{}, len(own)+int(total))
	for _, v := range own {
		seen[v.Value] = struct{}{}
	}
	out = slices.Grow(own, int(total))
	var b strings.Builder
	for pi, p := range patterns {
		parts := make([]*Value, len(p.Refs))
		_, err := combine.Product(sizes[pi], 0, func(tuple []int) bool {
			for i, ref := range p.Refs {
				parts[i] = &values(ref.Material)[tuple[i]]
				// {名} and {名#2} take distinct values.
				for j := range i {
					if p.Refs[j].Material == ref.Material && tuple[j] == tuple[i] {
						return true
					}
				}
			}
			b.Reset()
			for i, k := range p.Parts {
				b.WriteString(p.Lits[i])
				b.WriteString(parts[k].Value)
			}
			b.WriteString(p.Lits[len(p.Lits)-1])
			v := b.String()
			if _, dup := seen[v]; dup {
				return true
			}
			seen[v] = struct{}{}
			out = append(out, composedValue(v, level, p, parts))
			return true
		})
		if err != nil { // a part without values: reported on that block
			return out, false, nil
		}
	}
	if len(out) == 0 {
		return out, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Materials without values",
			Detail: fmt.Sprintf("The materials %q composes no value: %s.", name, composeSizes(patterns, sizes)), Subject: at.Ptr()}}
	}
	return out, true, nil
}

// composedValue is one composed value: its level is the highest of its
// parts' (M1 < M2 < M3 < M4; the block's level when no part has one), its
// tags the union of theirs, and its normalised value per schema the
// pattern filled with each part's normalised value (or raw value when the
// part has none for that schema), when any part has one.
func composedValue(v, defLevel string, p Pattern, parts []*Value) Value {
	mv := Value{Value: v, Level: defLevel}
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
			for i, k := range p.Parts {
				b.WriteString(p.Lits[i])
				if n, ok := parts[k].Normalize[schemaKey]; ok {
					b.WriteString(n)
				} else {
					b.WriteString(parts[k].Value)
				}
			}
			b.WriteString(p.Lits[len(p.Lits)-1])
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

// composeSizes lists each pattern's placeholders with their value counts:
// "姓 3 × 名 4 + 名 4".
func composeSizes(patterns []Pattern, sizes [][]int) string {
	var out []string
	for pi, p := range patterns {
		var f []string
		for i, ph := range p.Refs {
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
