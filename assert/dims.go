package assert

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/internal/nfc"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/ohler55/ojg/jp"
	"golang.org/x/text/unicode/norm"
)

// caseDims is the dimension analysis of one result: what each dimension
// expected and recognised in it, indexed as the schema's dimensions.
// Each slice is empty or has one entry per dimension.
type caseDims struct {
	tallies []metrics.Tally // leaf and items dimensions the case annotates
	counted []bool          // which tallies are set
	cases   []int8          // case dimensions: 0 not annotated, 1 all met, -1 not
	labels  []labelObs      // label dimensions
	values  metrics.TallyBuffer
	// text holds the units' texts, back to back: the tallies' strings
	// point into it (see analysis.tally).
	text []byte
}

func (cd *caseDims) reset() {
	cd.tallies, cd.counted, cd.cases, cd.labels = cd.tallies[:0], cd.counted[:0], cd.cases[:0], cd.labels[:0]
}

// grow returns s with n zero entries, reusing its memory.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

type labelObs struct {
	has      bool
	expected string
	// prediction is the predicted label, "" for none (no label, or a
	// confidence below min_confidence).
	prediction string
	// topk is the order top-k looks at, best first: the ranking by score
	// (with ranking_confidence), else the label at the path (whatever its
	// confidence) and the ranking in document order.
	topk []string
}

// dimIndex caches the dimension of each normalised path (paths repeat
// across responses, so pattern matching runs once per distinct path).
type dimIndex struct {
	sc    *spec.Schema
	index map[*spec.Dimension]int
	// itemKeys holds each items dimension's compared keys, sorted and
	// unique, as its canonical text lists them.
	itemKeys [][]string
	// itemsName holds, per items dimension of the form $..NAME[*], NAME:
	// such items are found during the walk for leaves. slowItems is set
	// when another items dimension needs its pattern evaluated.
	itemsName []string
	slowItems bool
	cache     sync.Map // string → *spec.Dimension (nil stored as noDim)
	// ignoreDescent and ignoreRoot hold the names of ignore patterns of the
	// forms $..name and $.name, checked on the last step only; ignoreSlow
	// the others.
	ignoreDescent map[string]bool
	ignoreRoot    map[string]bool
	ignoreSlow    []spec.Pattern
	// tapeItems marks the items dimensions whose items are the elements
	// of a collection path no ignore pattern reaches into: read on the
	// tape, with their types and scope.
	tapeItems []bool
}

func newDimIndex(sc *spec.Schema) *dimIndex {
	d := &dimIndex{sc: sc, index: map[*spec.Dimension]int{}, ignoreDescent: map[string]bool{}, ignoreRoot: map[string]bool{}}
	d.itemKeys = make([][]string, len(sc.Dimensions))
	d.itemsName = make([]string, len(sc.Dimensions))
	d.tapeItems = make([]bool, len(sc.Dimensions))
	for i, dim := range sc.Dimensions {
		d.index[dim] = i
		if c := dim.Collection; c != nil {
			d.tapeItems[i] = !sc.Ignored(append(slices.Clip(c.Expr), jp.Nth(0)))
		}
		if dim.Kind == schema.KindItems {
			d.itemKeys[i] = slices.Compact(slices.Sorted(slices.Values(dim.Keys)))
		}
	}
	for _, p := range sc.Ignore {
		x := p.Expr
		if len(x) == 3 {
			if _, ok := x[0].(jp.Root); ok {
				if c, ok := x[2].(jp.Child); ok {
					if _, ok := x[1].(jp.Descent); ok {
						d.ignoreDescent[string(c)] = true
						continue
					}
				}
			}
		}
		if len(x) == 2 {
			if _, ok := x[0].(jp.Root); ok {
				if c, ok := x[1].(jp.Child); ok {
					d.ignoreRoot[string(c)] = true
					continue
				}
			}
		}
		d.ignoreSlow = append(d.ignoreSlow, p)
	}
	for i, dim := range sc.Dimensions {
		if dim.Kind != schema.KindItems || dim.Items == nil {
			continue
		}
		if name, ok := descentItems(dim.Items.Expr); ok && len(d.ignoreSlow) == 0 {
			d.itemsName[i] = name
		} else {
			d.slowItems = true
		}
	}
	return d
}

var noDim = &spec.Dimension{}

func (d *dimIndex) of(key string, path jp.Expr) *spec.Dimension {
	if v, ok := d.cache.Load(key); ok {
		if v == noDim {
			return nil
		}
		return v.(*spec.Dimension)
	}
	dim := d.sc.DimensionOf(path)
	if dim == nil {
		d.cache.Store(key, noDim)
	} else {
		d.cache.Store(key, dim)
	}
	return dim
}

// ignored reports whether the path matches an ignore pattern. Flatten
// asks it at every step down, so matching the whole path (not a prefix) is
// enough: an ignored ancestor was never descended into.
func (d *dimIndex) ignored(path jp.Expr) bool {
	if c, ok := path[len(path)-1].(jp.Child); ok {
		if d.ignoreDescent[string(c)] || len(path) == 2 && d.ignoreRoot[string(c)] {
			return true
		}
	}
	for i := range d.ignoreSlow {
		if jsonpath.Match(d.ignoreSlow[i].Expr, path) {
			return true
		}
	}
	return false
}

// analysis is the scratch memory of one dimension analysis, pooled with
// the walker that does its walk.
type analysis struct {
	cd     *caseDims
	arena  []byte         // canonical texts of unit values, back to back
	units  []unit         // every unit found, in arena order
	wanted []bool         // dimensions the expectations annotate
	sorted []metrics.Unit // the units by dimension (tally)
	memos  []valueMemo    // the last expected value of each expectation index
	// paths and met are the case's expectations' compiled paths and
	// outcomes, noted by EvaluateParsed.
	paths []*compiled
	met   []bool
	// itemMemos are the expected items' memos, by position.
	itemMemos []itemMemo
	counts    []int
	items     []expectedItem
	// colls are the case's collection expectations; keys the keys their
	// items are compared on; done the dimensions they recognised;
	// outOfScope the response items each dimension left out.
	spare      []byte // the other arena, for normalise
	typed      []bool // dimensions with a type key
	colls      []collExpect
	keys       []string
	done       []bool
	outOfScope []int
}

// unit is a metrics.Unit whose value text is arena[start:typeAt] and
// type text arena[typeAt:end].
type unit struct {
	dim        int32
	recognised bool
	// stable: the unit's texts are known to be NFC-stable (nfc.Stable),
	// as those of a memo are.
	stable             bool
	start, typeAt, end int32
	key                string
}

type expectedItem struct {
	dim  int
	path string
	vals []keyValue
}

func (a *analysis) add(dim int, recognised bool, key string, start int) {
	end := int32(len(a.arena))
	a.units = append(a.units, unit{dim: int32(dim), recognised: recognised, start: int32(start), typeAt: end, end: end, key: key})
}

// addTyped adds an items unit whose type text follows its value at typeAt.
func (a *analysis) addTyped(dim int, recognised bool, start, typeAt int) {
	a.units = append(a.units, unit{dim: int32(dim), recognised: recognised, start: int32(start), typeAt: int32(typeAt), end: int32(len(a.arena))})
}

// analyse computes the dimension units of one evaluated result with
// walker w, whose analysis holds each expectation's compiled path (nil
// when it does not compile) and whether it was met (paths, met).
func (e *Evaluator) analyse(r *schema.Result, rs *response, w *walker) *Evaluation {
	sc := e.suite.Schema
	n := len(sc.Dimensions)
	ev := newEvaluation()
	cd := &ev.dims
	a := &w.a
	a.reset(cd, n)
	// Expected side, from the case's expectations.
	for i, x := range r.Expect {
		c := a.paths[i]
		if c == nil || c.multi || c.dim < 0 {
			continue // dimension metrics count concrete paths only
		}
		a.expect(sc.Dimensions[c.dim].Kind, c, i, x.Value, a.met[i], n)
	}
	a.expectedItems(e.dims)
	w.collectionItems(rs)
	if len(a.units) > 0 || len(a.colls) > 0 {
		w.recognise(rs)
		a.tally(n)
	}
	for di, dim := range sc.Dimensions {
		if dim.Kind == schema.KindLabel && len(cd.labels) > 0 && cd.labels[di].has {
			cd.labels[di].prediction, cd.labels[di].topk = predicted(dim, rs)
		}
	}
	// A case counts towards a dimension only when its template annotates
	// that dimension (recognitions in a dimension nobody expected anything
	// of are not evidence of error): units are only gathered for dimensions
	// the expectations opened above.
	return ev
}

// reset prepares the analysis of one case with n dimensions into cd.
func (a *analysis) reset(cd *caseDims, n int) {
	a.cd = cd
	a.arena, a.units, a.items, a.colls = a.arena[:0], a.units[:0], a.items[:0], a.colls[:0]
	a.wanted = grow(a.wanted, n)
	a.done = grow(a.done, n)
	a.outOfScope = grow(a.outOfScope, n)
}

// expect records one concrete expectation, the case's i-th, of a
// dimension of the given kind: value is its expected value, met whether
// the response met it.
func (a *analysis) expect(kind string, c *compiled, i int, value any, met bool, n int) {
	cd := a.cd
	switch kind {
	case schema.KindLeaf:
		a.expectLeaf(c, i, value)
		a.wanted[c.dim] = true
	case schema.KindCase:
		if len(cd.cases) == 0 {
			cd.cases = grow(cd.cases, n)
		}
		if met && cd.cases[c.dim] != -1 {
			cd.cases[c.dim] = 1
		} else {
			cd.cases[c.dim] = -1
		}
	case schema.KindLabel:
		if s, ok := labelOf(value); ok || value == "" {
			if len(cd.labels) == 0 {
				cd.labels = grow(cd.labels, n)
			}
			cd.labels[c.dim] = labelObs{has: true, expected: s}
		}
	case schema.KindItems:
		if c.listsItems(value) {
			a.expectCollection(c.dim, value)
		} else if c.item {
			a.expectItem(c, value)
		}
	}
}

// expectLeaf adds the expected unit of a leaf expectation, the case's
// i-th. The canonical text of the value the i-th expectation had last
// (of this path, when a string or a list of strings) is kept: cases of
// one template expect the same values, which are then neither written
// out nor checked for NFC again.
func (a *analysis) expectLeaf(c *compiled, i int, value any) {
	if i >= len(a.memos) {
		a.memos = append(a.memos, make([]valueMemo, i+1-len(a.memos))...)
	}
	m := &a.memos[i]
	start := len(a.arena)
	if m.c == c && m.holds(value) {
		a.arena = append(a.arena, m.canon...)
		a.add(c.dim, false, c.canon, start)
		a.units[len(a.units)-1].stable = m.stable
		return
	}
	a.arena = schema.AppendCanonicalJSON(a.arena, value)
	a.add(c.dim, false, c.canon, start)
	if m.set(value) {
		m.c = c
		m.canon = append(m.canon[:0], a.arena[start:]...)
		m.stable = nfc.Stable(m.canon)
		a.units[len(a.units)-1].stable = m.stable
	} else {
		m.c = nil
	}
}

// valueMemo is an expected value (a string or a list of strings, kept as
// their bytes) and its canonical text.
type valueMemo struct {
	c *compiled // nil: nothing kept
	// text holds the string, or the list's strings back to back, ends[j]
	// the end of string j in it; list tells the two apart.
	text   []byte
	ends   []int
	list   bool
	canon  []byte
	stable bool // canon is NFC-stable
}

// maxMemo bounds the expected values memos keep; maxLeafMemo the JSON
// texts of leaves (a walker's trie may hold 65,536 paths).
const maxMemo, maxLeafMemo = 256, 96

// holds reports whether v is the value m keeps.
func (m *valueMemo) holds(v any) bool {
	switch t := v.(type) {
	case string:
		return !m.list && string(m.text) == t
	case []any:
		if !m.list || len(t) != len(m.ends) {
			return false
		}
		from := 0
		for j, e := range t {
			s, ok := e.(string)
			if !ok || string(m.text[from:m.ends[j]]) != s {
				return false
			}
			from = m.ends[j]
		}
		return true
	}
	return false
}

// set keeps v in m when it is a string or a list of strings, not too
// long, and reports whether it did (the caller sets canon).
func (m *valueMemo) set(v any) bool {
	m.text, m.ends = m.text[:0], m.ends[:0]
	switch t := v.(type) {
	case string:
		m.list = false
		m.text = append(m.text, t...)
	case []any:
		m.list = true
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return false
			}
			m.text = append(m.text, s...)
			m.ends = append(m.ends, len(m.text))
		}
	default:
		return false
	}
	return len(m.text) <= maxMemo
}

// expectItem records the expectation of one key of an expected item.
func (a *analysis) expectItem(c *compiled, value any) {
	j := slices.IndexFunc(a.items, func(it expectedItem) bool { return it.dim == c.dim && it.path == c.itemPath })
	if j < 0 {
		j = len(a.items)
		if j < cap(a.items) {
			// reuse the pooled entry's value list
			a.items = a.items[:j+1]
			a.items[j].dim, a.items[j].path, a.items[j].vals = c.dim, c.itemPath, a.items[j].vals[:0]
		} else {
			a.items = append(a.items, expectedItem{dim: c.dim, path: c.itemPath})
		}
	}
	if c.itemKey != "" {
		a.items[j].vals = append(a.items[j].vals, keyValue{c.itemKey, value})
	}
	a.wanted[c.dim] = true
}

// expectedItems adds the expected items as units. The j-th item keeps a
// memo (itemMemo) of its expectations and its texts, as leaves do.
func (a *analysis) expectedItems(idx *dimIndex) {
	if len(a.itemMemos) < len(a.items) {
		a.itemMemos = append(a.itemMemos, make([]itemMemo, len(a.items)-len(a.itemMemos))...)
	}
	for j, it := range a.items {
		start := len(a.arena)
		m := &a.itemMemos[j]
		if m.holds(&it) {
			a.arena = append(a.arena, m.canon...)
			a.addTyped(it.dim, false, start, start+m.typeAt)
			a.units[len(a.units)-1].stable = m.stable
			continue
		}
		get := func(k string) any {
			// The last expectation of a key wins, as in a map.
			for i := len(it.vals) - 1; i >= 0; i-- {
				if it.vals[i].key == k {
					return it.vals[i].val
				}
			}
			return nil
		}
		a.arena = appendItem(a.arena, idx.itemKeys[it.dim], get)
		typeAt := len(a.arena)
		if tk := idx.sc.Dimensions[it.dim].TypeKey; tk != "" {
			if t := get(tk); !isEmpty(t) {
				a.arena = schema.AppendCanonicalJSON(a.arena, t)
			}
		}
		a.addTyped(it.dim, false, start, typeAt)
		if m.set(&it) {
			m.canon, m.typeAt = append(m.canon[:0], a.arena[start:]...), typeAt-start
			m.stable = nfc.Stable(m.canon)
			a.units[len(a.units)-1].stable = m.stable
		}
	}
}

// itemMemo is an expected item's dimension, path and expectations (keys,
// and values as valueMemo keeps them) and its canonical texts: value
// text, then type text from typeAt.
type itemMemo struct {
	ok     bool
	dim    int
	path   string
	keys   []string
	vals   []valueMemo
	canon  []byte
	typeAt int
	stable bool
}

// holds reports whether it is the item m keeps.
func (m *itemMemo) holds(it *expectedItem) bool {
	if !m.ok || m.dim != it.dim || m.path != it.path || len(m.keys) != len(it.vals) {
		return false
	}
	for i, kv := range it.vals {
		if m.keys[i] != kv.key || !m.vals[i].holds(kv.val) {
			return false
		}
	}
	return true
}

// set keeps it in m when every value is one valueMemo keeps, and reports
// whether it did (the caller sets the texts).
func (m *itemMemo) set(it *expectedItem) bool {
	m.ok, m.dim, m.path, m.keys = false, it.dim, it.path, m.keys[:0]
	if len(it.vals) > maxItemMemos {
		return false
	}
	for len(m.vals) < len(it.vals) {
		m.vals = append(m.vals, valueMemo{})
	}
	for i, kv := range it.vals {
		m.keys = append(m.keys, kv.key)
		if !m.vals[i].set(kv.val) {
			return false
		}
	}
	m.ok = true
	return true
}

// recognise adds the recognised side, from the response: leaves and
// $..NAME[*] items in one walk, other items patterns on the built
// response.
func (w *walker) recognise(rs *response) {
	a, idx := &w.a, w.idx
	walk := false
	for di, dim := range idx.sc.Dimensions {
		walk = walk || a.wanted[di] && (dim.Kind == schema.KindLeaf || idx.itemsName[di] != "")
	}
	if walk {
		w.walk(rs.doc)
	}
	if !idx.slowItems {
		return
	}
	for di, dim := range idx.sc.Dimensions {
		if dim.Kind != schema.KindItems || dim.Items == nil || idx.itemsName[di] != "" || !a.wanted[di] || a.done[di] {
			continue
		}
		if idx.tapeItems[di] {
			// on the tape, with types and scope
			a.keys = append(a.keys[:0], idx.itemKeys[di]...)
			w.collectionResponse(di, dim, rs)
			continue
		}
		w.locateItems(di, dim, rs)
	}
}

// locateItems adds the items of dimension di its pattern selects in the
// built response.
func (w *walker) locateItems(di int, dim *spec.Dimension, rs *response) {
	a, keys := &w.a, w.idx.itemKeys[di]
	data := rs.value()
	for _, loc := range dim.Items.Expr.Locate(data, 0) {
		if w.idx.sc.Ignored(loc) { // the item or an ancestor
			continue
		}
		v := loc.First(data)
		if _, ok := v.(map[string]any); ok || len(keys) == 0 && !isEmpty(v) {
			start := len(a.arena)
			a.arena, _ = appendExpectedItem(a.arena, keys, "", v)
			a.add(di, true, "", start)
		}
	}
}

// tally turns the units found into one tally per dimension.
func (a *analysis) tally(n int) {
	if !a.unitsStable() && !nfc.Stable(a.arena) && !norm.NFC.IsNormal(a.arena) {
		a.normalise()
	}
	cd := a.cd
	// The units' texts are the arena's bytes, not a copy of them: the
	// evaluation takes the arena over, and gives the walker the buffer
	// it held, whose strings belonged to a released evaluation. The bytes
	// are not written again until this evaluation is released and
	// reused; whatever keeps a text beyond that copies it (metrics.DimAcc
	// does; Evaluation.Units' views are valid until the Add returns).
	cd.text, a.arena = a.arena, cd.text[:0]
	text := unsafe.String(unsafe.SliceData(cd.text), len(cd.text))
	cd.tallies = grow(cd.tallies, n)
	cd.counted = grow(cd.counted, n)
	// The units grouped by dimension, each dimension's expected units then
	// its recognised ones, each group in the order found (a counting
	// sort): group 2di+1 holds dimension di's recognised units.
	at := grow(a.counts, 2*n)
	for _, u := range a.units {
		at[2*int(u.dim)+btoi(u.recognised)]++
	}
	sum := 0
	for k, c := range at {
		at[k], sum = sum, sum+c
	}
	if cap(a.sorted) < len(a.units) {
		a.sorted = make([]metrics.Unit, len(a.units))
	}
	sorted := a.sorted[:len(a.units)]
	for _, u := range a.units {
		mu := metrics.Unit{Key: u.key, Value: text[u.start:u.typeAt]}
		if u.typeAt < u.end {
			mu.Key = text[u.typeAt:u.end]
		}
		k := 2*int(u.dim) + btoi(u.recognised)
		sorted[at[k]] = mu
		at[k]++
	}
	a.counts = at // at[k] is now where group k ends
	// One buffer holds every tally's values: a dimension has no more
	// distinct values than units.
	if cap(cd.values) < 2*len(a.units) {
		cd.values = metrics.NewTallyBuffer(2 * len(a.units)) // values and types
	}
	buf := cd.values[:0]
	for di := range n {
		if !a.wanted[di] {
			continue
		}
		start := 0
		if di > 0 {
			start = at[2*di-1]
		}
		mid, end := at[2*di], at[2*di+1]
		if a.typed[di] {
			cd.tallies[di] = buf.TypedTally(end - start)
		} else {
			cd.tallies[di] = buf.Tally(end - start)
		}
		cd.tallies[di].Case(sorted[start:mid], sorted[mid:end])
		cd.tallies[di].OutOfScope = a.outOfScope[di]
		cd.counted[di] = true
	}
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unitsStable reports that every unit's texts are NFC-stable (see
// nfc.Stable), checking only those not known to be. The arena holds
// nothing but the units' texts, so this is nfc.Stable(a.arena), and a
// false answer leaves the question to it.
func (a *analysis) unitsStable() bool {
	for i := range a.units {
		u := &a.units[i]
		if !u.stable && !nfc.Stable(a.arena[u.start:u.end]) {
			return false
		}
	}
	return true
}

// normalise puts every unit's texts in Unicode NFC (labels, values and
// types compare in NFC everywhere), rebuilding the arena.
func (a *analysis) normalise() {
	old := a.arena
	b := a.spare[:0]
	for i := range a.units {
		u := &a.units[i]
		start := len(b)
		b = norm.NFC.Append(b, old[u.start:u.typeAt]...)
		typeAt := len(b)
		b = norm.NFC.Append(b, old[u.typeAt:u.end]...)
		u.start, u.typeAt, u.end = int32(start), int32(typeAt), int32(len(b))
	}
	a.arena, a.spare = b, old
}

type keyValue struct {
	key string
	val any
}

// appendItem appends the canonical text of an item on its compared keys
// (sorted): an absent key and an empty value are both null. (An item on
// the tape: appendDocItem.)
func appendItem(b []byte, keys []string, get func(string) any) []byte {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = schema.AppendCanonicalString(b, k)
		b = append(b, ':')
		v := get(k)
		if isEmpty(v) {
			v = nil
		}
		b = schema.AppendCanonicalJSON(b, v)
	}
	return append(b, '}')
}

// first returns the value a dimension's pattern selects first.
func first(p *spec.Pattern, rs *response) (any, bool) {
	if modeOf(p.Expr) == modeSimple {
		r, ok := lookup(rs.doc, p.Expr)
		if !ok {
			return nil, false
		}
		return rs.doc.Value(r), true
	}
	return firstFound(p.Expr, rs.value())
}

// labelOf returns a label's text: a string in Unicode NFC (labels compare
// in NFC everywhere: café and cafe\u0301 are one label), or a number's
// canonical JSON text (integer labels: 3, not "3.0"). The empty string is
// no label: a prediction of "" is no prediction (a miss for the expected
// label, no false positive); an expectation of "" still counts, as a
// label no prediction can match.
func labelOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return nfc.String(t), t != ""
	case nil, bool, []any, map[string]any:
		return "", false
	}
	if _, ok := number(v); ok {
		return schema.CanonicalJSON(v), true
	}
	return "", false
}

// predicted returns the label dimension's prediction ("" for none: no
// label at the path, or a confidence below min_confidence) and the labels
// top-k looks at, best first. min_confidence decides only the prediction:
// top-k follows the ranking whatever the prediction, as scikit-learn's
// top_k_accuracy_score reads only the scores. With ranking_confidence the
// top-k order is the ranking ordered by score (see rankByScore), or the
// label alone without a ranking; else the label followed by the ranking in
// document order.
func predicted(dim *spec.Dimension, rs *response) (prediction string, topk []string) {
	label, ok := first(dim.Label, rs)
	ls, isLabel := labelOf(label)
	isLabel = ok && isLabel
	if isLabel {
		prediction = ls
		topk = []string{ls}
	}
	if isLabel && dim.Confidence != nil && dim.MinConfidence > 0 {
		if c, ok := first(dim.Confidence, rs); ok {
			if f, ok := number(c); ok {
				if v, _ := f.Float64(); v < dim.MinConfidence {
					prediction = ""
				}
			}
		}
	}
	if dim.Ranking == nil {
		return prediction, topk
	}
	labels := selectAll(dim.Ranking, rs)
	if dim.RankingConfidence != nil {
		if byScore := rankByScore(labels, selectAll(dim.RankingConfidence, rs)); len(byScore) > 0 {
			topk = byScore
		}
		return prediction, topk
	}
	for _, v := range labels {
		if s, ok := labelOf(v); ok && (!isLabel || s != ls) {
			topk = append(topk, s)
		}
	}
	return prediction, topk
}

// compareLabels orders labels as scikit-learn's sorted label set does:
// numbers (integer labels) by value, other labels by their text.
func compareLabels(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil && x != y {
		if x < y {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// selectAll returns the values a pattern selects, in document and key
// order.
func selectAll(p *spec.Pattern, rs *response) []any {
	if modeOf(p.Expr) != modeTree {
		var out []any
		for _, r := range locate(rs.doc, p.Expr, nil) {
			out = append(out, rs.doc.Value(r))
		}
		return out
	}
	// in document and key order, as matches gives (ojg's Get walks
	// objects in map order)
	out, _ := matches(p.Expr, rs.value(), true)
	return out
}

// rankByScore orders a ranking's labels by their scores (scores[i] is the
// score of labels[i]), highest first, as scikit-learn's
// top_k_accuracy_score does: ties go to the label that sorts last (the
// higher index in the sorted label set). A label without a numeric score
// ranks after every scored one, in document order; labels repeat only at
// their first position.
func rankByScore(labels, scores []any) []string {
	type scored struct {
		label string
		score float64
		has   bool
	}
	var ls []scored
	for i, v := range labels {
		s, ok := labelOf(v)
		if !ok || slices.ContainsFunc(ls, func(x scored) bool { return x.label == s }) {
			continue
		}
		x := scored{label: s}
		if i < len(scores) {
			if f, ok := number(scores[i]); ok {
				x.score, _ = f.Float64()
				x.has = true
			}
		}
		ls = append(ls, x)
	}
	slices.SortStableFunc(ls, func(a, b scored) int {
		switch {
		case a.has != b.has:
			if a.has {
				return -1
			}
			return 1
		case !a.has:
			return 0
		case a.score != b.score:
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return compareLabels(b.label, a.label)
	})
	out := make([]string, len(ls))
	for i, x := range ls {
		out[i] = x.label
	}
	return out
}

// descentItems recognises the common items pattern $..NAME[*] and returns
// NAME.
func descentItems(x jp.Expr) (string, bool) {
	var steps jp.Expr
	for _, f := range x {
		if _, ok := f.(jp.Bracket); !ok {
			steps = append(steps, f)
		}
	}
	if len(steps) != 4 {
		return "", false
	}
	_, r := steps[0].(jp.Root)
	_, d := steps[1].(jp.Descent)
	c, n := steps[2].(jp.Child)
	_, w := steps[3].(jp.Wildcard)
	return string(c), r && d && n && w
}

// pathNode is one concrete response path in a walker's trie, with what
// dimension analysis needs to know of it, worked out once.
type pathNode struct {
	path    jp.Expr
	key     string // canonical text of path
	dim     int    // index of its leaf dimension, or -1
	items   []int  // items dimensions whose $..NAME[*] names this key
	ignored bool
	kids    []kid // few: searched in order
	kidMap  map[string]*pathNode
	elems   []*pathNode
	// memo, on a leaf dimension's path, is the JSON text of the value
	// seen there last (when short), and what the walk made of it;
	// itemMemos the same of the first items under a $..NAME[*] key.
	memo      leafMemo
	itemMemos []leafMemo
}

// leafMemo is a leaf's (or an item's) JSON text as the response spells
// it, whether it is empty (no item), and its canonical text.
type leafMemo struct {
	set, empty, stable bool
	raw, canon         []byte
}

type kid struct {
	name string
	node *pathNode
}

// walker flattens parsed responses (as Flatten does) along a trie of the
// paths seen so far, so the leaves of a million similar responses cost a
// few comparisons per step, not a path built and matched per leaf. Each
// walker serves one goroutine at a time (they are pooled), with the
// scratch memory of the analysis it walks for.
type walker struct {
	idx   *dimIndex
	root  *pathNode
	nodes int
	a     analysis
}

// maxTrie bounds a walker's trie; responses with ever new paths (huge
// arrays, generated keys) start it afresh.
const maxTrie = 1 << 16

func newWalker(idx *dimIndex) *walker {
	w := &walker{idx: idx}
	w.a.typed = make([]bool, len(idx.sc.Dimensions))
	for i, dim := range idx.sc.Dimensions {
		w.a.typed[i] = dim.Kind == schema.KindItems && dim.TypeKey != ""
	}
	w.reset()
	return w
}

func (w *walker) reset() {
	w.root = &pathNode{path: jp.Expr{jp.Root('$')}, key: "$", dim: -1}
	w.nodes = 1
}

func (w *walker) node(parent *pathNode, f jp.Frag) *pathNode {
	p := make(jp.Expr, len(parent.path)+1)
	copy(p, parent.path)
	p[len(parent.path)] = f
	n := &pathNode{path: p, key: p.String(), dim: -1, ignored: w.idx.ignored(p)}
	if dim := w.idx.of(n.key, p); dim != nil && dim.Kind == schema.KindLeaf {
		n.dim = w.idx.index[dim]
	}
	if c, ok := f.(jp.Child); ok {
		for i, name := range w.idx.itemsName {
			if name != "" && name == string(c) {
				n.items = append(n.items, i)
			}
		}
	}
	w.nodes++
	return n
}

const maxKids = 16

// child returns the node of parent's member whose key is k, the member at
// position i of its object: responses of one shape list their members in
// the same order, so the kid at i is tried first.
func (w *walker) child(parent *pathNode, doc *jsondoc.Doc, k jsondoc.Ref, i int) *pathNode {
	var key string
	if doc.Plain(k) {
		b := doc.StrBytes(k)
		if uint(i) < uint(len(parent.kids)) && parent.kids[i].name == string(b) {
			return parent.kids[i].node
		}
		for _, c := range parent.kids {
			if c.name == string(b) {
				return c.node
			}
		}
		if n := parent.kidMap[string(b)]; n != nil {
			return n
		}
		key = string(b)
	} else {
		key = doc.Str(k)
		for _, c := range parent.kids {
			if c.name == key {
				return c.node
			}
		}
		if n := parent.kidMap[key]; n != nil {
			return n
		}
	}
	n := w.node(parent, jp.Child(key))
	if len(parent.kids) < maxKids {
		parent.kids = append(parent.kids, kid{key, n})
	} else {
		if parent.kidMap == nil {
			parent.kidMap = map[string]*pathNode{}
		}
		parent.kidMap[key] = n
	}
	return n
}

func (w *walker) elem(parent *pathNode, i int) *pathNode {
	for len(parent.elems) <= i {
		parent.elems = append(parent.elems, w.node(parent, jp.Nth(len(parent.elems))))
	}
	return parent.elems[i]
}

// walk visits the response for the analysis: every leaf (scalars and
// arrays of scalars that are not empty, outside ignored paths) of a wanted
// leaf dimension becomes a recognised unit, and so does every object of an
// array held under the key of a wanted $..NAME[*] items dimension.
func (w *walker) walk(doc *jsondoc.Doc) {
	if w.nodes > maxTrie {
		w.reset()
	}
	w.visit(doc, w.root, doc.Root())
}

// items adds the objects in v, held under the key of a wanted $..NAME[*]
// items dimension, as recognised items: the elements of an array, the
// member values of an object ([*] selects both).
func (w *walker) items(doc *jsondoc.Doc, p *pathNode, v jsondoc.Ref) {
	a := &w.a
	for _, di := range p.items {
		if !a.wanted[di] {
			continue
		}
		keys := w.idx.itemKeys[di]
		j := 0
		add := func(it jsondoc.Ref) {
			var m *leafMemo
			if len(p.items) == 1 && j < maxItemMemos {
				// the j-th item's memo (see leaf)
				if j == len(p.itemMemos) {
					p.itemMemos = append(p.itemMemos, leafMemo{})
				}
				m = &p.itemMemos[j]
			}
			j++
			w.item(doc, di, keys, m, it)
		}
		doc.Elems(v, func(_ int, it jsondoc.Ref) bool { add(it); return true })
		doc.Each(v, func(k, it jsondoc.Ref) bool {
			if !w.child(p, doc, k, -1).ignored { // a member may be ignored by name
				add(it)
			}
			return true
		})
	}
}

// maxItemMemos is how many items under one key keep a memo.
const maxItemMemos = 8

// item adds it as a recognised item of dimension di unless it is no item
// (empty, or no object where the dimension has keys). m, when not nil, is
// the memo of the item seen at its place last: used as leaf uses a leaf's.
func (w *walker) item(doc *jsondoc.Doc, di int, keys []string, m *leafMemo, it jsondoc.Ref) {
	a := &w.a
	raw := doc.Raw(it)
	start := len(a.arena)
	if m != nil && m.set && string(raw) == string(m.raw) {
		if !m.empty {
			a.arena = append(a.arena, m.canon...)
			a.add(di, true, "", start)
			a.units[len(a.units)-1].stable = m.stable
		}
		return
	}
	none := doc.Kind(it) != jsondoc.Object && (len(keys) > 0 || doc.Empty(it))
	if !none {
		a.arena, _ = appendResponseItem(a.arena, keys, "", doc, it)
		a.add(di, true, "", start)
	}
	if m == nil {
		return
	}
	if m.set = len(raw) <= maxMemo; m.set {
		m.empty, m.raw, m.canon = none, append(m.raw[:0], raw...), append(m.canon[:0], a.arena[start:]...)
		m.stable = nfc.Stable(m.canon)
		if !none {
			a.units[len(a.units)-1].stable = m.stable
		}
	}
}

func (w *walker) visit(doc *jsondoc.Doc, p *pathNode, v jsondoc.Ref) {
	if p.ignored {
		return
	}
	a := &w.a
	switch doc.Kind(v) {
	case jsondoc.Object:
		if len(p.items) > 0 {
			w.items(doc, p, v)
		}
		if doc.RepeatsKeys(v) {
			// Each gives a repeated key at its last occurrence only.
			i := 0
			doc.Each(v, func(k, e jsondoc.Ref) bool {
				w.visit(doc, w.child(p, doc, k, i), e)
				i++
				return true
			})
			return
		}
		// The members on the tape, without a callback: key k, value k+1.
		k := v + 1
		for i := range doc.Len(v) {
			e := k + 1
			w.visit(doc, w.child(p, doc, k, i), e)
			k = doc.Next(e)
		}
		return
	case jsondoc.Array:
		if len(p.items) > 0 {
			w.items(doc, p, v)
		}
		if doc.HasContainer(v) {
			// An empty array of containers holds no leaves, but may hold
			// items (an object whose keys are all empty is still one).
			e := v + 1
			for i := range doc.Len(v) {
				w.visit(doc, w.elem(p, i), e)
				e = doc.Next(e)
			}
			return
		}
	}
	// A leaf: a scalar, or an array of scalars. Only a wanted leaf
	// dimension's path asks whether it is empty.
	if p.dim >= 0 && a.wanted[p.dim] {
		w.leaf(doc, p, v)
	}
}

// leaf adds the leaf v at p as a recognised unit, unless it is empty.
// Values at a path repeat from one response to the next (names, labels,
// codes): when v's JSON text is the one seen at p last, the text kept
// then is used, without asking again whether it is empty, writing it out
// or checking it for NFC.
func (w *walker) leaf(doc *jsondoc.Doc, p *pathNode, v jsondoc.Ref) {
	a, m := &w.a, &p.memo
	raw := doc.Raw(v)
	start := len(a.arena)
	if m.set && string(raw) == string(m.raw) {
		if !m.empty {
			a.arena = append(a.arena, m.canon...)
			a.add(p.dim, true, p.key, start)
			a.units[len(a.units)-1].stable = m.stable
		}
		return
	}
	empty := doc.Empty(v)
	if !empty {
		a.arena = doc.AppendCanonical(a.arena, v)
		a.add(p.dim, true, p.key, start)
	}
	m.set = len(raw) <= maxLeafMemo
	if !m.set {
		return
	}
	m.empty, m.raw, m.canon = empty, append(m.raw[:0], raw...), append(m.canon[:0], a.arena[start:]...)
	m.stable = nfc.Stable(m.canon)
	if !empty {
		a.units[len(a.units)-1].stable = m.stable
	}
}
