package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/nlutest/nlutest/jsondoc"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/combine"
	"github.com/nlutest/nlutest/spec/materials"
	"github.com/zclconf/go-cty/cty"
)

// GenOptions select what Generate produces.
type GenOptions struct {
	// Split keeps only the cases of the named split.
	Split string
	// Templates, when non-nil, keeps only templates it accepts.
	Templates func(name string) bool
	// Sources, when non-nil, keeps only the case sources it accepts.
	Sources func(kind, name string) bool
	// Warn receives generation warnings (cases dropped by a limit, say).
	Warn func(hcl.Range, string)
	// Lean lets template cases leave out what only calling and evaluating
	// a case read (its slots, when no split's where reads them, and its
	// expectations) and, unless LeanTexts, its text: for a caller that
	// only counts scripts and selects them by id, source, turns, splits
	// and (with LeanTexts) text, as pipeline's Selection.Count. The
	// scripts, their ids, sources, turn counts, splits and the warnings
	// are those of a full generation. Only plain templates' cases are
	// lean (not conversations, scenarios, memory or perturbed templates,
	// nor any when a split is chosen by where); other sources generate in
	// full.
	Lean, LeanTexts bool
	// CountOnly, with Lean and without LeanTexts, is for a caller that
	// reads nothing of a script but its source and number of turns and
	// keeps none, as pipeline's Selection.Count without --filter,
	// --shard or --only-failed: where a template's cases are lean, no
	// split is chosen and no dedupe by id is needed, the template yields
	// one script of one turn again and again, without id, text or
	// splits, instead of building a case per slot assignment. The number
	// of scripts per source and the warnings are a full generation's.
	CountOnly bool
}

// genTemplate is a template prepared for generation: everything that does
// not change from case to case is computed once, so building a case costs
// a handful of allocations (the case, its slots map, text, id, source
// strings and expectations list).
type genTemplate struct {
	values [][]materials.Value // candidate values per slot
	mats   []*Materials
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
		lits, phs, err := ParsePlaceholders(t)
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

// Generate streams the suite's cases, source by source in declaration
// order, to yield; it stops at the first error yield returns. The same suite
// always yields the same cases in the same order with the same ids. Cases
// of scripts of several turns are yielded turn by turn.
//
// Cases are built on a second goroutine while yield consumes them (in
// batches, at most a few thousand cases ahead), so a consumer that encodes
// or sends each case runs in parallel with generation. Every callback
// (yield, opts.Warn, opts.Templates, opts.Sources) is called on the
// caller's goroutine, yield and opts.Warn in generation order.
func (s *Suite) Generate(opts GenOptions, yield func(*schema.Case) error) error {
	return s.GenerateScripts(opts, func(sc *schema.Script) error {
		for i := range sc.Len() {
			if err := yield(sc.At(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// GenerateScripts is Generate yielding whole scripts (a single-turn case is
// a script of one turn), the runner's unit of work.
func (s *Suite) GenerateScripts(opts GenOptions, yield func(*schema.Script) error) error {
	if opts.Split != "" && !slices.ContainsFunc(s.Splits, func(sp *Split) bool { return sp.Name == opts.Split }) {
		return fmt.Errorf("the suite has no split %q", opts.Split)
	}
	var sources []Source
	for _, src := range s.CaseSources {
		if opts.keep(src) {
			sources = append(sources, src)
		}
	}
	s.BaseContext() // built once here, before the generating goroutine reads it
	// The generating goroutine runs at most genAhead scripts ahead of
	// yield: a batch being read here, one in the channel, one being filled.
	batches := make(chan []genItem, 1)
	done := make(chan struct{})
	var genErr error
	go func() {
		defer close(batches)
		defer func() {
			if r := recover(); r != nil {
				genErr = fmt.Errorf("internal error while generating cases: %v", r)
			}
		}()
		genErr = s.produce(sources, opts, batches, done)
	}()
	var yerr error
	for batch := range batches {
		if yerr != nil {
			continue // drain, so the generating goroutine ends
		}
		for _, it := range batch {
			if it.sc == nil {
				if opts.Warn != nil {
					opts.Warn(it.warnAt, it.warn)
				}
				continue
			}
			if err := yield(it.sc); err != nil {
				yerr = err
				close(done)
				break
			}
		}
	}
	if yerr != nil {
		return yerr
	}
	return genErr
}

// keep applies the options' source filters.
func (o *GenOptions) keep(src Source) bool {
	if o.Sources != nil && !o.Sources(src.Kind(), src.Name()) {
		return false
	}
	return o.Templates == nil || src.Kind() != schema.KindTemplate || o.Templates(src.Name())
}

// produce runs on the generating goroutine: it sends the sources' scripts
// and warnings in batches until done closes.
func (s *Suite) produce(sources []Source, opts GenOptions, batches chan<- []genItem, done <-chan struct{}) error {
	batch := make([]genItem, 0, genBatch)
	push := func(it genItem) error {
		batch = append(batch, it)
		if len(batch) < genBatch {
			return nil
		}
		select {
		case batches <- batch:
			batch = make([]genItem, 0, genBatch)
			return nil
		case <-done:
			return errStopped
		}
	}
	inner := opts
	inner.Warn = func(r hcl.Range, msg string) { _ = push(genItem{warnAt: r, warn: msg}) }
	emit := func(sc *schema.Script) error { return push(genItem{sc: sc}) }
	var err error
	shared := map[any]any{}
	for _, src := range sources {
		g := &Gen{s: s, opts: inner, sp: Splitter{s: s}, shared: shared}
		if err = src.Generate(g, emit); err != nil {
			break
		}
	}
	if err == errStopped {
		return nil
	}
	if len(batch) > 0 {
		select {
		case batches <- batch:
		case <-done:
		}
	}
	return err
}

// genBatch is how many scripts or warnings the generating goroutine sends
// at a time, and genAhead how many scripts it can have made that yield has
// not had yet. The scripts made ahead are live memory through a run (a
// case with its slot map is about 1 KiB): 64 a batch and one batch in the
// channel keep that under 200 KiB, where 256 a batch and 4 in the channel
// held about 1.5 MB, and generation is no slower (BenchmarkGenerate1M).
const (
	genBatch = 64
	genAhead = 3 * genBatch
)

// genItem is a script, or a warning, on its way from the generating
// goroutine to the caller.
type genItem struct {
	sc     *schema.Script
	warnAt hcl.Range
	warn   string
}

// errStopped tells the generating goroutine that the caller stopped.
var errStopped = errors.New("generation stopped")

func (s *Suite) prepare(t *Template) *genTemplate {
	s.genMu.Lock()
	defer s.genMu.Unlock()
	if g, ok := s.gen[t]; ok {
		return g
	}
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
		g.expect = append(g.expect, genExpect{path: e.Path, fill: compileFiller(ctyToGeneric(e.Value), index)})
	}
	if s.gen == nil {
		s.gen = map[*Template]*genTemplate{}
	}
	s.gen[t] = g
	return g
}

// caseBuilder holds the buffers one template's generation reuses.
type caseBuilder struct {
	s         *Suite
	t         *Template
	g         *genTemplate
	schemaKey string
	exp       []string // each slot's expected value in the current case
	idBuf     []byte
	srcBuf    []byte
	textBuf   []byte
	sp        Splitter
	// keys is the number of distinct slot keys of t: a reused slot map
	// holding that many after fill holds t's keys only.
	keys int
	// want is the id and text of the saved case a rebuild expects
	// (empty when generating): fill gives the case these strings when
	// it builds the same text, instead of allocating copies.
	wantID, wantText string
	// lean leaves the slots and expectations out, and noText the text
	// (GenOptions.Lean; noText without LeanTexts).
	lean, noText bool
}

func (s *Suite) newCaseBuilder(t *Template, g *genTemplate) *caseBuilder {
	keys := map[string]bool{}
	for _, sr := range t.Slots {
		keys[sr.Key] = true
	}
	return &caseBuilder{s: s, t: t, g: g, schemaKey: strings.ToLower(s.SchemaName), exp: make([]string, len(t.Slots)), sp: Splitter{s: s, useMemo: true}, keys: len(keys)}
}

// generateTemplate yields the cases of template t, each a script of one
// turn.
func (s *Suite) generateTemplate(t *Template, gen *Gen, yield func(*schema.Script) error) error {
	return s.GenerateTemplate(t, gen, yield, nil)
}

// ScriptOf turns the case of one slot assignment into the script yielded
// and assigns its splits (a conversation cuts it into turns).
type ScriptOf func(c *schema.Case, sp *Splitter) (*schema.Script, error)

// GenerateTemplate yields the cases of template t — one per slot
// assignment its strategy, limit, count and seed draw, with stable ids
// and Gen's filters and splits applied — each made into a script by conv
// (nil: the case alone, a script of one turn). A source kind built on
// templates (conversation, memory, scenario) generates through it: conv
// assigns the splits (sp.Assign) and cuts or extends the case into the
// script it yields.
func (s *Suite) GenerateTemplate(t *Template, gen *Gen, yield func(*schema.Script) error, conv ScriptOf) error {
	g := s.prepare(t)
	sizes, ok := g.sizes(t, gen)
	if !ok {
		return nil
	}
	limit := t.Limit
	if ll, ok := s.Defaults.LevelLimit[t.Level]; ok && (limit == 0 || ll < limit) {
		limit = ll
	}
	cb := s.newCaseBuilder(t, g)
	// Lean only where nothing reads the case but the count: not for
	// conversations and memory (conv cuts the case into turns), perturbed
	// variants (made from the case) or splits chosen by where.
	cb.lean = gen.opts.Lean && conv == nil && t.Perturb == nil && !s.splitsRead()
	cb.noText = cb.lean && !gen.opts.LeanTexts
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
	if cb.noText && gen.opts.CountOnly && tg.seenID == nil && tg.split == "" {
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
func (tg *tupleGen) product(t *Template, gen *Gen, limit int) error {
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
func (g *genTemplate) sizes(t *Template, gen *Gen) ([]int, bool) {
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
	// bare, when set (GenOptions.CountOnly), is yielded for every case
	// instead of a case built from the tuple.
	bare *schema.Script
}

// bareScript is the script a count-only generation yields for each case
// of template t: one turn naming its source, without id, text or splits.
func bareScript(s *Suite, t *Template) *schema.Script {
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
	if tg.split != "" && !InSplit(c, tg.split) {
		return true
	}
	tg.emitted++
	if err := tg.yield(sc.Seal()); err != nil {
		tg.yerr = err
		return false
	}
	return true
}

// emitBare yields the bare script for a case (GenOptions.CountOnly): no
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
	if tg.split != "" && !InSplit(sc.Turns[0], tg.split) {
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

// Splitter assigns cases to splits.
type Splitter struct {
	s *Suite
	// sets interns the split lists: cases in the same splits share one
	// (full, so appending copies) slice.
	sets map[uint64][]string
	// memo, when set, holds the value of split conditions that depend on
	// the source only (see Split.templateOnly), by split index: a
	// template's cases share their level, scene, tags…
	memo    map[int]bool
	useMemo bool
}

// Assign sets c.Split: the splits whose where condition holds or whose
// share of the unit interval holds the hash of the case id.
func (sp *Splitter) Assign(c *schema.Case) error {
	s := sp.s
	if len(s.Splits) == 0 {
		return nil
	}
	var ctx *hcl.EvalContext
	var mask uint64
	// The splits are gathered on the stack and the case gets the list
	// shared by every case of the same splits (or a copy of its own).
	var buf [8]string
	sel := append(buf[:0], c.Split...)
	for i, split := range s.Splits {
		in := false
		if split.Where != nil {
			v, ok := sp.memo[i]
			if !ok {
				var err error
				if v, err = sp.where(i, split, c, &ctx); err != nil {
					return err
				}
			}
			in = v
		} else if split.hi > split.lo {
			u := UnitHash(split.Seed, c.ID)
			in = u >= split.lo && u < split.hi
		}
		if in {
			if i < 64 {
				mask |= 1 << i
			}
			sel = append(sel, split.Name)
		}
	}
	if len(sel) == 0 {
		return nil
	}
	if shared, ok := sp.sets[mask]; ok && len(s.Splits) <= 64 {
		c.Split = shared
		return nil
	}
	c.Split = slices.Clip(slices.Clone(sel))
	if len(s.Splits) <= 64 {
		if sp.sets == nil {
			sp.sets = map[uint64][]string{}
		}
		sp.sets[mask] = c.Split
	}
	return nil
}

// where evaluates split i's condition for c, building *ctx on first need.
func (sp *Splitter) where(i int, split *Split, c *schema.Case, ctx **hcl.EvalContext) (bool, error) {
	if *ctx == nil {
		*ctx = sp.s.SplitContext(c)
	}
	v, diags := split.Where.Value(*ctx)
	if diags.HasErrors() {
		return false, fmt.Errorf("split %q: %s", split.Name, sp.s.Redactor().String(diags.Error()))
	}
	v = Unmark(v)
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
		return false, fmt.Errorf("split %q: where must be true or false, got %s", split.Name, typeName(v.Type()))
	}
	// A condition on source attributes only has one value for all the
	// source's cases: evaluate it once.
	if split.templateOnly && sp.useMemo {
		if sp.memo == nil {
			sp.memo = map[int]bool{}
		}
		sp.memo[i] = v.True()
	}
	return v.True(), nil
}

// numberOf types a number's decimal text as the evaluator types a
// response's numbers (jsondoc: int64, float64, or json.Number — the text —
// for what float64 does not hold exactly), so an expectation equals the
// response it was written from, however large or precise the number.
func numberOf(text string) any {
	var d jsondoc.Doc
	if d.Parse([]byte(text)) != nil {
		return text
	}
	return d.Value(d.Root())
}

// splitsRead reports whether a split of s is chosen by a where
// expression, which may read a case's slots.
func (s *Suite) splitsRead() bool {
	return slices.ContainsFunc(s.Splits, func(sp *Split) bool { return sp.Where != nil })
}

// InSplit reports whether a generated case belongs to split name.
func InSplit(c *schema.Case, name string) bool { return slices.Contains(c.Split, name) }

// UnitHash maps (seed, id) to [0, 1) stably: the top 53 bits of FNV-1a 64
// over seed, NUL, id, passed through MurmurHash3's 64-bit finaliser (fmix64).
// FNV-1a alone leaves an id's last bytes in the low bits only, so ids that
// differ only at the end ("utt-1"…"utt-9999") crowded into a few stretches of
// the unit interval and fraction splits were uneven; fmix64 spreads every
// input bit over the top bits the fraction is read from.
func UnitHash(seed, id string) float64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(seed); i++ {
		h ^= uint64(seed[i])
		h *= prime
	}
	h *= prime // the NUL separator: h ^= 0 leaves h as is
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= prime
	}
	h ^= h >> 33 // fmix64
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return float64(h>>11) / float64(1<<53)
}

// ctyToGeneric converts a cty value to the generic JSON form used by
// expectations (int64 for whole numbers, otherwise typed as numberOf
// does).
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
		return numberOf(bf.Text('g', -1))
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
