package assert

import (
	"sync"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/ohler55/ojg/jp"
)

// caseDims is the dimension analysis of one result: what each dimension
// expected and recognised in it.
type caseDims struct {
	units  map[string]*[2][]metrics.Unit // leaf and items: expected, recognised
	cases  map[string]bool               // case dimensions: all expectations met
	labels map[string]labelObs           // label dimensions
}

type labelObs struct {
	expected string
	ranked   []string
}

// dimIndex caches the dimension of each normalised path (paths repeat
// across responses, so pattern matching runs once per distinct path).
type dimIndex struct {
	sc    *spec.Schema
	cache sync.Map // string → *spec.Dimension (nil stored as noDim)
	// leaves caches, per path hash, a response leaf's canonical path and
	// dimension, so flattening a response builds no path text.
	leaves sync.Map // uint64 → leafInfo
	// ignoreFast holds ignore patterns of the forms $..name and $.name,
	// checked on the last step only; ignoreSlow the others.
	ignoreDescent map[string]bool
	ignoreRoot    map[string]bool
	ignoreSlow    []spec.Pattern
}

type leafInfo struct {
	key string
	dim *spec.Dimension
}

func newDimIndex(sc *spec.Schema) *dimIndex {
	d := &dimIndex{sc: sc, ignoreDescent: map[string]bool{}, ignoreRoot: map[string]bool{}}
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

func (d *dimIndex) leaf(p jp.Expr) leafInfo {
	h := pathHash(p)
	if v, ok := d.leaves.Load(h); ok {
		return v.(leafInfo)
	}
	key := p.String()
	li := leafInfo{key: key, dim: d.of(key, p)}
	d.leaves.Store(h, li)
	return li
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
func (e *Evaluator) analyse(r *schema.Result, data any, met []bool) *caseDims {
	sc := e.suite.Schema
	idx := e.dims
	cd := &caseDims{}
	addUnit := func(dim string, which int, u metrics.Unit) {
		if cd.units == nil {
			cd.units = map[string]*[2][]metrics.Unit{}
		}
		p := cd.units[dim]
		if p == nil {
			p = &[2][]metrics.Unit{}
			cd.units[dim] = p
		}
		p[which] = append(p[which], u)
	}
	// Expected side, from the case's expectations.
	items := map[*spec.Dimension]map[string]map[string]any{} // dim → item prefix → key → value
	var itemOrder []string
	for i, x := range r.Expect {
		c, err := e.path(x.Path)
		if err != nil || c.multi {
			continue // dimension metrics count concrete paths only
		}
		dim := idx.of(x.Path, c.x)
		if dim == nil {
			continue
		}
		switch dim.Kind {
		case schema.KindLeaf:
			addUnit(dim.Name, 0, metrics.Unit{Key: c.canon, Value: canon(x.Value)})
		case schema.KindCase:
			if cd.cases == nil {
				cd.cases = map[string]bool{}
			}
			prev, seen := cd.cases[dim.Name]
			cd.cases[dim.Name] = (prev || !seen) && met[i]
		case schema.KindLabel:
			if s, ok := x.Value.(string); ok {
				if cd.labels == nil {
					cd.labels = map[string]labelObs{}
				}
				cd.labels[dim.Name] = labelObs{expected: s}
			}
		case schema.KindItems:
			n, ok := spec.MatchPrefix(dim.Items.Expr, c.x)
			if !ok || n >= len(c.x) {
				continue
			}
			key, ok := c.x[n].(jp.Child)
			if !ok {
				continue
			}
			prefix := c.x[:n].String()
			m := items[dim]
			if m == nil {
				m = map[string]map[string]any{}
				items[dim] = m
			}
			if m[prefix] == nil {
				m[prefix] = map[string]any{}
				itemOrder = append(itemOrder, dim.Name+"\x00"+prefix)
			}
			if n == len(c.x)-1 {
				m[prefix][string(key)] = x.Value
			}
		}
	}
	for dim, m := range items {
		for _, obj := range m {
			addUnit(dim.Name, 0, metrics.Unit{Key: "", Value: itemValue(obj, dim.Keys)})
		}
	}
	// Recognised side, from the response.
	FlattenFunc(data, idx.ignored, func(p jp.Expr, v any) {
		li := idx.leaf(p)
		if li.dim != nil && li.dim.Kind == schema.KindLeaf {
			if _, wanted := cd.units[li.dim.Name]; wanted {
				addUnit(li.dim.Name, 1, metrics.Unit{Key: li.key, Value: canon(v)})
			}
		}
	})
	for _, dim := range sc.Dimensions {
		switch dim.Kind {
		case schema.KindItems:
			if _, wanted := cd.units[dim.Name]; dim.Items == nil || !wanted {
				continue
			}
			if name, ok := descentItems(dim.Items.Expr); ok && len(idx.ignoreSlow) == 0 {
				idx.findItems(data, name, true, func(obj map[string]any) {
					addUnit(dim.Name, 1, metrics.Unit{Key: "", Value: itemValue(obj, dim.Keys)})
				})
				continue
			}
			for _, loc := range dim.Items.Expr.Locate(data, 0) {
				if idx.ignored(loc) {
					continue
				}
				if obj, ok := loc.First(data).(map[string]any); ok {
					addUnit(dim.Name, 1, metrics.Unit{Key: "", Value: itemValue(obj, dim.Keys)})
				}
			}
		case schema.KindLabel:
			obs, ok := cd.labels[dim.Name]
			if !ok {
				continue
			}
			obs.ranked = predicted(dim, data)
			cd.labels[dim.Name] = obs
		}
	}
	// A case counts towards a dimension only when its template annotates
	// that dimension (recognitions in a dimension nobody expected anything
	// of are not evidence of error): units are only gathered for dimensions
	// the expectations opened above.
	return cd
}

// itemValue is the canonical text of an item on its compared keys; an
// absent key and an empty value are the same.
func itemValue(obj map[string]any, keys []string) string {
	m := make(map[string]any, len(keys))
	for _, k := range keys {
		v := obj[k]
		if isEmpty(v) {
			v = nil
		}
		m[k] = v
	}
	return canon(m)
}

// predicted returns the label dimension's predictions, best first: the
// ranking when the schema gives one (with the label first), else the label
// alone; nothing when the confidence is below min_confidence.
func predicted(dim *spec.Dimension, data any) []string {
	label, ok := firstFound(dim.Label.Expr, data)
	ls, isStr := label.(string)
	if !ok || !isStr || ls == "" {
		return nil
	}
	if dim.Confidence != nil && dim.MinConfidence > 0 {
		if c, ok := firstFound(dim.Confidence.Expr, data); ok {
			if f, ok := number(c); ok {
				if v, _ := f.Float64(); v < dim.MinConfidence {
					return nil
				}
			}
		}
	}
	out := []string{ls}
	if dim.Ranking != nil {
		for _, v := range dim.Ranking.Expr.Get(data) {
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
// anywhere in data, skipping ignored keys: the $..NAME[*] pattern without
// building a path per node.
func (d *dimIndex) findItems(v any, name string, root bool, fn func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if d.ignoreDescent[k] || root && d.ignoreRoot[k] {
				continue
			}
			if k == name {
				if arr, ok := e.([]any); ok {
					for _, it := range arr {
						if obj, ok := it.(map[string]any); ok {
							fn(obj)
						}
					}
				}
			}
			d.findItems(e, name, false, fn)
		}
	case []any:
		for _, e := range t {
			d.findItems(e, name, false, fn)
		}
	}
}
