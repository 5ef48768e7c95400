package metrics

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
)

// Unit is one countable unit of a leaf or items dimension.
//
// For a leaf dimension, Key is the leaf's canonical path and Value the
// canonical JSON text of its value (`"Person"`, `200`). For an items
// dimension, Key is the items path and Value the canonical JSON text of the
// compared keys of one object. Two units are the same unit when both fields
// are equal byte for byte, so callers must canonicalise (numbers, key order)
// before building them.
//
// Value also names the unit's row in the per-value breakdown, in display
// form: a JSON string is shown unquoted (`Person`), anything else as its
// JSON text. A string and a non-string with the same display form (`"1"`
// and `1`) share a row there; the dimension's own totals keep them apart.
//
// In a typed items dimension (entities) Key is the canonical JSON text of
// the item's type (its schema's type key, rasa's "entity"), and a tally
// made by TypedTally counts units per type as well.
type Unit struct {
	Key   string
	Value string
}

// dimCount holds the raw counts of a dimension or of one of its values.
type dimCount struct {
	expected, recognized, correct int
}

func (c *dimCount) add(o dimCount) {
	c.expected += o.expected
	c.recognized += o.recognized
	c.correct += o.correct
}

// smallCase is the size up to which Tally.Case matches units by scanning
// instead of building a map.
const smallCase = 16

// DimAcc accumulates a leaf or items dimension (the IAO corpus-factory write-up §2.1: ontology,
// attribute, relation, behaviour), one case at a time. The zero value is
// ready to use and reports an empty kind.
type DimAcc struct {
	kind  string
	all   dimCount
	byVal map[string]*valCount // keyed by the raw Value text
	// recent holds the values looked up last, tried before the map: a
	// dimension's cases name the same few values over and over.
	recent [4]*valCount
	next   int
	byType map[string]*dimCount // keyed by the raw Type text
	// outOfScope counts recognised items of types outside the declared
	// scope (neither charged nor compared).
	outOfScope int
	// typed is set once a typed tally was added (entities).
	typed bool
	// cases tallies the cases' contributions (DimContribution), for the
	// intervals; nil before the first case.
	cases *infer.Tally
}

// NewDimAcc returns an empty accumulator for a dimension of the given kind,
// schema.KindLeaf or schema.KindItems; the kind is copied into results.
func NewDimAcc(kind string) *DimAcc {
	return &DimAcc{kind: kind}
}

// valCount is a value's counts, with the value (a copy of its own).
type valCount struct {
	value string
	dimCount
}

func (d *DimAcc) val(v string) *dimCount {
	for _, e := range d.recent {
		if e != nil && e.value == v {
			return &e.dimCount
		}
	}
	if d.byVal == nil {
		d.byVal = make(map[string]*valCount)
	}
	e := d.byVal[v]
	if e == nil {
		// A unit's text may be a slice of a larger buffer; the map keeps
		// a copy of its own.
		e = &valCount{value: strings.Clone(v)}
		d.byVal[e.value] = e
	}
	d.recent[d.next] = e
	d.next = (d.next + 1) % len(d.recent)
	return &e.dimCount
}

// Tally is one case's counts in a dimension, overall and per value (see
// Case), worked out once so that it can be added to several
// accumulators (a case counts in every node of the metrics tree it belongs
// to) at the cost of one lookup per distinct value.
type Tally struct {
	all    dimCount
	values []valueCount
	index  map[string]int // position in values, once there are many
	// types counts typed units per type (few: scanned); typed is set by
	// TypedTally.
	types []valueCount
	typed bool
	// OutOfScope is the number of recognised items outside the scope.
	OutOfScope int
}

// tallyScan is the number of distinct values a tally finds by scanning;
// past it, a map.
const tallyScan = 32

type valueCount struct {
	value string
	dimCount
}

// TallyBuffer lends tallies their value lists from one allocation.
type TallyBuffer []valueCount

// NewTallyBuffer returns a buffer for tallies of n units in all.
func NewTallyBuffer(n int) TallyBuffer { return make(TallyBuffer, 0, n) }

// Tally returns an empty tally with room for the values of n units.
func (b *TallyBuffer) Tally(n int) Tally {
	l := len(*b)
	if l+n > cap(*b) {
		return Tally{}
	}
	*b = (*b)[:l+n]
	return Tally{values: (*b)[l : l : l+n]}
}

// TypedTally returns an empty tally with room for the values and the
// types of n units (2n entries of the buffer).
func (b *TallyBuffer) TypedTally(n int) Tally {
	t := b.Tally(n)
	u := b.Tally(n)
	t.types, t.typed = u.values, true
	return t
}

func findCount(list *[]valueCount, v string) *dimCount {
	for i := range *list {
		if (*list)[i].value == v {
			return &(*list)[i].dimCount
		}
	}
	*list = append(*list, valueCount{value: v})
	return &(*list)[len(*list)-1].dimCount
}

// typ returns the counts of unit u's type, or nil in an untyped tally.
func (t *Tally) typ(u Unit) *dimCount {
	if !t.typed {
		return nil
	}
	return findCount(&t.types, u.Key)
}

func (t *Tally) value(v string) *dimCount {
	if t.index != nil {
		if i, ok := t.index[v]; ok {
			return &t.values[i].dimCount
		}
	} else {
		for i := range t.values {
			if t.values[i].value == v {
				return &t.values[i].dimCount
			}
		}
	}
	t.values = append(t.values, valueCount{value: v})
	if len(t.values) > tallyScan {
		if t.index == nil {
			t.index = make(map[string]int, 2*tallyScan)
			for i := range t.values {
				t.index[t.values[i].value] = i
			}
		}
		t.index[v] = len(t.values) - 1
	}
	return &t.values[len(t.values)-1].dimCount
}

// Case sets t to the counts of one case, reusing its memory: the units its
// expectations in this dimension name, and the units the response holds in
// it. Correct units are the multiset intersection of the two (a unit
// expected twice and recognised once is correct once and missed once);
// every other recognised unit is wrong. Per value, expected units count
// under their own value and recognised units under theirs, so a Person
// recognised where Place was expected is a wrong Person and a missed Place.
func (t *Tally) Case(expected, recognized []Unit) {
	t.all, t.values, t.index, t.types = dimCount{}, t.values[:0], nil, t.types[:0]
	for _, u := range expected {
		t.value(u.Value).expected++
		if c := t.typ(u); c != nil {
			c.expected++
		}
	}
	t.all.expected = len(expected)
	t.all.recognized = len(recognized)
	if len(expected) <= smallCase {
		var usedBuf [smallCase]bool
		used := usedBuf[:len(expected)]
		for _, u := range recognized {
			c, ty := t.value(u.Value), t.typ(u)
			c.recognized++
			for i, e := range expected {
				if !used[i] && e == u {
					used[i] = true
					c.correct++
					t.all.correct++
					if ty != nil {
						ty.correct++
					}
					break
				}
			}
			if ty != nil {
				ty.recognized++
			}
		}
		return
	}
	need := make(map[Unit]int, len(expected))
	for _, u := range expected {
		need[u]++
	}
	for _, u := range recognized {
		c, ty := t.value(u.Value), t.typ(u)
		c.recognized++
		if ty != nil {
			ty.recognized++
		}
		if need[u] > 0 {
			need[u]--
			c.correct++
			t.all.correct++
			if ty != nil {
				ty.correct++
			}
		}
	}
}

// Totals returns the case's units in the dimension: its contribution
// (DimContribution).
func (t *Tally) Totals() (correct, recognized, expected int) {
	return t.all.correct, t.all.recognized, t.all.expected
}

// Add adds a case's tally to d.
func (d *DimAcc) Add(t *Tally) {
	if d.cases == nil {
		d.cases = infer.NewTally(3)
	}
	d.cases.Add(float64(t.all.correct), float64(t.all.recognized), float64(t.all.expected))
	d.all.add(t.all)
	for i := range t.values {
		d.val(t.values[i].value).add(t.values[i].dimCount)
	}
	for i := range t.types {
		d.typ(t.types[i].value).add(t.types[i].dimCount)
	}
	d.outOfScope += t.OutOfScope
	d.typed = d.typed || t.typed
}

func (d *DimAcc) typ(v string) *dimCount {
	if d.byType == nil {
		d.byType = make(map[string]*dimCount)
	}
	c := d.byType[v]
	if c == nil {
		c = &dimCount{}
		d.byType[strings.Clone(v)] = c
	}
	return c
}

// Merge adds o's cases to d, as if d had been fed them too. o is left
// unchanged; a nil o is a no-op.
func (d *DimAcc) Merge(o *DimAcc) {
	if o == nil {
		return
	}
	if o == d {
		c := &DimAcc{}
		c.Merge(o)
		o = c
	}
	if d.kind == "" {
		d.kind = o.kind
	}
	if o.cases != nil {
		if d.cases == nil {
			d.cases = infer.NewTally(3)
		}
		d.cases.Merge(o.cases)
	}
	d.all.add(o.all)
	for v, c := range o.byVal {
		d.val(v).add(c.dimCount)
	}
	for v, c := range o.byType {
		d.typ(v).add(*c)
	}
	d.outOfScope += o.outOfScope
	d.typed = d.typed || o.typed
}

// Intervals sets the bootstrap intervals of the dimension's precision,
// recall, error rate and F1 in out (what Result gave) over its cases
// (DimContribution), drawn with o.
func (d *DimAcc) Intervals(out *schema.Dimension, o infer.Options) {
	DimContribution.Set(d.cases, o, out.Precision, out.Recall, out.ErrorRate, out.F1)
}

// Result returns the dimension's figures, with one entry in Values per
// value display form (nil when no unit was seen). Ratios with a zero
// denominator are present and read "n/a".
func (d *DimAcc) Result() *schema.Dimension {
	out := dimension(d.kind, d.all)
	if d.typed {
		n := d.outOfScope
		out.OutOfScope = &n
	}
	d.types(out)
	if len(d.byVal) == 0 {
		return out
	}
	raws := make([]string, 0, len(d.byVal))
	for v := range d.byVal {
		raws = append(raws, v)
	}
	sort.Strings(raws) // fixed order, so collisions merge deterministically
	merged := make(map[string]*dimCount, len(raws))
	for _, v := range raws {
		name := DisplayValue(v)
		c := merged[name]
		if c == nil {
			c = &dimCount{}
			merged[name] = c
		}
		c.add(d.byVal[v].dimCount)
	}
	out.Values = make(map[string]*schema.Dimension, len(merged))
	for name, c := range merged {
		out.Values[name] = dimension(d.kind, *c)
	}
	return out
}

func dimension(kind string, c dimCount) *schema.Dimension {
	wrong := c.recognized - c.correct
	p := schema.R(c.correct, c.recognized)
	r := schema.R(c.correct, c.expected)
	e := schema.R(wrong, c.recognized)
	f := schema.R(2*c.correct, c.expected+c.recognized)
	return &schema.Dimension{
		Kind:       kind,
		Expected:   c.expected,
		Recognized: c.recognized,
		Correct:    c.correct,
		Wrong:      wrong,
		Precision:  &p,
		Recall:     &r,
		ErrorRate:  &e,
		F1:         &f,
	}
}

// DisplayValue returns the display form of a unit value: a JSON string
// literal unquoted, anything else (numbers, objects, arrays, text that is
// not JSON) unchanged.
func DisplayValue(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var s string
		if err := json.Unmarshal([]byte(v), &s); err == nil {
			return s
		}
	}
	return v
}

// CaseDimAcc accumulates a case dimension (the IAO corpus-factory write-up §2.1.5: an IAO intent
// is right only when apps, content, content_op and data_rel all are): one
// unit per case, correct when every expectation of the dimension is met.
// The zero value is ready to use.
type CaseDimAcc struct {
	total, correct int
}

// Add records one case of the dimension.
func (c *CaseDimAcc) Add(correct bool) {
	c.total++
	if correct {
		c.correct++
	}
}

// Merge adds o's cases to c. A nil o is a no-op.
func (c *CaseDimAcc) Merge(o *CaseDimAcc) {
	if o == nil {
		return
	}
	t, k := o.total, o.correct
	c.total += t
	c.correct += k
}

// Result returns total, correct and accuracy = correct / total.
func (c *CaseDimAcc) Result() *schema.Dimension {
	acc := schema.R(c.correct, c.total)
	return &schema.Dimension{
		Kind:     schema.KindCase,
		Total:    c.total,
		Correct:  c.correct,
		Accuracy: &acc,
	}
}
