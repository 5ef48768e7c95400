package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Step is one step of an address in the metrics tree: a name, or a key of
// a keyed map (written ["KEY"] in the canonical form).
type Step struct {
	Name string
	Key  bool
}

// Obj is one object of a metrics tree read through the descriptor: its
// metrics in the shape's order and the subtrees present.
type Obj struct {
	Shape *Shape
	// Path locates the object; Addr is its canonical address
	// (metrics.split["smoke"]).
	Path []Step
	Addr string
	// Metrics holds one entry per attribute of the shape.
	Metrics []Metric
	// Children holds the subtrees present, in the shape's order (for the
	// root: the node's, then the groups).
	Children []Child
	raw      reflect.Value
}

// Child is one subtree of an object: one object, or the entries of a map.
type Child struct {
	Sub *Sub
	// Group is set for the root's groups (split, level, core…).
	Group bool
	// Obj is the object of a subtree that is not keyed.
	Obj *Obj
	// Keys and Entries are a keyed map's entries, in listing order.
	Keys    []string
	Entries []*Obj
}

// Metric is one number of the tree.
type Metric struct {
	Attr
	// Addr is the canonical address: metrics.split["smoke"].accuracy.
	Addr string
	// Value is nil when the metric has no data: a ratio over zero, or a
	// number that is not defined (null in the report: a kappa over one
	// label).
	Value *float64
	// Ratio is set for ratios that exist (with a zero denominator too).
	Ratio *Ratio
	// CILow and CIHigh are the metric's confidence interval (report.json's
	// "ci_low" and "ci_high"): nil when it has none — a metric without
	// intervals (Attr.CI), no data, or a report written before intervals.
	CILow, CIHigh *float64
}

// Count returns the count named name of the object's report value (a
// field that is not a metric, such as a label dimension's k), or 0.
func (o *Obj) Count(name string) float64 {
	v := member(o.raw, name)
	f, _ := number(v)
	return f
}

// ReadMetrics reads the metrics tree m through the descriptor t. The
// report value's fields are found by their JSON names, so a family's
// value type needs nothing but JSON tags.
func (t *Tree) ReadMetrics(m *Metrics) *Obj {
	if m == nil {
		return nil
	}
	node := t.NodeShape()
	root := readObj(node, reflect.ValueOf(m), []Step{{Name: "metrics"}}, "metrics")
	for _, g := range t.Groups {
		sh := g.Shape
		if sh == nil {
			sh = node
		}
		gs := *g
		gs.Shape = sh
		if c, ok := readSub(&gs, reflect.ValueOf(m), root.Path, root.Addr); ok {
			c.Group = true
			root.Children = append(root.Children, c)
		}
	}
	return root
}

func readObj(sh *Shape, v reflect.Value, path []Step, addr string) *Obj {
	o := &Obj{Shape: sh, Path: path, Addr: addr, raw: v, Metrics: make([]Metric, 0, len(sh.Attrs))}
	for _, a := range sh.Attrs {
		m := member(v, a.Name)
		if !m.IsValid() && slices.Contains(sh.Optional, a.Name) {
			continue
		}
		o.Metrics = append(o.Metrics, readMetric(a, m, addr+"."+a.Name))
	}
	for _, s := range sh.Subs {
		if c, ok := readSub(s, v, path, addr); ok {
			o.Children = append(o.Children, c)
		}
	}
	return o
}

func readSub(s *Sub, parent reflect.Value, path []Step, addr string) (Child, bool) {
	v := member(parent, s.Name)
	p := append(slices.Clip(path), Step{Name: s.Name})
	a := addr + "." + s.Name
	c := Child{Sub: s}
	if !s.Keyed {
		if !v.IsValid() {
			return c, false
		}
		c.Obj = readObj(s.Shape, v, p, a)
		return c, true
	}
	keys := mapKeys(v, s.Order)
	if len(keys) == 0 && !s.Always {
		return c, false
	}
	c.Keys = keys
	for _, k := range keys {
		e := member(v, k)
		kind := ""
		if kv := member(e, "kind"); kv.IsValid() && kv.Kind() == reflect.String {
			kind = kv.String()
		}
		ea := fmt.Sprintf("%s[%q]", a, k)
		if s.NameKeys {
			ea = a + "." + k
		}
		c.Entries = append(c.Entries, readObj(s.ShapeOf(kind), e, append(slices.Clip(p), Step{Name: k, Key: true}), ea))
	}
	return c, true
}

func readMetric(a Attr, v reflect.Value, addr string) Metric {
	m := Metric{Attr: a, Addr: addr}
	if a.Kind == MetricRatio {
		r, ok := ratioOf(v)
		if !ok {
			return m
		}
		m.Ratio = &r
		if f, ok := r.Value(); ok {
			m.Value = &f
		}
		if lo, hi, ok := r.CI(); ok {
			m.CILow, m.CIHigh = &lo, &hi
		}
		return m
	}
	f, ok := number(v)
	if !ok && a.Kind != MetricCount {
		// A number that is not defined (a kappa over one label, a mean
		// over no kept item: null in the report) has no data, as a ratio
		// over 0 has none. A count left out of a report read back
		// (omitempty) is 0.
		return m
	}
	m.Value = &f
	return m
}

var ratioType = reflect.TypeFor[Ratio]()

func ratioOf(v reflect.Value) (Ratio, bool) {
	if !v.IsValid() {
		return Ratio{}, false
	}
	if v.Type() == ratioType {
		return v.Interface().(Ratio), true
	}
	if v.Kind() == reflect.Map { // read back from JSON
		num, _ := number(member(v, "num"))
		den, _ := number(member(v, "den"))
		r := Ratio{Num: num, Den: den}
		lo, okLo := number(member(v, "ci_low"))
		hi, okHi := number(member(v, "ci_high"))
		if okLo && okHi {
			r.SetCI(lo, hi)
		}
		return r, true
	}
	return Ratio{}, false
}

func number(v reflect.Value) (float64, bool) {
	if !v.IsValid() {
		return 0, false
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// member returns the member of v named name as the report JSON names it:
// a struct field by its JSON name (Node.Families too), a map entry by its
// key. Pointers and interfaces are followed; nil gives the zero Value.
func member(v reflect.Value, name string) reflect.Value {
	v = deref(v)
	if !v.IsValid() {
		return v
	}
	switch v.Kind() {
	case reflect.Struct:
		if idx, ok := jsonFields(v.Type())[name]; ok {
			return deref(v.FieldByIndex(idx))
		}
		if v.Type() == nodeType {
			return member(v.FieldByName("Families"), name)
		}
		if v.Type() == metricsType {
			if g := member(v.FieldByName("Sources"), name); g.IsValid() {
				return g
			}
		}
		if f := v.FieldByName("Node"); f.IsValid() && f.Type() == nodeType {
			return member(f, name)
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			return deref(v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key())))
		}
	}
	return reflect.Value{}
}

func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	if v.IsValid() && v.Kind() == reflect.Map && v.IsNil() {
		return reflect.Value{}
	}
	if v.IsValid() && v.Type() == rawType {
		// a family's value read back from a report
		var x any
		if json.Unmarshal(v.Bytes(), &x) != nil {
			return reflect.Value{}
		}
		return deref(reflect.ValueOf(x))
	}
	return v
}

var (
	nodeType    = reflect.TypeFor[Node]()
	metricsType = reflect.TypeFor[Metrics]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	fieldCache  sync.Map // reflect.Type → map[string][]int
)

// jsonFields maps the JSON names of t's fields (promoted ones included) to
// their indices.
func jsonFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var add func(t reflect.Type, prefix []int)
	add = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(slices.Clip(prefix), i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				add(f.Type, idx)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := m[name]; !dup || len(idx) < len(m[name]) {
				m[name] = idx
			}
		}
	}
	add(t, nil)
	fieldCache.Store(t, m)
	return m
}

// mapKeys returns the keys of map v: those of order first, in that
// order, then the others sorted.
func mapKeys(v reflect.Value, order []string) []string {
	if !v.IsValid() || v.Kind() != reflect.Map {
		return nil
	}
	var keys []string
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	if len(order) == 0 {
		return keys
	}
	out := make([]string, 0, len(keys))
	for _, k := range order {
		if slices.Contains(keys, k) {
			out = append(out, k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(order, k) {
			out = append(out, k)
		}
	}
	return out
}
