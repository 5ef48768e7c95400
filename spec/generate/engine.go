// Package generate is the template generation engine: it turns a
// template block (spec.Template: text with {slot} placeholders over
// materials, expectations, strategy, limit, count, seed) into its cases —
// one per slot assignment the strategy draws (spec/combine), with stable
// ids (spec.CaseID's), filled expectations, splits (spec.Splitter) and
// the product cap's warnings — and rebuilds a saved case from its slot
// values (Source.Rebuild). The template, conversation, memory and
// scenario kinds (sources/*) generate through Template and keep a
// NewSource to rebuild their saved cases.
//
// It does not own the template block's decoding (sources/template and
// spec's Decoder.GenerationSettings), the walk over a suite's case
// sources, the batching to the caller and the split selection
// (spec.Suite.Generate, spec.Splitter), nor perturbed variants
// (spec/perturb): it imports spec and is imported by the kinds only.
package generate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/combine"
	"github.com/nlutest/nlutest/spec/materials"
)

// genTemplate is a template prepared for generation: everything that does
// not change from case to case is computed once, so building a case costs
// a handful of allocations (the case, its slots map, text, id, source
// strings and expectations list).
type genTemplate struct {
	values [][]materials.Value // candidate values per slot
	mats   []*spec.Materials
	expect []genExpect
	// draws groups slot indexes drawing from the same materials, when any
	// placeholder asks for a second distinct value.
	draws [][]int
	// idOrder lists slot indexes sorted by placeholder key: the order
	// CaseID hashes the slots in.
	idOrder []int
	// textLen is the byte length of the text's literal parts.
	textLen int
}

// genExpect is one expectation ready to be filled per case.
type genExpect struct {
	path string
	fill filler
}

// filler builds an expected value from the slots' expected values. A
// static filler holds the value itself (shared by every case: callers never
// modify expectation values); a dynamic one rebuilds the parts that hold
// placeholders.
type filler struct {
	static  any
	dynamic bool
	// A string with placeholders: lits[0] exp[slots[0]] lits[1] … lits[n].
	lits  []string
	slots []int
	// A list (list != nil) or an object (keys != nil) holding placeholders.
	list []filler
	keys []string
	vals []filler
}

// compileFiller prepares v (an expected value in generic form) for filling.
// index maps placeholder keys to slot indexes. `{{` and `}}` become literal
// braces in every string, with or without placeholders.
func compileFiller(v any, index map[string]int) filler {
	switch t := v.(type) {
	case string:
		lits, phs, err := spec.ParsePlaceholders(t)
		if err != nil {
			return filler{static: t}
		}
		if len(phs) == 0 {
			return filler{static: lits[0]}
		}
		f := filler{dynamic: true, lits: lits, slots: make([]int, len(phs))}
		for i, ph := range phs {
			k, ok := index[ph.Key]
			if !ok { // checked at load time; keep the placeholder text
				return filler{static: t}
			}
			f.slots[i] = k
		}
		return f
	case []any:
		elems := make([]filler, len(t))
		dyn := false
		for i, e := range t {
			elems[i] = compileFiller(e, index)
			dyn = dyn || elems[i].dynamic
		}
		if !dyn {
			out := make([]any, len(t))
			for i := range elems {
				out[i] = elems[i].static
			}
			return filler{static: out}
		}
		return filler{dynamic: true, list: elems}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals := make([]filler, len(keys))
		dyn := false
		for i, k := range keys {
			vals[i] = compileFiller(t[k], index)
			dyn = dyn || vals[i].dynamic
		}
		if !dyn {
			out := make(map[string]any, len(keys))
			for i, k := range keys {
				out[k] = vals[i].static
			}
			return filler{static: out}
		}
		return filler{dynamic: true, keys: keys, vals: vals}
	}
	return filler{static: v}
}

// fill returns the filler's value for a case whose slots expect exp.
func (f *filler) fill(exp []string) any {
	switch {
	case !f.dynamic:
		return f.static
	case f.list != nil:
		out := make([]any, len(f.list))
		for i := range f.list {
			out[i] = f.list[i].fill(exp)
		}
		return out
	case f.keys != nil:
		out := make(map[string]any, len(f.keys))
		for i, k := range f.keys {
			out[k] = f.vals[i].fill(exp)
		}
		return out
	}
	if len(f.slots) == 1 && f.lits[0] == "" && f.lits[1] == "" {
		return exp[f.slots[0]]
	}
	n := 0
	for _, l := range f.lits {
		n += len(l)
	}
	for _, k := range f.slots {
		n += len(exp[k])
	}
	var b strings.Builder
	b.Grow(n)
	for i, k := range f.slots {
		b.WriteString(f.lits[i])
		b.WriteString(exp[k])
	}
	b.WriteString(f.lits[len(f.lits)-1])
	return b.String()
}

// prepare returns template t of suite s prepared for generation, made
// once per suite and template (Suite.Prepared) and shared by the
// goroutines that generate from or rebuild the suite.
func prepare(s *spec.Suite, t *spec.Template) *genTemplate {
	return s.Prepared(t, func() any { return prepareTemplate(s, t) }).(*genTemplate)
}

// prepareTemplate computes what the cases of template t share.
func prepareTemplate(s *spec.Suite, t *spec.Template) *genTemplate {
	g := &genTemplate{}
	byMat := map[string][]int{}
	index := map[string]int{}
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
		index[sr.Key] = i
		g.idOrder = append(g.idOrder, i)
	}
	sort.Slice(g.idOrder, func(a, b int) bool { return t.Slots[g.idOrder[a]].Key < t.Slots[g.idOrder[b]].Key })
	for _, sr := range t.Slots {
		if idx := byMat[sr.Material]; len(idx) > 1 {
			g.draws = append(g.draws, idx)
			delete(byMat, sr.Material)
		}
	}
	for _, p := range t.Parts {
		g.textLen += len(p.Literal)
	}
	for _, e := range t.Expect {
		g.expect = append(g.expect, genExpect{path: e.Path, fill: compileFiller(spec.GenericValue(e.Value), index)})
	}
	return g
}

// caseBuilder holds the buffers one template's generation reuses.
type caseBuilder struct {
	s         *spec.Suite
	t         *spec.Template
	g         *genTemplate
	schemaKey string
	exp       []string // each slot's expected value in the current case
	idBuf     []byte
	srcBuf    []byte
	textBuf   []byte
	sp        spec.Splitter
	// keys is the number of distinct slot keys of t: a reused slot map
	// holding that many after fill holds t's keys only.
	keys int
	// want is the id and text of the saved case a rebuild expects
	// (empty when generating): fill gives the case these strings when
	// it builds the same text, instead of allocating copies.
	wantID, wantText string
	// lean leaves the slots and expectations out, and noText the text
	// (spec.GenOptions.Lean; noText without LeanTexts).
	lean, noText bool
}

func newCaseBuilder(s *spec.Suite, t *spec.Template, g *genTemplate) *caseBuilder {
	keys := map[string]bool{}
	for _, sr := range t.Slots {
		keys[sr.Key] = true
	}
	return &caseBuilder{s: s, t: t, g: g, schemaKey: strings.ToLower(s.SchemaName), exp: make([]string, len(t.Slots)), sp: spec.SourceSplitter(s), keys: len(keys)}
}

// ScriptOf turns the case of one slot assignment into the script yielded
// and assigns its splits (a conversation cuts it into turns).
type ScriptOf func(c *schema.Case, sp *spec.Splitter) (*schema.Script, error)

// Template yields the cases of template t — one per slot
// assignment its strategy, limit, count and seed draw, with stable ids
// and Gen's filters and splits applied — each made into a script by conv
// (nil: the case alone, a script of one turn). A source kind built on
// templates (conversation, memory, scenario) generates through it: conv
// assigns the splits (sp.Assign) and cuts or extends the case into the
// script it yields.
func Template(s *spec.Suite, t *spec.Template, gen *spec.Gen, yield func(*schema.Script) error, conv ScriptOf) error {
	g := prepare(s, t)
	opts := gen.Options()
	sizes, ok := g.sizes(t, gen)
	if !ok {
		return nil
	}
	limit := t.Limit
	if ll, ok := s.Defaults.LevelLimit[t.Level]; ok && (limit == 0 || ll < limit) {
		limit = ll
	}
	cb := newCaseBuilder(s, t, g)
	// Lean only where nothing reads the case but the count: not for
	// conversations and memory (conv cuts the case into turns), perturbed
	// variants (made from the case) or splits chosen by where.
	cb.lean = opts.Lean && conv == nil && t.Perturb == nil && !splitsRead(s)
	cb.noText = cb.lean && !opts.LeanTexts
	tg := &tupleGen{cb: cb, split: gen.Split(), limit: limit, sizes: sizes, idx: make([]int, len(sizes)), yield: yield, conv: conv}
	// Distinct draws shift values, so two tuples can become one case; the
	// seen-set (of mixed-radix tuple numbers when they fit in 64 bits, else
	// of ids) drops the repeats.
	if len(g.draws) > 0 {
		if _, ok := productSize(sizes); ok {
			tg.seenNum = map[uint64]struct{}{}
		} else {
			tg.seenID = map[string]struct{}{}
		}
	}
	if cb.noText && opts.CountOnly && tg.seenID == nil && tg.split == "" {
		tg.bare = bareScript(s, t)
	}
	var err error
	switch t.Strategy {
	case "product":
		err = tg.product(t, gen, limit)
	case combine.StrategyPairwise:
		err = combine.Pairwise(sizes, t.Seed, tg.emit)
	case combine.StrategyRandom:
		_, err = combine.Random(sizes, t.Count, t.Seed, tg.emit)
	default:
		err = combine.Uniq(sizes, t.Seed, tg.emit)
	}
	if tg.yerr != nil {
		return tg.yerr
	}
	return err
}

// DefaultProductCap is the most cases a template of strategy "product"
// without a limit generates: a product of a few large materials would
// otherwise hang every command and exhaust memory. A larger explicit
// limit lifts it.
const DefaultProductCap = 100_000

// product generates the template's product of slot values, up to limit
// (DefaultProductCap when the template sets none), and warns with the
// product's size when the limit drops cases.
func (tg *tupleGen) product(t *spec.Template, gen *spec.Gen, limit int) error {
	size, fits := productSize(tg.sizes)
	capped := limit == 0 && (!fits || size > DefaultProductCap)
	if capped {
		tg.limit, limit = DefaultProductCap, DefaultProductCap
	}
	dropped, err := combine.Product(tg.sizes, limit, tg.emit)
	if dropped == 0 || gen.Split() != "" {
		return err
	}
	total := "more than 18446744073709551615"
	if fits {
		total = strconv.FormatUint(size, 10)
	}
	if capped {
		gen.Warn(t.DeclRange, fmt.Sprintf("template %q: strategy \"product\" makes %s cases (%s); without a limit only the first %d are generated. Set limit, or use strategy \"pairwise\"", t.Name, total, sizesText(tg.sizes), DefaultProductCap))
		return err
	}
	gen.Warn(t.DeclRange, fmt.Sprintf("template %q: limit %d dropped %d of the product's %s cases", t.Name, limit, dropped, total))
	return err
}

// sizesText is "4 × 1000 × 1000 values".
func sizesText(sizes []int) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " × ") + " values"
}

// sizes returns the number of candidate values of each slot, or false
// (after a warning) when the template generates no cases.
func (g *genTemplate) sizes(t *spec.Template, gen *spec.Gen) ([]int, bool) {
	sizes := make([]int, len(g.values))
	for i, v := range g.values {
		if len(v) == 0 {
			gen.Warn(t.DeclRange, fmt.Sprintf("template %q generates no cases: materials %q has no values of levels %s", t.Name, t.Slots[i].Material, strings.Join(t.MaterialLevels, ", ")))
			return nil, false
		}
		sizes[i] = len(v)
	}
	for _, grp := range g.draws {
		if n := sizes[grp[0]]; n < len(grp) {
			gen.Warn(t.DeclRange, fmt.Sprintf("template %q generates no cases: it draws %d distinct values of materials %q, which has %d%s", t.Name, len(grp), t.Slots[grp[0]].Material, n, levelsNote(t.MaterialLevels)))
			return nil, false
		}
	}
	return sizes, true
}

// tupleGen turns the value tuples a strategy draws into cases.
type tupleGen struct {
	cb      *caseBuilder
	split   string
	limit   int
	emitted int
	sizes   []int
	idx     []int
	seenNum map[uint64]struct{}
	seenID  map[string]struct{}
	yield   func(*schema.Script) error
	yerr    error
	conv    ScriptOf
	// bare, when set (spec.GenOptions.CountOnly), is yielded for every case
	// instead of a case built from the tuple.
	bare *schema.Script
}

// bareScript is the script a count-only generation yields for each case
// of template t: one turn naming its source, without id, text or splits.
func bareScript(s *spec.Suite, t *spec.Template) *schema.Script {
	sc, c := schema.NewSingle()
	*c = schema.Case{Suite: s.Name, Template: t.Name, Source: t.Name, SourceKind: schema.KindTemplate}
	return sc.Seal()
}

// emit builds and yields the case of one tuple; false stops the strategy.
func (tg *tupleGen) emit(tuple []int) bool {
	if tg.limit > 0 && tg.emitted >= tg.limit {
		return false
	}
	idx := tg.idx
	copy(idx, tuple)
	for _, grp := range tg.cb.g.draws {
		distinctDraws(idx, grp, tg.sizes)
	}
	if tg.seenNum != nil {
		var k uint64
		for i, v := range idx {
			k = k*uint64(tg.sizes[i]) + uint64(v)
		}
		if _, dup := tg.seenNum[k]; dup {
			return true
		}
		tg.seenNum[k] = struct{}{}
	}
	if tg.bare != nil {
		return tg.emitBare()
	}
	sc, c := schema.NewSingle()
	tg.cb.fill(c, idx)
	if tg.seenID != nil {
		if _, dup := tg.seenID[c.ID]; dup {
			return true
		}
		tg.seenID[c.ID] = struct{}{}
	}
	if tg.conv != nil {
		return tg.emitScript(c)
	}
	if err := tg.cb.sp.Assign(c); err != nil {
		tg.yerr = err
		return false
	}
	if tg.split != "" && !spec.InSplit(c, tg.split) {
		return true
	}
	tg.emitted++
	if err := tg.yield(sc.Seal()); err != nil {
		tg.yerr = err
		return false
	}
	return true
}

// emitBare yields the bare script for a case (spec.GenOptions.CountOnly): no
// split is chosen, so every case is yielded; false stops the strategy.
func (tg *tupleGen) emitBare() bool {
	tg.emitted++
	if err := tg.yield(tg.bare); err != nil {
		tg.yerr = err
		return false
	}
	return true
}

// emitScript yields the script conv makes of c; false stops the strategy.
func (tg *tupleGen) emitScript(c *schema.Case) bool {
	sc, err := tg.conv(c, &tg.cb.sp)
	if err != nil {
		tg.yerr = err
		return false
	}
	if tg.split != "" && !spec.InSplit(sc.Turns[0], tg.split) {
		return true
	}
	tg.emitted++
	if err := tg.yield(sc); err != nil {
		tg.yerr = err
		return false
	}
	return true
}

func levelsNote(levels []string) string {
	if len(levels) == 0 {
		return ""
	}
	return " of levels " + strings.Join(levels, ", ")
}

// productSize is the product of sizes, and whether it fits in a uint64.
func productSize(sizes []int) (uint64, bool) {
	p := uint64(1)
	for _, n := range sizes {
		if n > 0 && p > math.MaxUint64/uint64(n) {
			return 0, false
		}
		p *= uint64(n)
	}
	return p, true
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

// fill makes c the case of one slot assignment. A slot map and
// expectations c already holds are reused (a rebuild into a case its
// caller owns, Saved.Into); a new case gets its own.
func (cb *caseBuilder) fill(c *schema.Case, idx []int) {
	s, t, g := cb.s, cb.t, cb.g
	slots, expect := c.Slots, c.Expect
	*c = schema.Case{
		Suite: s.Name, Template: t.Name, Source: t.Name, SourceKind: schema.KindTemplate,
		Level: t.Level, Core: t.Core, Scene: t.Scene, Tags: t.Tags,
		Schema: s.SchemaName, Unreviewed: !t.Reviewed,
	}
	textLen := g.textLen
	if cb.lean {
		if !cb.noText {
			c.Text = cb.text(idx, textLen+16*len(t.Slots))
		}
		c.ID = cb.id(idx)
		return
	}
	if len(t.Slots) > 0 {
		if slots == nil {
			slots = make(map[string]schema.Slot, len(t.Slots))
		}
		c.Slots = slots
		// The slots overwrite those of the case built last in the map
		// (the same keys when it was this template's): cleared only
		// when other keys are left over.
		textLen += cb.fillSlots(slots, idx)
		if len(slots) != cb.keys {
			clear(slots)
			cb.fillSlots(slots, idx)
		}
	}
	c.Text = cb.text(idx, textLen)
	c.ID = cb.id(idx)
	if len(g.expect) > 0 {
		if cap(expect) >= len(g.expect) {
			c.Expect = expect[:len(g.expect)]
		} else {
			c.Expect = make(schema.Expectations, len(g.expect))
		}
		for i := range g.expect {
			e := &g.expect[i]
			c.Expect[i] = schema.Expectation{Path: e.path, Value: e.fill.fill(cb.exp)}
		}
	}
}

// fillSlots sets the slots of the assignment idx in slots and cb.exp and
// returns the length of their values.
func (cb *caseBuilder) fillSlots(slots map[string]schema.Slot, idx []int) int {
	t, g := cb.t, cb.g
	n := 0
	for i, sr := range t.Slots {
		mv := &g.values[i][idx[i]]
		src := sr.Material
		if mv.Origin != "" {
			cb.srcBuf = append(append(append(append(cb.srcBuf[:0], sr.Material...), " ("...), mv.Origin...), ')')
			src = string(cb.srcBuf)
		}
		sl := schema.Slot{Value: mv.Value, Tag: g.mats[i].Tag, Level: mv.Level, Source: src}
		if mv.Normalize != nil {
			sl.Normalized = mv.Normalize[cb.schemaKey]
		}
		slots[sr.Key] = sl
		cb.exp[i] = sl.Expected()
		n += len(mv.Value)
	}
	return n
}

// text is the text of the assignment idx (n bytes long, about): the saved
// text a rebuild expects when it is that (cb.wantText), else a new string.
func (cb *caseBuilder) text(idx []int, n int) string {
	b := slices.Grow(cb.textBuf[:0], n)
	for _, p := range cb.t.Parts {
		if p.Slot < 0 {
			b = append(b, p.Literal...)
		} else {
			b = append(b, cb.g.values[p.Slot][idx[p.Slot]].Value...)
		}
	}
	cb.textBuf = b
	if string(b) == cb.wantText {
		return cb.wantText
	}
	return string(b)
}

// id is CaseID without the per-call sorting and hashing allocations.
func (cb *caseBuilder) id(idx []int) string {
	b := append(cb.idBuf[:0], cb.t.Name...)
	for _, i := range cb.g.idOrder {
		b = append(b, 0)
		b = append(b, cb.t.Slots[i].Key...)
		b = append(b, 1)
		b = append(b, cb.g.values[i][idx[i]].Value...)
	}
	cb.idBuf = b
	sum := sha256.Sum256(b)
	var h [16]byte
	hex.Encode(h[:], sum[:8])
	if string(h[:]) == cb.wantID {
		return cb.wantID // the saved id a rebuild expects
	}
	return string(h[:])
}

// splitsRead reports whether a split of s is chosen by a where
// expression, which may read a case's slots.
func splitsRead(s *spec.Suite) bool {
	return slices.ContainsFunc(s.Splits, func(sp *spec.Split) bool { return sp.Where != nil })
}
