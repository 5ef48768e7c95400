package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestStepStyles(t *testing.T) {
	for _, c := range []struct {
		addr string
		want []StepStyle
	}{
		{"accuracy", []StepStyle{StepName}},
		{"split.smoke.accuracy", []StepStyle{StepName, StepKey, StepName}},
		{"label.intent.labels.订机票.f1", []StepStyle{StepName, StepNameKey, StepName, StepKey, StepName}},
		{"scene.出行/天气.dimension.city.values.北京.recall", []StepStyle{StepName, StepKey, StepName, StepNameKey, StepName, StepKey, StepName}},
		{"latency.bucket.<=20.p95_ms", []StepStyle{StepName, StepName, StepKey, StepName}},
		{"core.accuracy", []StepStyle{StepName, StepName}},
		{"nosuch.x.y", []StepStyle{StepName, StepName, StepName}},
	} {
		if got := DefaultTree().StepStyles(strings.Split(c.addr, ".")); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.addr, got, c.want)
		}
	}
}

// A family or source group may not shadow another name: the tree's
// addresses must stay unambiguous. The node families come first.
func TestTreeRefusesTakenNames(t *testing.T) {
	base := BuiltinFamilies()
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"a second latency", func() error {
			_, err := NewTree(append(base, &Family{Name: "latency", Subs: []*Sub{{Name: "latency"}}}))
			return err
		}},
		{"a family named as a group", func() error {
			_, err := NewTree(append(base, &Family{Name: "split", Subs: []*Sub{{Name: "split"}}}))
			return err
		}},
		{"node metrics", func() error {
			_, err := NewTree(append(base, &Family{Name: "x", Attrs: []Attr{{Name: "y"}}, Subs: []*Sub{{Name: "x"}}}))
			return err
		}},
		{"a subtree of another name", func() error {
			_, err := NewTree(append(base, &Family{Name: "x", Subs: []*Sub{{Name: "y"}}}))
			return err
		}},
		{"the node families not first", func() error { _, err := NewTree(base[1:]); return err }},
		{"a source group named as a family", func() error { return DefaultTree().AddSourceGroup("latency", "latency", "latency") }},
		{"a source group named as a group", func() error { return DefaultTree().AddSourceGroup("template", "template", "template") }},
	} {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// The values of registered families and source kinds are written in the
// report JSON after the built-in members, and read back.
func TestMetricsJSONWithRegisteredParts(t *testing.T) {
	tree, err := NewTree(append(BuiltinFamilies(), &Family{Name: "tone", Subs: []*Sub{{Name: "tone", Shape: &Shape{Attrs: []Attr{{Name: "polite", Kind: MetricRatio}}}}}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.AddSourceGroup("dataset", "dataset", "dataset"); err != nil {
		t.Fatal(err)
	}
	m := &Metrics{Node: Node{Total: 2, Families: map[string]any{"tone": map[string]any{"polite": R(1, 2)}}},
		Sources: map[string]map[string]*Node{"dataset": {"faq": {Total: 2, Accuracy: R(1, 2)}}}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"total":2,"passed":0,"failed":0,"errored":0,"accuracy":{"value":null,"num":0,"den":0},"error_rate":{"value":null,"num":0,"den":0},` +
		`"tone":{"polite":{"value":0.5,"num":1,"den":2}},` +
		`"dataset":{"faq":{"total":2,"passed":0,"failed":0,"errored":0,"accuracy":{"value":0.5,"num":1,"den":2},"error_rate":{"value":null,"num":0,"den":0}}}}`
	if string(b) != want {
		t.Fatalf("JSON\n%s\nwant\n%s", b, want)
	}
	var back Metrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	metric := func(o *Obj, path ...string) *Metric {
		for len(path) > 1 {
			var next *Obj
			for _, c := range o.Children {
				if c.Sub.Name != path[0] {
					continue
				}
				next = c.Obj
				if c.Sub.Keyed {
					path = path[1:]
					for i, k := range c.Keys {
						if k == path[0] {
							next = c.Entries[i]
						}
					}
				}
			}
			if next == nil {
				t.Fatalf("no %s in %s", path[0], o.Addr)
			}
			o, path = next, path[1:]
		}
		for i := range o.Metrics {
			if o.Metrics[i].Name == path[0] {
				return &o.Metrics[i]
			}
		}
		t.Fatalf("no metric %s in %s", path[0], o.Addr)
		return nil
	}
	for _, m := range []*Metrics{m, &back} {
		root := tree.ReadMetrics(m)
		if r := metric(root, "tone", "polite").Ratio; r == nil || *r != R(1, 2) {
			t.Errorf("metrics.tone.polite = %v", r)
		}
		d := metric(root, "dataset", "faq", "accuracy")
		if d.Addr != `metrics.dataset["faq"].accuracy` || *d.Value != 0.5 {
			t.Errorf("%s = %v", d.Addr, *d.Value)
		}
	}
}

// The descriptor and the report's types name the same metrics: every
// metric the descriptor lists is a field of the type holding it, and every
// number or ratio field of those types is in the descriptor (or is listed
// here as not a metric).
func TestDescriptorMatchesReportTypes(t *testing.T) {
	notMetrics := map[string]bool{"kind": true, "k": true}
	node := (&Tree{Families: nodeFamilies}).NodeShape() // the families with fields of Node
	dim := DimensionFamily.Subs[0]
	for _, c := range []struct {
		name   string
		shapes []*Shape // the shapes the type serves
		value  any
	}{
		{"node", []*Shape{{Attrs: caseAttrs}}, Node{}},
		{"dimension", []*Shape{dim.Shape, dim.Variants[KindCase], dim.Variants[KindItems], dim.Variants[KindItems].Subs[1].Shape}, Dimension{}},
		{"label", []*Shape{LabelFamily.Subs[0].Shape}, Label{}},
		{"per label", []*Shape{LabelFamily.Subs[0].Shape.Subs[0].Shape}, LabelStats{}},
		{"latency", []*Shape{LatencyFamily.Subs[0].Shape}, Latency{}},
		{"latency bucket", []*Shape{LatencyFamily.Subs[0].Shape.Subs[0].Shape}, LatencyStats{}},
		{"usage", []*Shape{UsageFamily.Subs[0].Shape}, TokenUsage{}},
	} {
		ty := reflect.TypeOf(c.value)
		fields := jsonFields(ty)
		listed := map[string]bool{}
		for _, sh := range c.shapes {
			for _, a := range sh.Attrs {
				listed[a.Name] = true
				if _, ok := fields[a.Name]; !ok {
					t.Errorf("%s: the descriptor lists %q, %s has no such field", c.name, a.Name, ty)
				}
			}
			for _, s := range sh.Subs {
				listed[s.Name] = true
			}
		}
		for name, idx := range fields {
			f := ty.FieldByIndex(idx).Type
			numeric := f == ratioType || f == reflect.PointerTo(ratioType) || f.Kind() == reflect.Int || f.Kind() == reflect.Float64
			if numeric && !listed[name] && !notMetrics[name] {
				t.Errorf("%s: %s.%s is a number the descriptor does not list", c.name, ty, name)
			}
		}
	}
	for _, s := range node.Subs {
		if _, ok := jsonFields(nodeType)[s.Name]; !ok {
			t.Errorf("node subtree %q is not a field of Node", s.Name)
		}
	}
	for _, g := range DefaultTree().Groups {
		if _, ok := jsonFields(groupsType)[g.Name]; !ok {
			t.Errorf("group %q is not a field of Metrics", g.Name)
		}
	}
}
