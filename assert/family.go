package assert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Family is one metric family: its part of the metrics tree's descriptor
// (spec.Suite.Tree) and the accumulator that fills that part in every
// node. The built-in families are DefaultFamilies; a new one is a file with
// a Family and its Acc, and a line in the Families a program passes down
// (docs/architecture.md).
type Family interface {
	// Shape is the family's part of the descriptor: what its figures are
	// called, their kinds and docs. Its Name identifies the family.
	Shape() *schema.Family
	// NewAcc returns an empty accumulator for one node of a run of s, or
	// nil when the family does not apply to s (a dialogue family in a
	// suite without conversations): the family then has no figures in
	// any node, no report section and no JUnit property for that suite.
	NewAcc(s *spec.Suite) Acc
}

// Acc accumulates one family's figures for one node of the tree.
type Acc interface {
	// Add counts one case. It runs for every node the case counts in
	// (about seven), so it must not allocate once warm.
	Add(o *Observation)
	// Merge adds the cases of o, an Acc of the same family, as if this
	// Acc had been fed them too (forked collectors in eval, shards).
	Merge(o Acc)
	// Fill writes the family's figures into the node: a field of Node for
	// the built-in families, Node.Families[name] (SetFamily) for others.
	Fill(n *schema.Node)
}

// Observation is one case as accumulators see it: the result, its
// evaluation (nil when the suite's schema has no dimensions or the case
// errored) and what is worked out once for every node.
type Observation struct {
	Result *schema.Result
	Eval   *Evaluation
	// Latency is the call's latency with its input length.
	Latency metrics.Sample
	// memo holds what families derived from the case (Memo).
	memo []memoEntry
}

type memoEntry struct {
	key Family
	val any
}

// Memo returns what compute derives from the case, computed once for all
// the nodes the case counts in (per-case work such as tokenising a reply
// then costs once, not once per node). key is the family asking.
func (o *Observation) Memo(key Family, compute func() any) any {
	for _, m := range o.memo {
		if m.key == key {
			return m.val
		}
	}
	v := compute()
	o.memo = append(o.memo, memoEntry{key, v})
	return v
}

// SetFamily stores the value of a family in the node, for
// the report (JSON member named after the family) and thresholds.
func SetFamily(n *schema.Node, name string, v any) {
	if n.Families == nil {
		n.Families = map[string]any{}
	}
	n.Families[name] = v
}

// Families are metric families in the order of the metrics tree: the
// first four the node families (cases, dimension, label, latency).
type Families []Family

// DefaultFamilies returns the built-in families defined in this package.
// The built-in families defined in packages of their own (assert/usage,
// assert/coverage) join them in extensions.Default, which orders them all
// with InOrder; a new family is a file here with a line in this list, or
// a package of its own with a line there. Its shape is its own (Shape):
// no other list need name it.
func DefaultFamilies() Families {
	return Families{casesFamily{}, dimensionFamily{}, labelFamily{}, latencyFamily{},
		dialogueFamily{}, repeatFamily{}, memoryFamily{}, rankingFamily{}, ratingsFamily{}, robustnessFamily{}, rubricFamily{}, textFamily{},
		calibrationFamily{}, oosFamily{}, scenarioFamily{}, toolsFamily{}, taskFamily{}}
}

// InOrder returns every family of fams, those whose names order has
// first, in order's order, then the others in their own order: a family
// is never dropped and none is added. extensions.Default orders the
// built-in families by schema.BuiltinFamilies, the order the reports show
// them in; a family whose shape schema does not list (one defined in a
// single file, its shape beside its accumulator) follows them.
func InOrder(order []*schema.Family, fams Families) Families {
	out := make(Families, 0, len(fams))
	for _, sh := range order {
		if j := fams.index(sh.Name); j >= 0 {
			out = append(out, fams[j])
		}
	}
	for _, f := range fams {
		if !slices.ContainsFunc(order, func(sh *schema.Family) bool { return sh.Name == f.Shape().Name }) {
			out = append(out, f)
		}
	}
	return out
}

// Ordered returns fams in the order of the shapes (a tree's families),
// each taken by name; a shape none of fams has gets a family that gives
// no figures (its node values are absent, as for a family that does not
// apply to the suite).
func Ordered(shapes []*schema.Family, fams Families) Families {
	out := make(Families, len(shapes))
	for i, sh := range shapes {
		out[i] = absentFamily{sh}
		if j := fams.index(sh.Name); j >= 0 {
			out[i] = fams[j]
		}
	}
	return out
}

// absentFamily stands for a family of the tree the collector was not
// given: it has its shape and no figures.
type absentFamily struct{ shape *schema.Family }

func (f absentFamily) Shape() *schema.Family { return f.shape }
func (absentFamily) NewAcc(*spec.Suite) Acc  { return nil }

// Shapes returns the families' parts of the metrics tree, in order: what
// spec.Options.Families takes.
func (fs Families) Shapes() []*schema.Family {
	out := make([]*schema.Family, len(fs))
	for i, f := range fs {
		out[i] = f.Shape()
	}
	return out
}

// index returns the index of the family named name, or -1.
func (fs Families) index(name string) int {
	for i, f := range fs {
		if f.Shape().Name == name {
			return i
		}
	}
	return -1
}

// NodeKey names a node of the metrics tree: the whole run (the zero
// value), a single group node (Group "core") or an entry of a keyed group
// (Group "split", Key "smoke").
type NodeKey struct {
	Group, Key string
}

// AddExternal merges acc, an accumulator of the collector's family named
// family, filled from somewhere other than calls (a ratings sheet), into
// the node at. Like Merge, it may be called in any order.
func (c *Collector) AddExternal(family string, at NodeKey, acc Acc) error {
	i := c.fams.index(family)
	if i < 0 {
		return fmt.Errorf("the collector has no metric family %q", family)
	}
	n, err := c.nodeAt(at)
	if err != nil {
		return err
	}
	if n.accs[i] == nil {
		return fmt.Errorf("the metric family %q does not apply to suite %q", family, c.suite.Name)
	}
	n.accs[i].Merge(acc)
	return nil
}

// nodeAt returns the node at k, making it when it is new.
func (c *Collector) nodeAt(k NodeKey) (*nodeAcc, error) {
	switch k.Group {
	case "":
		return c.root, nil
	case "core":
		return c.core, nil
	case "noncore":
		return c.noncore, nil
	}
	if m := c.groupMap(k.Group); m != nil {
		return c.get(m, k.Key), nil
	}
	if g := c.suite.Tree.Group(k.Group); g != nil && strings.HasPrefix(g.Keys, schema.KeysSourcePrefix) {
		key := sourceKey{strings.TrimPrefix(g.Keys, schema.KeysSourcePrefix), k.Key}
		n := c.sources[key]
		if n == nil {
			n = c.newNode()
			c.sources[key] = n
		}
		return n, nil
	}
	return nil, fmt.Errorf("the metrics tree has no group %q", k.Group)
}

func (c *Collector) groupMap(name string) map[string]*nodeAcc {
	switch name {
	case "split":
		return c.split
	case "level":
		return c.level
	case "scene":
		return c.scene
	case "template":
		return c.template
	}
	return nil
}
