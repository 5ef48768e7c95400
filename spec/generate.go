package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/combine"
	"github.com/zclconf/go-cty/cty"
)

// GenOptions select what Generate produces.
type GenOptions struct {
	// Split keeps only the cases of the named split.
	Split string
	// Templates, when non-nil, keeps only templates it accepts.
	Templates func(name string) bool
	// Warn receives generation warnings (cases dropped by a limit, say).
	Warn func(hcl.Range, string)
}

// genTemplate is a template prepared for generation.
type genTemplate struct {
	values [][]MaterialValue // candidate values per slot
	mats   []*Materials
	expect []genExpect
	// draws groups slot indexes drawing from the same materials, when any
	// placeholder asks for a second distinct value.
	draws [][]int
}

type genExpect struct {
	path  string
	value any // generic JSON value; strings may hold placeholders
	tmpl  bool
}

// Generate streams the suite's cases, template by template in source order,
// to yield; it stops at the first error yield returns. The same suite always
// yields the same cases in the same order with the same ids.
func (s *Suite) Generate(opts GenOptions, yield func(*schema.Case) error) error {
	if opts.Split != "" && !slices.ContainsFunc(s.Splits, func(sp *Split) bool { return sp.Name == opts.Split }) {
		return fmt.Errorf("the suite has no split %q", opts.Split)
	}
	for _, t := range s.Templates {
		if opts.Templates != nil && !opts.Templates(t.Name) {
			continue
		}
		if err := s.generateTemplate(t, opts, yield); err != nil {
			return err
		}
	}
	return nil
}

func (s *Suite) prepare(t *Template) *genTemplate {
	if g, ok := s.gen[t]; ok {
		return g
	}
	g := &genTemplate{}
	byMat := map[string][]int{}
	for i, sr := range t.Slots {
		m := s.Materials[sr.Material]
		vals := m.Values
		if len(t.MaterialLevels) > 0 {
			vals = nil
			for _, v := range m.Values {
				if slices.Contains(t.MaterialLevels, v.Level) {
					vals = append(vals, v)
				}
			}
		}
		g.values = append(g.values, vals)
		g.mats = append(g.mats, m)
		byMat[sr.Material] = append(byMat[sr.Material], i)
	}
	for _, sr := range t.Slots {
		if idx := byMat[sr.Material]; len(idx) > 1 {
			g.draws = append(g.draws, idx)
			delete(byMat, sr.Material)
		}
	}
	for _, e := range t.Expect {
		g.expect = append(g.expect, genExpect{path: e.Path, value: ctyToGeneric(e.Value), tmpl: e.HasPlaceholders})
	}
	if s.gen == nil {
		s.gen = map[*Template]*genTemplate{}
	}
	s.gen[t] = g
	return g
}

func (s *Suite) generateTemplate(t *Template, opts GenOptions, yield func(*schema.Case) error) error {
	g := s.prepare(t)
	sizes := make([]int, len(g.values))
	for i, v := range g.values {
		if len(v) == 0 {
			if opts.Warn != nil {
				opts.Warn(t.DeclRange, fmt.Sprintf("template %q generates no cases: materials %q has no values of levels %s", t.Name, t.Slots[i].Material, strings.Join(t.MaterialLevels, ", ")))
			}
			return nil
		}
		sizes[i] = len(v)
	}
	limit := t.Limit
	if ll, ok := s.Defaults.LevelLimit[t.Level]; ok && (limit == 0 || ll < limit) {
		limit = ll
	}
	schemaKey := strings.ToLower(s.SchemaName)
	var yerr error
	emitted := 0
	var seen map[string]struct{}
	if len(g.draws) > 0 {
		seen = map[string]struct{}{}
	}
	idx := make([]int, len(sizes))
	emit := func(tuple []int) bool {
		if limit > 0 && emitted >= limit {
			return false
		}
		copy(idx, tuple)
		for _, grp := range g.draws {
			distinctDraws(idx, grp, sizes)
		}
		c := s.buildCase(t, g, idx, schemaKey)
		if seen != nil {
			if _, dup := seen[c.ID]; dup {
				return true
			}
			seen[c.ID] = struct{}{}
		}
		in, err := s.assignSplits(c)
		if err != nil {
			yerr = err
			return false
		}
		if opts.Split != "" && !in {
			return true
		}
		emitted++
		if err := yield(c); err != nil {
			yerr = err
			return false
		}
		return true
	}
	var err error
	switch t.Strategy {
	case "product":
		var dropped uint64
		dropped, err = combine.Product(sizes, limit, emit)
		if dropped > 0 && opts.Warn != nil && opts.Split == "" {
			opts.Warn(t.DeclRange, fmt.Sprintf("template %q: limit %d dropped %d of the product's cases", t.Name, limit, dropped))
		}
	case combine.StrategyPairwise:
		err = combine.Pairwise(sizes, t.Seed, emit)
	case combine.StrategyRandom:
		_, err = combine.Random(sizes, t.Count, t.Seed, emit)
	default:
		err = combine.Uniq(sizes, t.Seed, emit)
	}
	if yerr != nil {
		return yerr
	}
	return err
}

// distinctDraws makes the slots of one draw group (e.g. {城市} and {城市#2})
// take distinct values, shifting later draws to the next unused value.
func distinctDraws(idx []int, grp []int, sizes []int) {
	n := sizes[grp[0]]
	for k, si := range grp {
		for tries := 0; tries < n; tries++ {
			clash := false
			for _, prev := range grp[:k] {
				if idx[prev] == idx[si] {
					clash = true
					break
				}
			}
			if !clash {
				break
			}
			idx[si] = (idx[si] + 1) % n
		}
	}
}

func (s *Suite) buildCase(t *Template, g *genTemplate, idx []int, schemaKey string) *schema.Case {
	c := &schema.Case{
		Suite: s.Name, Template: t.Name, Level: t.Level, Core: t.Core, Scene: t.Scene, Tags: t.Tags,
		Schema: s.SchemaName, Unreviewed: !t.Reviewed,
	}
	if len(t.Slots) > 0 {
		c.Slots = make(map[string]schema.Slot, len(t.Slots))
	}
	for i, sr := range t.Slots {
		mv := g.values[i][idx[i]]
		src := sr.Material
		if mv.Origin != "" {
			src += " (" + mv.Origin + ")"
		}
		tag := g.mats[i].Tag
		c.Slots[sr.Key] = schema.Slot{Value: mv.Value, Normalized: mv.Normalize[schemaKey], Tag: tag, Level: mv.Level, Source: src}
	}
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Slot < 0 {
			b.WriteString(p.Literal)
		} else {
			b.WriteString(c.Slots[t.Slots[p.Slot].Key].Value)
		}
	}
	c.Text = b.String()
	c.ID = CaseID(t.Name, c.Slots)
	if len(g.expect) > 0 {
		c.Expect = make(schema.Expectations, len(g.expect))
		for i, e := range g.expect {
			v := e.value
			if e.tmpl {
				v = fillGeneric(v, c.Slots)
			}
			c.Expect[i] = schema.Expectation{Path: e.path, Value: v}
		}
	}
	return c
}

// CaseID is the stable id of a case: the first 16 hex digits of SHA-256
// over the template name and the slot assignment (sorted by slot).
func CaseID(template string, slots map[string]schema.Slot) string {
	h := sha256.New()
	h.Write([]byte(template))
	keys := make([]string, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write([]byte{1})
		h.Write([]byte(slots[k].Value))
	}
	var sum [32]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// fillGeneric replaces placeholders in every string of v by the slot's
// expected value (normalised when the material value has one).
func fillGeneric(v any, slots map[string]schema.Slot) any {
	switch t := v.(type) {
	case string:
		return FillExpected(t, slots)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fillGeneric(e, slots)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = fillGeneric(e, slots)
		}
		return out
	}
	return v
}

// FillExpected replaces each {slot} in s by the slot's expected value.
func FillExpected(s string, slots map[string]schema.Slot) string {
	lits, phs, err := ParsePlaceholders(s)
	if err != nil {
		return s
	}
	if len(phs) == 0 {
		return lits[0]
	}
	var b strings.Builder
	for i, ph := range phs {
		b.WriteString(lits[i])
		b.WriteString(slots[ph.Key].Expected())
	}
	b.WriteString(lits[len(lits)-1])
	return b.String()
}

// assignSplits sets c.Split and reports whether… the case is kept at all
// (always true; the bool is whether any split holds it).
func (s *Suite) assignSplits(c *schema.Case) (bool, error) {
	if len(s.Splits) == 0 {
		return false, nil
	}
	var ctx *hcl.EvalContext
	for _, sp := range s.Splits {
		in := false
		if sp.Where != nil {
			if ctx == nil {
				ctx = s.CaseContext(c)
			}
			v, diags := sp.Where.Value(ctx)
			if diags.HasErrors() {
				return false, fmt.Errorf("split %q: %s", sp.Name, diags.Error())
			}
			if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
				return false, fmt.Errorf("split %q: where must be true or false, got %s", sp.Name, typeName(v.Type()))
			}
			in = v.True()
		} else if sp.hi > sp.lo {
			u := UnitHash(sp.Seed, c.ID)
			in = u >= sp.lo && u < sp.hi
		}
		if in {
			c.Split = append(c.Split, sp.Name)
		}
	}
	return true, nil
}

// InSplit reports whether a generated case belongs to split name.
func InSplit(c *schema.Case, name string) bool { return slices.Contains(c.Split, name) }

// UnitHash maps (seed, id) to [0, 1) stably: FNV-1a 64 of seed, NUL, id.
func UnitHash(seed, id string) float64 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	h.Write([]byte{0})
	h.Write([]byte(id))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], h.Sum64())
	return float64(binary.BigEndian.Uint64(b[:])>>11) / float64(1<<53)
}

// ctyToGeneric converts a cty value to the generic JSON form used by
// expectations (int64 for whole numbers, float64 otherwise).
func ctyToGeneric(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString()
	case ty == cty.Bool:
		return v.True()
	case ty == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			if i, acc := bf.Int64(); acc == 0 {
				return i
			}
		}
		f, _ := bf.Float64()
		if math.IsInf(f, 0) {
			return bf.String()
		}
		return f
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, ctyToGeneric(e))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = ctyToGeneric(e)
		}
		return out
	}
	return nil
}
