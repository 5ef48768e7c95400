package stats

import (
	"sort"
	"strings"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/materials"
	"github.com/ohler55/ojg/jp"
)

// Stats, Material, … are the statistics' types, defined in schema so that
// the reporters that render them need not import the suite language.
type (
	Stats      = schema.Stats
	Material   = schema.StatsMaterial
	TagCount   = schema.StatsTagCount
	Count      = schema.StatsCount
	LevelCount = schema.StatsLevelCount
	Template   = schema.StatsTemplate
	Dimension  = schema.StatsDimension
	Value      = schema.StatsValue
)

// Compute streams the suite's cases (only split's when split is not "")
// and returns the distributions.
func Compute(s *spec.Suite, split string) (*Stats, error) {
	return ComputeWith(s, spec.GenOptions{Split: split})
}

// ComputeWith is Compute with every generation option (opts.Warn receives
// generation warnings).
func ComputeWith(s *spec.Suite, opts spec.GenOptions) (*Stats, error) {
	st := &Stats{Suite: s.Name, Split: opts.Split}
	countMaterials(st, s)
	c := newCounter(s, st)
	if err := s.Generate(opts, func(cs *schema.Case) error {
		c.add(cs)
		return nil
	}); err != nil {
		return nil, err
	}
	c.finish()
	return st, nil
}

func countMaterials(st *Stats, s *spec.Suite) {
	levels := map[string]bool{}
	tags := map[string]*TagCount{}
	vtags := map[string]int{}
	for _, name := range s.MatOrder {
		m := s.Materials[name]
		if m == nil {
			continue
		}
		mat := Material{Name: m.Name, Tag: m.Tag, Values: len(m.Values), ByLevel: map[string]int{}, Source: m.Source, Compose: m.Compose}
		for i := range m.Values {
			v := &m.Values[i]
			mat.ByLevel[v.Level]++
			levels[v.Level] = true
			for _, t := range v.Tags {
				vtags[t]++
			}
		}
		st.Materials = append(st.Materials, mat)
		tc := tags[m.Tag]
		if tc == nil {
			tc = &TagCount{Tag: m.Tag}
			tags[m.Tag] = tc
		}
		tc.Materials++
		tc.Values += len(m.Values)
	}
	for l := range levels {
		st.Levels = append(st.Levels, l)
	}
	sortLevels(st.Levels)
	for _, tc := range tags {
		st.MaterialTags = append(st.MaterialTags, *tc)
	}
	sort.Slice(st.MaterialTags, func(i, j int) bool { return st.MaterialTags[i].Tag < st.MaterialTags[j].Tag })
	st.ValueTags = sortedCounts(vtags)
}

// sortLevels orders levels M1 < M2 < … < others, "" last.
func sortLevels(ls []string) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		if (a == "") != (b == "") {
			return b == ""
		}
		return materials.LevelLess(a, b)
	})
}

func sortedCounts(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Name: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// counter accumulates the case distributions while cases stream by.
type counter struct {
	s        *spec.Suite
	st       *Stats
	tmpl     map[string]int // template name → index in st.Templates
	levels   map[string]*LevelCount
	scenes   map[string]int
	splits   map[string]int
	dims     map[*spec.Dimension]*dimCounter
	paths    map[string]pathInfo // expectation path → its dimension
	caseDims map[*spec.Dimension]bool
	items    map[itemKey]map[string]any
	itemSeq  []itemKey
}

type dimCounter struct {
	cases, units int
	values       map[[2]string]int // (field, value) → count
}

// pathInfo is what an expectation path says about dimensions.
type pathInfo struct {
	dim *spec.Dimension
	// field is the last named step; for items dimensions, prefix is the
	// item's path and key the member the expectation sets ("" for the
	// whole item).
	field, prefix, key string
	skip               bool
}

type itemKey struct {
	dim    *spec.Dimension
	prefix string
}

func newCounter(s *spec.Suite, st *Stats) *counter {
	c := &counter{s: s, st: st, tmpl: map[string]int{}, levels: map[string]*LevelCount{}, scenes: map[string]int{},
		splits: map[string]int{}, dims: map[*spec.Dimension]*dimCounter{}, paths: map[string]pathInfo{},
		caseDims: map[*spec.Dimension]bool{}, items: map[itemKey]map[string]any{}}
	for _, t := range s.Templates {
		file, line := spec.FileLine(t.DeclRange)
		c.tmpl[t.Name] = len(st.Templates)
		st.Templates = append(st.Templates, Template{Name: t.Name, Level: t.Level, Core: t.Core, Scene: t.Scene, Strategy: t.Strategy, File: file, Line: line})
	}
	if s.Schema != nil {
		for _, d := range s.Schema.Dimensions {
			c.dims[d] = &dimCounter{values: map[[2]string]int{}}
		}
	}
	return c
}

func (c *counter) add(cs *schema.Case) {
	st := c.st
	st.Cases++
	if i, ok := c.tmpl[cs.Template]; ok {
		st.Templates[i].Cases++
	}
	lc := c.levels[cs.Level]
	if lc == nil {
		lc = &LevelCount{Level: cs.Level}
		c.levels[cs.Level] = lc
	}
	lc.Cases++
	for i := range cs.Scene {
		c.scenes[strings.Join(cs.Scene[:i+1], "/")]++
	}
	for _, sp := range cs.Split {
		c.splits[sp]++
	}
	if len(cs.Split) == 0 {
		st.NoSplit++
	}
	if cs.Core {
		st.Core++
	} else {
		st.NonCore++
	}
	if len(c.dims) == 0 {
		return
	}
	clear(c.caseDims)
	for _, x := range cs.Expect {
		pi := c.path(x.Path)
		if pi.skip {
			continue
		}
		dc := c.dims[pi.dim]
		c.caseDims[pi.dim] = true
		if pi.dim.Kind != schema.KindItems {
			dc.units++
			dc.values[[2]string{pi.field, text(x.Value)}]++
			continue
		}
		k := itemKey{pi.dim, pi.prefix}
		item, ok := c.items[k]
		if !ok {
			item = map[string]any{}
			c.items[k] = item
			c.itemSeq = append(c.itemSeq, k)
		}
		if pi.key != "" {
			item[pi.key] = x.Value
		} else if obj, ok := x.Value.(map[string]any); ok {
			for _, key := range pi.dim.Keys {
				if v, ok := obj[key]; ok {
					item[key] = v
				}
			}
		}
	}
	for _, k := range c.itemSeq {
		dc := c.dims[k.dim]
		dc.units++
		dc.values[[2]string{"", itemText(c.items[k], k.dim.Keys)}]++
		delete(c.items, k)
	}
	c.itemSeq = c.itemSeq[:0]
	for d := range c.caseDims {
		c.dims[d].cases++
	}
}

// path classifies an expectation path once. Paths that may select several
// nodes (wildcards, .., filters, slices) count towards no dimension, as in
// the run's dimension metrics.
func (c *counter) path(p string) pathInfo {
	if pi, ok := c.paths[p]; ok {
		return pi
	}
	pi := pathInfo{skip: true}
	if x, _, err := jsonpath.Compile(p); err == nil && concrete(x) {
		if d := c.s.Schema.DimensionOf(x); d != nil {
			pi = pathInfo{dim: d}
			if d.Kind == schema.KindLeaf || d.Kind == schema.KindCase {
				pi.field = lastField(x)
			}
			if d.Kind == schema.KindItems {
				n, ok := jsonpath.MatchPrefix(d.Items.Expr, x)
				switch {
				case !ok:
					pi.skip = true
				case n == len(x):
					pi.prefix = x.String()
				default:
					key, isChild := x[n].(jp.Child)
					if !isChild || n != len(x)-1 {
						// A step below an item's member: the item is
						// exercised, the member is not one of its keys.
						pi.prefix = x[:n].String()
					} else {
						pi.prefix, pi.key = x[:n].String(), string(key)
					}
				}
			}
		}
	}
	c.paths[p] = pi
	return pi
}

func concrete(x jp.Expr) bool {
	for _, f := range x {
		switch t := f.(type) {
		case jp.Root, jp.Child:
		case jp.Nth:
			if t < 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func lastField(x jp.Expr) string {
	for i := len(x) - 1; i >= 0; i-- {
		if ch, ok := x[i].(jp.Child); ok {
			return string(ch)
		}
	}
	return ""
}

// itemText is an expected item on its compared keys: "key=value" pairs in
// the schema's key order; absent and empty keys are left out.
func itemText(item map[string]any, keys []string) string {
	var parts []string
	for _, k := range keys {
		v, ok := item[k]
		if !ok || jsondoc.Empty(v) {
			continue
		}
		parts = append(parts, k+"="+text(v))
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, ", ")
}

// text is a value as the statistics show it: a string as it is, anything
// else as compact JSON with object keys sorted.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return schema.CanonicalJSON(v)
}

func (c *counter) finish() {
	st := c.st
	for _, t := range st.Templates {
		if t.Cases > 0 {
			if lc := c.levels[t.Level]; lc != nil {
				lc.Templates++
			}
		}
	}
	var lvls []string
	for l := range c.levels {
		lvls = append(lvls, l)
	}
	sort.Slice(lvls, func(i, j int) bool {
		a, b := lvls[i], lvls[j]
		if (a == "") != (b == "") {
			return b == ""
		}
		return materials.LevelLess(a, b)
	})
	for _, l := range lvls {
		st.TemplateLevels = append(st.TemplateLevels, *c.levels[l])
	}
	st.Scenes = sortedCounts(c.scenes)
	for _, sp := range c.s.Splits {
		if st.Split == "" || st.Split == sp.Name || c.splits[sp.Name] > 0 {
			st.Splits = append(st.Splits, Count{Name: sp.Name, Count: c.splits[sp.Name]})
		}
	}
	if c.s.Schema == nil {
		return
	}
	for _, d := range c.s.Schema.Dimensions {
		dc := c.dims[d]
		dim := Dimension{Name: d.Name, Kind: d.Kind, Cases: dc.cases, Expectations: dc.units}
		for k, n := range dc.values {
			dim.Values = append(dim.Values, Value{Field: k[0], Value: k[1], Count: n})
		}
		sort.Slice(dim.Values, func(i, j int) bool {
			a, b := dim.Values[i], dim.Values[j]
			if a.Count != b.Count {
				return a.Count > b.Count
			}
			if a.Field != b.Field {
				return a.Field < b.Field
			}
			return a.Value < b.Value
		})
		st.Dimensions = append(st.Dimensions, dim)
	}
}
