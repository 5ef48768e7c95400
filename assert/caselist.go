package assert

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// caseEntry is a listed case with its position among the results (seq).
// Most listed cases are passing cases of a template, whose report holds
// only the case's id, text, scene, outcome, latency and cache mark, its
// template, file and line being its source's: such a case keeps just
// those fields here, with its source's index (src), and full is nil — 88
// bytes instead of 368 (a 360-byte schema.CaseReport and seq), which at
// 100,000 listed cases is 8.8 MB held through the run instead of 36.8 MB.
// Every other case keeps its whole report in full; of the fields here it
// then sets only seq and outcome.
type caseEntry struct {
	seq      int64
	id, text string
	scene    []string
	latency  float64
	src      int32 // index of the case's source in the suite's CaseSources
	outcome  int8  // a schema.Outcome
	cached   bool
	repeat   uint16 // the repetition under --repeat (in what was padding)
	full     *schema.CaseReport
}

// listCompact turns compact entries on; tests turn it off to compare the
// reports of compact entries with those of whole ones.
var listCompact = true

// entry returns the entry that lists cr, the report addCase built for
// case number seq of source key: a compact one when the compact fields
// and the source rebuild cr exactly (compactable), else one holding a
// copy of cr.
func (c *Collector) entry(seq int64, cr *schema.CaseReport, key sourceKey) caseEntry {
	if i, ok := c.srcOrder[key]; listCompact && ok && key.kind == schema.KindTemplate && i <= 1<<31-1 {
		rng := c.suite.CaseSources[i].DeclRange()
		if compactable(cr, key.name, rng.Filename, rng.Start.Line) {
			return caseEntry{seq: seq, id: cr.ID, text: cr.Text, scene: cr.Scene, latency: cr.LatencyMS,
				src: int32(i), outcome: int8(cr.Outcome), cached: cr.Cached, repeat: uint16(cr.Repeat)}
		}
	}
	full := new(schema.CaseReport)
	*full = *cr
	return caseEntry{seq: seq, outcome: int8(cr.Outcome), full: full}
}

// compactable reports whether cr holds nothing but what a compact entry
// keeps (id, text, scene, outcome, latency, cache mark, a repetition up to
// 65,535) and what its source gives (template name, file and line): cr is
// Bare but for its repetition, and its place is its source's.
func compactable(cr *schema.CaseReport, name, file string, line int) bool {
	if cr.Template != name || cr.File != file || cr.Line != line || int(int8(cr.Outcome)) != int(cr.Outcome) || int(uint16(cr.Repeat)) != cr.Repeat {
		return false
	}
	rep := cr.Repeat
	cr.Repeat = 0
	bare := cr.Bare()
	cr.Repeat = rep
	return bare
}

// srcPlace is what a compact entry's report takes from its source.
type srcPlace struct {
	name, file string
	line       int
}

// places returns every case source's name, file and line, by index.
func (c *Collector) places() []srcPlace {
	out := make([]srcPlace, len(c.suite.CaseSources))
	for i, src := range c.suite.CaseSources {
		rng := src.DeclRange()
		out[i] = srcPlace{src.Name(), rng.Filename, rng.Start.Line}
	}
	return out
}

// reportInto writes the listed case's report into dst, which must be
// zero: an entry kept whole is copied; a compact entry's few fields are
// set one by one, with its source's name and place from places, rather
// than a whole 360-byte report built and copied — a copy that, while the
// garbage collector runs (the report's 7 MB allocation at 20,000 cases
// starts it), takes a write barrier over each of the report's pointer
// slots, and was most of Cases (docs/performance.md, issue 27, "the
// report"). TestListedCasesCompactEqualWhole compares the two kinds.
func reportInto(dst *schema.CaseReport, e *caseEntry, places []srcPlace) {
	if e.full != nil {
		*dst = *e.full
		return
	}
	p := &places[e.src]
	dst.ID, dst.Template, dst.Scene, dst.Text, dst.File = e.id, p.name, e.scene, e.text, p.file
	dst.Outcome, dst.LatencyMS, dst.Cached, dst.Line, dst.Repeat = schema.Outcome(e.outcome), e.latency, e.cached, p.line, int(e.repeat)
}

// caseChunk is how many listed cases one block of a caseList holds: 8,192
// entries of 88 bytes, 704 KiB.
const caseChunk = 8192

// caseList holds a collector's listed cases in fixed blocks that never
// move once allocated: adding copies nothing already listed, and the room
// allocated beyond the cases is at most one block. (A slice grown by
// doubling held room for 131,072 entries at 100,000 cases, with the old
// and the new array both live while it grew.)
type caseList struct {
	blocks [][]caseEntry
	n      int
}

func (l *caseList) len() int { return l.n }

// at returns the i-th case listed.
func (l *caseList) at(i int) *caseEntry { return &l.blocks[i/caseChunk][i%caseChunk] }

func (l *caseList) add(e caseEntry) {
	if l.n == len(l.blocks)*caseChunk {
		l.blocks = append(l.blocks, make([]caseEntry, caseChunk))
	}
	*l.at(l.n) = e
	l.n++
}

// addAll appends o's cases (copies: o is left as it is; a case kept whole
// shares its report, which neither list changes).
func (l *caseList) addAll(o *caseList) {
	for i := range o.n {
		l.add(*o.at(i))
	}
}

// bySeq returns the cases in the run's order (ascending sequence numbers).
func (l *caseList) bySeq() []*caseEntry {
	out := make([]*caseEntry, l.n)
	for i := range out {
		out[i] = l.at(i)
	}
	if !slices.IsSortedFunc(out, cmpSeq) {
		slices.SortFunc(out, cmpSeq)
	}
	return out
}

func cmpSeq(a, b *caseEntry) int { return cmp.Compare(a.seq, b.seq) }

// mergeCases adds o's listed cases to c's. Past the cap it keeps the
// first cases of each kind in the run's order, as one collector would
// have, merging the two lists (each put in the run's order) into a new one
// of the size kept, rather than appending and trimming. o is left as it is.
func (c *Collector) mergeCases(o *Collector) {
	pass, bad := c.keptPass+o.keptPass, c.keptBad+o.keptBad
	if pass <= schema.MaxReportCases && bad <= schema.MaxReportCases {
		c.cases.addAll(&o.cases)
		c.keptPass, c.keptBad = pass, bad
		return
	}
	a, b := c.cases.bySeq(), o.cases.bySeq()
	var kept caseList
	c.keptPass, c.keptBad = 0, 0
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var e *caseEntry
		if j == len(b) || i < len(a) && a[i].seq < b[j].seq {
			e, i = a[i], i+1
		} else {
			e, j = b[j], j+1
		}
		n := &c.keptBad
		if schema.Outcome(e.outcome) == schema.Pass {
			n = &c.keptPass
		}
		if *n >= schema.MaxReportCases {
			c.omitted++
			continue
		}
		*n++
		kept.add(*e)
	}
	c.cases = kept
}

// Cases returns every case, worst first, in the order Listed lists them,
// each as a whole report (one block of 360 bytes per case). A report
// lists its cases through Listed instead, which makes none.
func (c *Collector) Cases() []schema.CaseReport {
	l := c.Listed()
	out := make([]schema.CaseReport, l.Len())
	inHalves(len(out) >= parallelCases && runtime.GOMAXPROCS(0) > 1, len(out), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			reportInto(&out[i], l.entry(i), l.places)
		}
	})
	return out
}

// Listed returns the listed cases, worst first: errors, then failures
// (more failed checks first), then passes; ties in source order, then by
// id, then in listing order, so reports never depend on completion order.
// It sorts the cases but makes no report: the listing reads the
// collector's entries as a report's renderers ask for each case (a compact
// entry's few members into their scratch report), rather than 360 bytes
// allocated and filled per listed case that report.json then only reads
// once (docs/performance.md, issue 27, "the report after the results").
// The listing keeps what it reads: cases the collector lists later, or a
// merge that replaces its list, do not change it.
//
// A long list (from parallelCases cases, on two cores or more) is sorted
// in two halves at once, the halves' sorted keys merged: the listing order
// closes every tie, so the order is total and the same as one sort's
// (TestSortCaseKeysHalvesMatchStable).
func (c *Collector) Listed() *Listing {
	// The sort keys are worked out once per case, and the sort moves small
	// keys rather than whole reports; the halves' keys merge into the
	// order, an index per case. Up to copyListFrom cases the listing is
	// that order into the collector's list, whose blocks never move and
	// whose entries never change; from it on, the entries are copied in
	// that order (see copyListFrom).
	n := c.cases.len()
	keys := make([]caseKey, n)
	halves := n >= parallelCases && runtime.GOMAXPROCS(0) > 1
	inHalves(halves, n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := c.cases.at(i)
			if cr := e.full; cr != nil {
				keys[i] = newCaseKey(cr.Outcome, len(cr.Failures), c.order(cr), cr.ID, i)
			} else {
				keys[i] = newCaseKey(schema.Outcome(e.outcome), 0, int(e.src), e.id, i)
			}
		}
		slices.SortFunc(keys[lo:hi], compareCaseKeys)
	})
	mid := n
	if halves {
		mid = n / 2
	}
	l := &Listing{list: c.cases, order: mergeCaseKeys(keys, mid), places: c.places()}
	if n >= copyListFrom {
		l.sorted = make([]caseEntry, n)
		inHalves(halves, n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				l.sorted[i] = *c.cases.at(int(l.order[i]))
			}
		})
	}
	return l
}

// copyListFrom is the number of listed cases from which a listing copies
// the entries in the report's order. Why: read through the order, every
// entry of a large listing is a cache miss, while for a small one the
// copy is fresh memory (page faults) that costs more than the misses it
// saves. The threshold and its measurements: docs/performance.md, "Issue
// 27 (third round): live runs — what was left", item 6. A variable so
// that tests run both listings.
var copyListFrom = 65536

// Listing is a collector's listed cases in a report's order (Listed): a
// schema.CaseLister.
type Listing struct {
	list   caseList    // the collector's list when it was listed
	order  []int32     // indices into list, in the report's order
	sorted []caseEntry // from copyListFrom cases on: the entries in order
	places []srcPlace
}

// Len returns the number of cases listed.
func (l *Listing) Len() int { return len(l.order) }

// entry returns the entry of case i.
func (l *Listing) entry(i int) *caseEntry {
	if l.sorted != nil {
		return &l.sorted[i]
	}
	return l.list.at(int(l.order[i]))
}

// Case returns case i: the report of a case kept whole (which the caller
// must not change), or dst with a compact entry's report written into it.
func (l *Listing) Case(i int, dst *schema.CaseReport) *schema.CaseReport {
	e := l.entry(i)
	if e.full != nil {
		return e.full
	}
	*dst = schema.CaseReport{}
	reportInto(dst, e, l.places)
	return dst
}

// parallelCases is the number of listed cases from which Cases works in
// two halves at once.
const parallelCases = 16384

// caseKey is what a listed case sorts by in a report; i, its index in the
// list, closes every tie. pre is the id's first 8 bytes as a big-endian
// number (zeros past its end), so most comparisons of ids never read the
// ids' bytes, which lie all over the heap: reading them was most of the
// sort's time (a cache miss for each id of each comparison). Ids whose
// first 8 bytes are equal, or that differ only in trailing zero bytes,
// compare whole.
type caseKey struct {
	pre     uint64
	id      string
	nfail   int32
	order   int32
	i       int32
	outcome int8 // a schema.Outcome
}

func newCaseKey(outcome schema.Outcome, nfail, order int, id string, i int) caseKey {
	var pre uint64
	for j := range 8 {
		pre <<= 8
		if j < len(id) {
			pre |= uint64(id[j])
		}
	}
	return caseKey{pre: pre, id: id, nfail: int32(min(nfail, math.MaxInt32)), order: int32(order), i: int32(i), outcome: int8(outcome)}
}

func compareCaseKeys(a, b caseKey) int {
	if a.outcome != b.outcome {
		return -cmp.Compare(a.outcome, b.outcome)
	}
	if a.nfail != b.nfail {
		return -cmp.Compare(a.nfail, b.nfail)
	}
	if a.order != b.order {
		return cmp.Compare(a.order, b.order)
	}
	if a.pre != b.pre {
		return cmp.Compare(a.pre, b.pre)
	}
	if c := strings.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// inHalves calls fn(0, n), or — when halves — fn(0, n/2) in a goroutine
// of its own and fn(n/2, n) at once, and returns when both are done.
func inHalves(halves bool, n int, fn func(lo, hi int)) {
	if !halves {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn(0, n/2)
	}()
	fn(n/2, n)
	wg.Wait()
}

// mergeCaseKeys merges keys[:mid] and keys[mid:], each sorted, and
// returns the indices (caseKey.i) of the keys in the merged order.
func mergeCaseKeys(keys []caseKey, mid int) []int32 {
	out := make([]int32, 0, len(keys))
	a, b := keys[:mid], keys[mid:]
	for len(a) > 0 && len(b) > 0 {
		if compareCaseKeys(b[0], a[0]) < 0 {
			out, b = append(out, b[0].i), b[1:]
		} else {
			out, a = append(out, a[0].i), a[1:]
		}
	}
	for _, k := range a {
		out = append(out, k.i)
	}
	for _, k := range b {
		out = append(out, k.i)
	}
	return out
}

// order is the declaration index of a reported case's source.
func (c *Collector) order(cr *schema.CaseReport) int {
	key := sourceKey{cr.SourceKind, cr.Source}
	if key.kind == "" {
		key = sourceKey{schema.KindTemplate, cr.Template}
	}
	return c.srcOrder[key]
}
