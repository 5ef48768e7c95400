package assert

import (
	"slices"
	"sync"

	"github.com/nlutest/nlutest/assert/jsondoc"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/ohler55/ojg/jp"
)

// caseDims is the dimension analysis of one result: what each dimension
// expected and recognised in it, indexed as the schema's dimensions.
type caseDims struct {
	units  [][2][]metrics.Unit // leaf and items: expected, recognised
	cases  []int8              // case dimensions: 0 not annotated, 1 all met, -1 not
	labels []labelObs          // label dimensions
}

type labelObs struct {
	has      bool
	expected string
	ranked   []string
}

// dimIndex caches the dimension of each normalised path (paths repeat
// across responses, so pattern matching runs once per distinct path).
type dimIndex struct {
	sc    *spec.Schema
	index map[*spec.Dimension]int
	// itemKeys holds each items dimension's compared keys, sorted and
	// unique, as its canonical text lists them.
	itemKeys [][]string
	// hasLeaf is set when some dimension is of kind leaf.
	hasLeaf bool
	cache   sync.Map // string → *spec.Dimension (nil stored as noDim)
	// ignoreFast holds ignore patterns of the forms $..name and $.name,
	// checked on the last step only; ignoreSlow the others.
	ignoreDescent map[string]bool
	ignoreRoot    map[string]bool
	ignoreSlow    []spec.Pattern
}

func newDimIndex(sc *spec.Schema) *dimIndex {
	d := &dimIndex{sc: sc, index: map[*spec.Dimension]int{}, ignoreDescent: map[string]bool{}, ignoreRoot: map[string]bool{}}
	d.itemKeys = make([][]string, len(sc.Dimensions))
	for i, dim := range sc.Dimensions {
		d.index[dim] = i
		d.hasLeaf = d.hasLeaf || dim.Kind == schema.KindLeaf
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
		if spec.MatchPath(d.ignoreSlow[i].Expr, path) {
			return true
		}
	}
	return false
}

// analyse computes the dimension units of one evaluated result. met[i]
// tells whether r.Expect[i] was met.
func (e *Evaluator) analyse(r *schema.Result, rs *response, met []bool) *caseDims {
	sc := e.suite.Schema
	idx := e.dims
	n := len(sc.Dimensions)
	cd := &caseDims{}
	var buf []byte
	addUnit := func(dim, which int, u metrics.Unit) {
		if cd.units == nil {
			cd.units = make([][2][]metrics.Unit, n)
		}
		cd.units[dim][which] = append(cd.units[dim][which], u)
	}
	wanted := func(dim int) bool { return cd.units != nil && len(cd.units[dim][0]) > 0 }
	// Expected side, from the case's expectations.
	type item struct {
		dim  int
		path string
		vals []keyValue
	}
	var items []item
	for i, x := range r.Expect {
		c, err := e.path(r.Template, i, x.Path)
		if err != nil || c.multi || c.dim < 0 {
			continue // dimension metrics count concrete paths only
		}
		switch sc.Dimensions[c.dim].Kind {
		case schema.KindLeaf:
			buf = schema.AppendCanonicalJSON(buf[:0], x.Value)
			addUnit(c.dim, 0, metrics.Unit{Key: c.canon, Value: string(buf)})
		case schema.KindCase:
			if cd.cases == nil {
				cd.cases = make([]int8, n)
			}
			if met[i] && cd.cases[c.dim] != -1 {
				cd.cases[c.dim] = 1
			} else {
				cd.cases[c.dim] = -1
			}
		case schema.KindLabel:
			if s, ok := x.Value.(string); ok {
				if cd.labels == nil {
					cd.labels = make([]labelObs, n)
				}
				cd.labels[c.dim] = labelObs{has: true, expected: s}
			}
		case schema.KindItems:
			if !c.item {
				continue
			}
			j := slices.IndexFunc(items, func(it item) bool { return it.dim == c.dim && it.path == c.itemPath })
			if j < 0 {
				items = append(items, item{dim: c.dim, path: c.itemPath})
				j = len(items) - 1
			}
			if c.itemKey != "" {
				items[j].vals = append(items[j].vals, keyValue{c.itemKey, x.Value})
			}
		}
	}
	for _, it := range items {
		buf = appendItem(buf[:0], idx.itemKeys[it.dim], func(k string) any {
			// The last expectation of a key wins, as in a map.
			for i := len(it.vals) - 1; i >= 0; i-- {
				if it.vals[i].key == k {
					return it.vals[i].val
				}
			}
			return nil
		})
		addUnit(it.dim, 0, metrics.Unit{Value: string(buf)})
	}
	if cd.units == nil && cd.labels == nil {
		return cd
	}
	// Recognised side, from the response.
	doc := rs.doc
	if idx.hasLeaf && cd.units != nil {
		w := e.walkers.Get().(*walker)
		w.walk(doc, func(p *pathNode, v jsondoc.Ref) {
			if p.dim >= 0 && wanted(p.dim) {
				buf = doc.AppendCanonical(buf[:0], v)
				addUnit(p.dim, 1, metrics.Unit{Key: p.key, Value: string(buf)})
			}
		})
		e.walkers.Put(w)
	}
	for di, dim := range sc.Dimensions {
		switch dim.Kind {
		case schema.KindItems:
			if dim.Items == nil || !wanted(di) {
				continue
			}
			keys := idx.itemKeys[di]
			addItem := func(obj jsondoc.Ref) {
				buf = appendItem(buf[:0], keys, func(k string) any {
					if v, ok := doc.Get(obj, k); ok && !doc.Empty(v) {
						return docValue{doc, v}
					}
					return nil
				})
				addUnit(di, 1, metrics.Unit{Value: string(buf)})
			}
			if name, ok := descentItems(dim.Items.Expr); ok && len(idx.ignoreSlow) == 0 {
				idx.findItems(doc, doc.Root(), name, true, addItem)
				continue
			}
			data := rs.value()
			for _, loc := range dim.Items.Expr.Locate(data, 0) {
				if idx.ignored(loc) {
					continue
				}
				if obj, ok := loc.First(data).(map[string]any); ok {
					addUnit(di, 1, metrics.Unit{Value: itemValue(obj, keys)})
				}
			}
		case schema.KindLabel:
			if cd.labels == nil || !cd.labels[di].has {
				continue
			}
			cd.labels[di].ranked = predicted(dim, rs)
		}
	}
	// A case counts towards a dimension only when its template annotates
	// that dimension (recognitions in a dimension nobody expected anything
	// of are not evidence of error): units are only gathered for dimensions
	// the expectations opened above.
	return cd
}

type keyValue struct {
	key string
	val any
}

// docValue is a value still on the tape, for appendItem.
type docValue struct {
	doc *jsondoc.Doc
	ref jsondoc.Ref
}

// appendItem appends the canonical text of an item on its compared keys
// (sorted): an absent key and an empty value are both null.
func appendItem(b []byte, keys []string, get func(string) any) []byte {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = schema.AppendCanonicalString(b, k)
		b = append(b, ':')
		switch v := get(k).(type) {
		case docValue:
			b = v.doc.AppendCanonical(b, v.ref)
		default:
			if isEmpty(v) {
				v = nil
			}
			b = schema.AppendCanonicalJSON(b, v)
		}
	}
	return append(b, '}')
}

// itemValue is the canonical text of an item on its compared keys; an
// absent key and an empty value are the same.
func itemValue(obj map[string]any, keys []string) string {
	return string(appendItem(nil, keys, func(k string) any { return obj[k] }))
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

// predicted returns the label dimension's predictions, best first: the
// ranking when the schema gives one (with the label first), else the label
// alone; nothing when the confidence is below min_confidence.
func predicted(dim *spec.Dimension, rs *response) []string {
	label, ok := first(dim.Label, rs)
	ls, isStr := label.(string)
	if !ok || !isStr || ls == "" {
		return nil
	}
	if dim.Confidence != nil && dim.MinConfidence > 0 {
		if c, ok := first(dim.Confidence, rs); ok {
			if f, ok := number(c); ok {
				if v, _ := f.Float64(); v < dim.MinConfidence {
					return nil
				}
			}
		}
	}
	out := []string{ls}
	if dim.Ranking != nil {
		var ranked []any
		if modeOf(dim.Ranking.Expr) != modeTree {
			for _, r := range locate(rs.doc, dim.Ranking.Expr, nil) {
				if rs.doc.Kind(r) == jsondoc.String {
					ranked = append(ranked, rs.doc.Str(r))
				}
			}
		} else {
			ranked = dim.Ranking.Expr.Get(rs.value())
		}
		for _, v := range ranked {
			if s, ok := v.(string); ok && s != ls {
				out = append(out, s)
			}
		}
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

// findItems calls fn for every object in an array held under key name
// anywhere in the response, skipping ignored keys: the $..NAME[*] pattern
// without building a path per node.
func (d *dimIndex) findItems(doc *jsondoc.Doc, v jsondoc.Ref, name string, root bool, fn func(jsondoc.Ref)) {
	switch doc.Kind(v) {
	case jsondoc.Object:
		doc.Each(v, func(k, e jsondoc.Ref) bool {
			var key string
			if doc.Plain(k) {
				b := doc.StrBytes(k)
				if d.ignoreDescent[string(b)] || root && d.ignoreRoot[string(b)] {
					return true
				}
				if string(b) == name {
					key = name
				}
			} else {
				key = doc.Str(k)
				if d.ignoreDescent[key] || root && d.ignoreRoot[key] {
					return true
				}
			}
			if key == name && doc.Kind(e) == jsondoc.Array {
				doc.Elems(e, func(_ int, it jsondoc.Ref) bool {
					if doc.Kind(it) == jsondoc.Object {
						fn(it)
					}
					return true
				})
			}
			d.findItems(doc, e, name, false, fn)
			return true
		})
	case jsondoc.Array:
		doc.Elems(v, func(_ int, e jsondoc.Ref) bool {
			d.findItems(doc, e, name, false, fn)
			return true
		})
	}
}

// pathNode is one concrete response path in a walker's trie, with what
// dimension analysis needs to know of it, worked out once.
type pathNode struct {
	path    jp.Expr
	key     string // canonical text of path
	dim     int    // index of its leaf dimension, or -1
	ignored bool
	kids    map[string]*pathNode
	elems   []*pathNode
}

// walker flattens parsed responses (as Flatten does) along a trie of the
// paths seen so far, so the leaves of a million similar responses cost a
// map lookup per step, not a path built and matched per leaf. Each walker
// serves one goroutine at a time (they are pooled).
type walker struct {
	idx   *dimIndex
	root  *pathNode
	nodes int
}

// maxTrie bounds a walker's trie; responses with ever new paths (huge
// arrays, generated keys) start it afresh.
const maxTrie = 1 << 16

func newWalker(idx *dimIndex) *walker {
	w := &walker{idx: idx}
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
	w.nodes++
	return n
}

func (w *walker) child(parent *pathNode, doc *jsondoc.Doc, k jsondoc.Ref) *pathNode {
	if doc.Plain(k) {
		if n := parent.kids[string(doc.StrBytes(k))]; n != nil {
			return n
		}
	} else if n := parent.kids[doc.Str(k)]; n != nil {
		return n
	}
	key := doc.Str(k)
	n := w.node(parent, jp.Child(key))
	if parent.kids == nil {
		parent.kids = map[string]*pathNode{}
	}
	parent.kids[key] = n
	return n
}

func (w *walker) elem(parent *pathNode, i int) *pathNode {
	if i < len(parent.elems) {
		return parent.elems[i]
	}
	for len(parent.elems) <= i {
		parent.elems = append(parent.elems, w.node(parent, jp.Nth(len(parent.elems))))
	}
	return parent.elems[i]
}

// walk calls fn for every leaf of the response: scalars and arrays of
// scalars that are not empty, outside ignored paths.
func (w *walker) walk(doc *jsondoc.Doc, fn func(*pathNode, jsondoc.Ref)) {
	if w.nodes > maxTrie {
		w.reset()
	}
	var visit func(p *pathNode, v jsondoc.Ref)
	visit = func(p *pathNode, v jsondoc.Ref) {
		if p.ignored {
			return
		}
		switch doc.Kind(v) {
		case jsondoc.Object:
			doc.Each(v, func(k, e jsondoc.Ref) bool {
				visit(w.child(p, doc, k), e)
				return true
			})
		case jsondoc.Array:
			if doc.Empty(v) {
				return
			}
			if !doc.HasContainer(v) {
				fn(p, v)
				return
			}
			doc.Elems(v, func(i int, e jsondoc.Ref) bool {
				visit(w.elem(p, i), e)
				return true
			})
		default:
			if !doc.Empty(v) {
				fn(p, v)
			}
		}
	}
	visit(w.root, doc.Root())
}
