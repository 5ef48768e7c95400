package schema

import (
	"fmt"
	"slices"
)

// The metrics tree's shape is written here once, as data. Threshold
// conditions' `metrics` value, validate's checks of metrics.* names,
// `eval --list-metrics`, JUnit properties and the report JSON all derive
// from it (docs/metrics.md): a new metric family or source kind registers
// its part and every one of them follows.

// MetricKind says what kind of number a metric is.
type MetricKind string

// Metric kinds.
const (
	// MetricCount is a whole number of cases, units or samples.
	MetricCount MetricKind = "count"
	// MetricRatio is a Ratio: its value, with the numerator and
	// denominator it came from; null when the denominator is zero.
	MetricRatio MetricKind = "ratio"
	// MetricNumber is any other number.
	MetricNumber MetricKind = "number"
	// MetricMillis is a duration in milliseconds.
	MetricMillis MetricKind = "ms"
)

// Attr is one metric of an object of the tree: a number a threshold
// condition can read, named as the report JSON names it.
type Attr struct {
	Name string
	Kind MetricKind
	// Doc is one line saying what the metric counts.
	Doc string
	// CI is how the metric's confidence interval is computed (a ratio
	// only); CINone when it has none. CIUnit names the units the interval
	// treats as independent, which a bootstrap resamples ("cases",
	// "conversations").
	CI     CIMethod
	CIUnit string
	// LowerBetter marks a metric whose lower values are better: error
	// rates, calibration errors, accepted out-of-scope cases, turns to
	// success. A duration (MetricMillis) is lower-better without it; every
	// other metric is higher-better (Lower). Comparisons of two runs read
	// it to call a difference better or worse (docs/statistics.md).
	LowerBetter bool
}

// Lower reports whether lower values of the metric are better: marked
// LowerBetter, or a duration.
func (a Attr) Lower() bool { return a.LowerBetter || a.Kind == MetricMillis }

// Shape is the shape of one object of the tree: its metrics and its
// subtrees, in the order listings show them.
type Shape struct {
	Attrs []Attr
	Subs  []*Sub
	// Optional names attributes an object has only when its report value
	// sets them (a typed items dimension's averages): absent otherwise,
	// not "no data".
	Optional []string
}

// Sub is a named subtree of an object: one object, or (Keyed) a map from
// keys to objects of one shape.
type Sub struct {
	Name string
	// Doc is one line saying what the subtree holds.
	Doc   string
	Keyed bool
	// Keys names where the keys of a keyed map come from, for validate:
	// KeysSplit, KeysTemplate, KeysDimension…; "" when any key may appear
	// (label names, values, latency buckets).
	Keys string
	// What names one key in messages: "split", "template level".
	What string
	// NameKeys writes the keys as names in canonical addresses
	// (metrics.label.intent, not metrics.label["intent"]): dimension names.
	NameKeys bool
	// Shape is the shape of the object, or of each entry of the map.
	Shape *Shape
	// Variants gives the shape of entries whose "kind" is the map's key
	// (dimension kinds); Shape serves the other kinds.
	Variants map[string]*Shape
	// Always makes an empty map present (as an empty object) in the
	// `metrics` value; otherwise a map without entries is absent.
	Always bool
	// Order lists keys that come first, in this order, in listings
	// (latency buckets); other keys follow sorted.
	Order []string
	// Props lists the metrics JUnit lists as properties for the object or
	// each entry, in order; PropWhen lists one only when a count of the
	// entry's report JSON is non-zero (top-k figures when k is known).
	Props    []string
	PropWhen map[string]string
}

// ShapeOf returns the shape of an entry whose kind is kind.
func (s *Sub) ShapeOf(kind string) *Shape {
	if v, ok := s.Variants[kind]; ok {
		return v
	}
	return s.Shape
}

// Where keys of keyed maps come from (Sub.Keys).
const (
	KeysSplit     = "split"
	KeysLevel     = "level"
	KeysScene     = "scene"
	KeysTemplate  = "template"
	KeysDimension = "dimension"
	KeysLabel     = "label"
	// KeysRubric: the names of the suite's rubric blocks.
	KeysRubric = "rubric"
	// KeysSourcePrefix + KIND: the names of the suite's sources of kind
	// KIND (metrics.dataset["NAME"]).
	KeysSourcePrefix = "source:"
)

// Family is a metric family's part of every node of the tree: metrics of
// the node itself (only the case counts have them) and subtrees.
type Family struct {
	// Name names the family; a family with subtrees stores its value in
	// Node.Families under this name unless Node has a field for it.
	Name  string
	Attrs []Attr
	Subs  []*Sub
	// Props lists the node metrics JUnit lists for the whole run.
	Props []string
	// Absent, when set, says what the family counts and what leaves it
	// out, for a run that has none of its figures: a threshold over it
	// then says it "has no data" and why.
	Absent string
}

// Tree describes the metrics tree: every node has the subtrees and metrics
// of every family; the root also has the groups (split, level…), maps or
// single nodes of the same node shape.
type Tree struct {
	Families []*Family
	Groups   []*Sub
}

// NodeShape returns the shape shared by every node: each family's metrics,
// then each family's subtrees.
func (t *Tree) NodeShape() *Shape {
	sh := &Shape{}
	for _, f := range t.Families {
		sh.Attrs = append(sh.Attrs, f.Attrs...)
	}
	for _, f := range t.Families {
		sh.Subs = append(sh.Subs, f.Subs...)
	}
	return sh
}

// Group returns the root group named name, or nil.
func (t *Tree) Group(name string) *Sub {
	for _, g := range t.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// FamilyOf returns the family that has the node subtree or metric named
// name, or nil.
func (t *Tree) FamilyOf(name string) *Family {
	for _, f := range t.Families {
		if slices.ContainsFunc(f.Attrs, func(a Attr) bool { return a.Name == name }) ||
			slices.ContainsFunc(f.Subs, func(s *Sub) bool { return s.Name == name }) {
			return f
		}
	}
	return nil
}

// StepStyle says how a step of a metric's address is written canonically.
type StepStyle uint8

// Step styles.
const (
	// StepName is a name of the shape: .accuracy, .split.
	StepName StepStyle = iota
	// StepKey is a key of a keyed map, in brackets: ["smoke"].
	StepKey
	// StepNameKey is a key written as a name: .intent (Sub.NameKeys).
	StepNameKey
)

// StepStyles says, for each name of an address after "metrics"
// (split, smoke, accuracy), how its canonical form writes it. Names the
// tree does not have are StepName.
func (t *Tree) StepStyles(names []string) []StepStyle {
	out := make([]StepStyle, len(names))
	node := t.NodeShape()
	subs := append(slices.Clip(node.Subs), t.Groups...)
	var keyed *Sub
	for i, n := range names {
		if keyed != nil {
			out[i] = StepKey
			if keyed.NameKeys {
				out[i] = StepNameKey
			}
			subs = entrySubs(keyed, node)
			keyed = nil
			continue
		}
		i := slices.IndexFunc(subs, func(s *Sub) bool { return s.Name == n })
		if i < 0 {
			subs = nil
			continue
		}
		if s := subs[i]; s.Keyed {
			keyed = s
		} else {
			subs = entrySubs(s, node)
		}
	}
	return out
}

// entrySubs returns the subtrees of s's object or entries (of any kind);
// node is the node shape, for groups.
func entrySubs(s *Sub, node *Shape) []*Sub {
	if s.Shape == nil {
		return node.Subs
	}
	subs := s.Shape.Subs
	for _, v := range s.Variants {
		subs = append(slices.Clip(subs), v.Subs...)
	}
	return subs
}

// NewTree returns the descriptor of a metrics tree with the built-in
// groups (split, level, scene, core, noncore, template) and the families,
// in order. The first four must be the built-in node families (cases,
// dimension, label, latency), whose figures every node has; each other
// family has one subtree named after it (metrics.NAME…, its value in
// Node.Families[NAME]) and no node metrics. Source kinds add their groups
// with AddSourceGroup.
func NewTree(families []*Family) (*Tree, error) {
	t := &Tree{Groups: builtinGroups()}
	for i, f := range families {
		if i < len(nodeFamilies) {
			if f != nodeFamilies[i] {
				return nil, fmt.Errorf("metrics tree: family %d must be %q, not %q", i+1, nodeFamilies[i].Name, f.Name)
			}
			t.Families = append(t.Families, f)
			continue
		}
		if err := t.addFamily(f); err != nil {
			return nil, err
		}
	}
	if len(t.Families) < len(nodeFamilies) {
		return nil, fmt.Errorf("metrics tree: the families must start with cases, dimension, label and latency")
	}
	return t, nil
}

// DefaultTree is the tree of the built-in families (BuiltinFamilies),
// without source groups: what renders a report when no tree is at hand.
func DefaultTree() *Tree {
	t, err := NewTree(BuiltinFamilies())
	if err != nil {
		panic(err) // the built-in families are fixed: a test catches it
	}
	return t
}

func (t *Tree) addFamily(f *Family) error {
	if len(f.Attrs) > 0 || len(f.Subs) != 1 || f.Subs[0].Name != f.Name {
		return fmt.Errorf("metrics tree: family %q must have one subtree named %q and no node metrics", f.Name, f.Name)
	}
	if err := t.isNew(f.Name); err != nil {
		return err
	}
	t.Families = append(t.Families, f)
	return nil
}

// AddSourceGroup adds metrics.GROUP["NAME"], one node per source of kind
// (group is the kind's name, unless it is a family's: memory's nodes are
// metrics.memory_source["NAME"]). what names a source in messages.
func (t *Tree) AddSourceGroup(kind, group, what string) error {
	if err := t.isNew(group); err != nil {
		return err
	}
	t.Groups = append(t.Groups, &Sub{Name: group, Doc: "one node per " + what, Keyed: true,
		Keys: KeysSourcePrefix + kind, What: what, Always: true})
	return nil
}

// SourceGroup is the group of the metrics tree holding one node per
// source of kind (Metrics.Sources' key): the kind's name unless it was
// added under another name.
func (t *Tree) SourceGroup(kind string) string {
	for _, g := range t.Groups {
		if g.Keys == KeysSourcePrefix+kind {
			return g.Name
		}
	}
	return kind
}

func (t *Tree) isNew(name string) error {
	for _, g := range t.Groups {
		if g.Name == name {
			return fmt.Errorf("metrics tree: %q is already a group", name)
		}
	}
	if t.FamilyOf(name) != nil {
		return fmt.Errorf("metrics tree: %q is already a metric or family", name)
	}
	return nil
}

// Node metrics of the case counts family.
var caseAttrs = []Attr{
	{Name: "total", Kind: MetricCount, Doc: "cases counted"},
	{Name: "passed", Kind: MetricCount, Doc: "cases that met every expectation and condition"},
	{Name: "failed", Kind: MetricCount, Doc: "cases that missed an expectation or condition"},
	{Name: "errored", Kind: MetricCount, Doc: "cases whose call gave no usable response"},
	{Name: "accuracy", Kind: MetricRatio, Doc: "passed / (total − errored)", CI: CIWilson, CIUnit: UnitCases},
	{Name: "error_rate", Kind: MetricRatio, Doc: "errored / total", CI: CIWilson, CIUnit: UnitCases, LowerBetter: true},
}

var (
	dimCounts = []Attr{
		{Name: "expected", Kind: MetricCount, Doc: "units the expectations name"},
		{Name: "recognized", Kind: MetricCount, Doc: "units the responses hold"},
		{Name: "correct", Kind: MetricCount, Doc: "units both expected and recognised"},
		{Name: "wrong", Kind: MetricCount, Doc: "recognised units not expected: recognized − correct"},
		{Name: "precision", Kind: MetricRatio, Doc: "correct / recognized"},
		{Name: "recall", Kind: MetricRatio, Doc: "correct / expected"},
		{Name: "error_rate", Kind: MetricRatio, Doc: "wrong / recognized", LowerBetter: true},
		{Name: "f1", Kind: MetricRatio, Doc: "2·correct / (expected + recognized)"},
	}
	// dimCountsCI are the figures of a dimension itself, whose ratios have
	// bootstrap intervals over the cases (a case's contribution: correct,
	// recognized, expected); its values and types have none.
	dimCountsCI   = withCI(dimCounts, CIBootstrap, UnitCases, "precision", "recall", "error_rate", "f1")
	dimValueShape = &Shape{Attrs: dimCounts}
	dimLeafShape  = &Shape{Attrs: dimCountsCI, Subs: []*Sub{
		{Name: "values", Doc: "the same figures per value (ontology \"Person\")", Keyed: true, Shape: dimValueShape, Always: true},
	}}
	dimTypeShape  = &Shape{Attrs: append(slices.Clip(dimCounts), Attr{Name: "support", Kind: MetricCount, Doc: "units of the type expected"})}
	dimItemsShape = &Shape{Attrs: append(slices.Clip(dimCountsCI),
		Attr{Name: "out_of_scope", Kind: MetricCount, Doc: "recognised items of types outside the declared scope (not compared)"},
		Attr{Name: "macro_precision", Kind: MetricRatio, Doc: "mean of the per-type precisions (typed items: entities)"},
		Attr{Name: "macro_recall", Kind: MetricRatio, Doc: "mean of the per-type recalls"},
		Attr{Name: "macro_f1", Kind: MetricRatio, Doc: "mean of the per-type F1"},
		Attr{Name: "weighted_precision", Kind: MetricRatio, Doc: "support-weighted mean of the per-type precisions"},
		Attr{Name: "weighted_recall", Kind: MetricRatio, Doc: "support-weighted mean of the per-type recalls"},
		Attr{Name: "weighted_f1", Kind: MetricRatio, Doc: "support-weighted mean of the per-type F1"},
	), Optional: []string{"out_of_scope", "macro_precision", "macro_recall", "macro_f1", "weighted_precision", "weighted_recall", "weighted_f1"},
		Subs: []*Sub{
			dimLeafShape.Subs[0],
			{Name: "types", Doc: "the same figures per type (entity \"city\"), with support", Keyed: true, Shape: dimTypeShape},
		}}
	dimCaseShape = &Shape{Attrs: []Attr{
		{Name: "total", Kind: MetricCount, Doc: "cases that annotate the dimension"},
		{Name: "correct", Kind: MetricCount, Doc: "cases that met all its expectations"},
		{Name: "accuracy", Kind: MetricRatio, Doc: "correct / total", CI: CIWilson, CIUnit: UnitCases},
	}}
	labelShape = &Shape{Attrs: []Attr{
		{Name: "total", Kind: MetricCount, Doc: "cases that expect a label"},
		{Name: "accuracy", Kind: MetricRatio, Doc: "cases whose first prediction is the expected label / total", CI: CIWilson, CIUnit: UnitCases},
		{Name: "macro_precision", Kind: MetricRatio, Doc: "mean of the per-label precisions", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "macro_recall", Kind: MetricRatio, Doc: "mean of the per-label recalls", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "macro_f1", Kind: MetricRatio, Doc: "mean of the per-label F1", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "micro_f1", Kind: MetricRatio, Doc: "2Σtp / (2Σtp + Σfp + Σfn)", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "weighted_f1", Kind: MetricRatio, Doc: "support-weighted mean of the per-label F1", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "top_k_accuracy", Kind: MetricRatio, Doc: "cases whose expected label is among the first k predictions / total", CI: CIWilson, CIUnit: UnitCases},
		{Name: "recognition_rate", Kind: MetricRatio, Doc: "(exact + fuzzy) / total, fuzzy being in the top k", CI: CIWilson, CIUnit: UnitCases},
	}, Subs: []*Sub{
		{Name: "labels", Doc: "per label", Keyed: true, Always: true, Shape: &Shape{Attrs: []Attr{
			{Name: "precision", Kind: MetricRatio, Doc: "tp / (tp + fp)", CI: CIWilson, CIUnit: UnitCases},
			{Name: "recall", Kind: MetricRatio, Doc: "tp / (tp + fn)", CI: CIWilson, CIUnit: UnitCases},
			{Name: "f1", Kind: MetricRatio, Doc: "2tp / (2tp + fp + fn)", CI: CIBootstrap, CIUnit: UnitCases},
			{Name: "support", Kind: MetricCount, Doc: "cases expecting the label: tp + fn"},
		}}},
	}}
	latencyAttrs = []Attr{
		{Name: "count", Kind: MetricCount, Doc: "calls timed (errored calls are not)"},
		{Name: "mean_ms", Kind: MetricMillis, Doc: "mean latency"},
		{Name: "p50_ms", Kind: MetricMillis, Doc: "median latency"},
		{Name: "p90_ms", Kind: MetricMillis, Doc: "90th percentile latency"},
		{Name: "p95_ms", Kind: MetricMillis, Doc: "95th percentile latency"},
		{Name: "p99_ms", Kind: MetricMillis, Doc: "99th percentile latency"},
		{Name: "max_ms", Kind: MetricMillis, Doc: "slowest call"},
	}
	latencyShape = &Shape{Attrs: latencyAttrs, Subs: []*Sub{
		{Name: "bucket", Doc: "per input length (characters or words): " + fmt.Sprint(LatencyBuckets), Keyed: true, Always: true,
			Order: LatencyBuckets, Shape: &Shape{Attrs: latencyAttrs}, Props: []string{"count", "mean_ms", "p95_ms"}},
	}}
)

// The built-in metric families. assert's accumulators fill them.
var (
	CasesFamily = &Family{Name: "cases", Attrs: caseAttrs,
		Props: []string{"total", "passed", "failed", "errored", "accuracy", "error_rate"}}
	DimensionFamily = &Family{Name: "dimension", Subs: []*Sub{{
		Name: "dimension", Doc: "per leaf, items or case dimension of the suite's schema", Keyed: true,
		Keys: KeysDimension, What: "dimension", NameKeys: true, Shape: dimLeafShape, Variants: map[string]*Shape{KindCase: dimCaseShape, KindItems: dimItemsShape},
		Props: []string{"precision", "recall", "f1", "error_rate", "accuracy"},
	}}}
	LabelFamily = &Family{Name: "label", Subs: []*Sub{{
		Name: "label", Doc: "per label dimension (intent, domain) of the suite's schema", Keyed: true,
		Keys: KeysLabel, What: "label dimension", NameKeys: true, Shape: labelShape,
		Props:    []string{"accuracy", "macro_precision", "macro_recall", "macro_f1", "micro_f1", "weighted_f1", "top_k_accuracy", "recognition_rate"},
		PropWhen: map[string]string{"top_k_accuracy": "k", "recognition_rate": "k"},
	}}}
	LatencyFamily = &Family{Name: "latency", Absent: "latency counts the calls that got a response and were not answered from the cache: a run whose every response came from --cache has none", Subs: []*Sub{{
		Name: "latency", Doc: "call latency, overall and per input length", Shape: latencyShape,
		Props: []string{"count", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"},
	}}}
)

// nodeFamilies are the families whose figures are fields of every Node.
var nodeFamilies = []*Family{CasesFamily, DimensionFamily, LabelFamily, LatencyFamily}

// builtinGroups returns the root's built-in groups.
func builtinGroups() []*Sub {
	return []*Sub{
		{Name: "split", Doc: "one node per split", Keyed: true, Keys: KeysSplit, What: "split", Always: true, Props: []string{"accuracy"}},
		{Name: "level", Doc: "one node per template level", Keyed: true, Keys: KeysLevel, What: "template level", Always: true, Props: []string{"accuracy"}},
		{Name: "scene", Doc: "one node per scene path prefix (\"出行/天气\")", Keyed: true, Keys: KeysScene, What: "scene path", Always: true, Props: []string{"accuracy"}},
		{Name: "core", Doc: "the core cases", Props: []string{"accuracy"}},
		{Name: "noncore", Doc: "the cases that are not core", Props: []string{"accuracy"}},
		{Name: "template", Doc: "one node per template", Keyed: true, Keys: KeysTemplate, What: "template", Always: true},
	}
}

// withCI returns a copy of attrs whose attributes named in names have the
// interval method m over unit.
func withCI(attrs []Attr, m CIMethod, unit string, names ...string) []Attr {
	out := slices.Clone(attrs)
	for i := range out {
		if slices.Contains(names, out[i].Name) {
			out[i].CI, out[i].CIUnit = m, unit
		}
	}
	return out
}
