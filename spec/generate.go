package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
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
