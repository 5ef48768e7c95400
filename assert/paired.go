package assert

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Paired comparisons of two runs (docs/statistics.md, "Comparing two
// runs"; docs/architecture.md, "Contributions") test a figure on the
// units both runs have, unit by unit: a case in both, a conversation by
// its script and repetition, a repeated script by its id. A collector
// told to (Collector.RecordUnits) keeps, besides its metrics, every
// unit's contribution to each figure a comparison tests: a few numbers a
// unit, summed over the unit's results (a conversation's turns), one set
// per node of the Pairing (the run's root and the nodes the suite's
// thresholds name). The comparison (assert/compare) joins two runs'
// Units by unit and tests each figure on the joined contributions.
//
// Memory: a unit is a 64-bit hash of its key (maphash, with a seed the
// two runs share) and the index of its numbers in a table of the
// distinct vectors of numbers the run has, so a million cases whose
// contributions take a few dozen distinct values hold about 30 bytes
// each; a continuous per-case score (a text metric) adds its own vector.
// Two different keys of one run with the same hash (about one chance in
// 10¹⁰ for a million units) would count as one unit.

// The units of paired comparisons, beyond schema's: a script's
// repetitions are gathered into the script (repeat's pass@1).
const unitRepetitions = "repetitions"

// Pairing says what the collectors of the runs to compare record: the
// nodes whose figures are compared (the root first), the hash seed of
// unit keys and the index of label names, both shared by the runs so
// their units and confusion cells join. It is safe for concurrent use by
// the collectors and forks fed from it.
type Pairing struct {
	nodes  []NodeKey
	seed   maphash.Seed
	mu     sync.Mutex
	labels map[string]int
	names  []string
}

// NewPairing returns the pairing of runs whose figures are compared at
// the root and at nodes (duplicates and the root are dropped).
func NewPairing(nodes []NodeKey) *Pairing {
	p := &Pairing{nodes: []NodeKey{{}}, seed: maphash.MakeSeed(), labels: map[string]int{}}
	for _, n := range nodes {
		if !slices.Contains(p.nodes, n) {
			p.nodes = append(p.nodes, n)
		}
	}
	return p
}

// Nodes are the compared nodes, the root first.
func (p *Pairing) Nodes() []NodeKey { return p.nodes }

// Key returns the hash a unit's key is kept as.
func (p *Pairing) Key(s string) uint64 { return maphash.String(p.seed, s) }

// labelIndex returns the index of label l, numbered on first sight.
func (p *Pairing) labelIndex(l string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.labels[l]
	if !ok {
		i = len(p.names)
		p.labels[l] = i
		p.names = append(p.names, l)
	}
	return i
}

// Labels returns the label names seen so far, by index.
func (p *Pairing) Labels() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.names)
}

// LabelIndex returns the index of label l, or −1 when no run had it.
func (p *Pairing) LabelIndex(l string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i, ok := p.labels[l]; ok {
		return i
	}
	return -1
}

// nodeAddr is the canonical address of node k.
func nodeAddr(k NodeKey) string {
	switch k.Group {
	case "":
		return "metrics"
	case "core", "noncore":
		return "metrics." + k.Group
	}
	return groupAddr(k.Group, k.Key)
}

// inNode reports whether a result of source kind/name counts in node k,
// as Collector.nodesOf places it.
func inNode(s *spec.Suite, r *schema.Result, kind, name string, k NodeKey) bool {
	switch k.Group {
	case "":
		return true
	case "core":
		return r.Core
	case "noncore":
		return !r.Core
	case "split":
		return slices.Contains(r.Split, k.Key)
	case "level":
		return r.Level == k.Key
	case "scene":
		scene := strings.Join(r.Scene, "/")
		return scene == k.Key || strings.HasPrefix(scene, k.Key+"/")
	case "template":
		return kind == schema.KindTemplate && name == k.Key
	}
	if g := s.Tree.Group(k.Group); g != nil {
		src, ok := strings.CutPrefix(g.Keys, schema.KeysSourcePrefix)
		return ok && kind == src && name == k.Key
	}
	return false
}

// FigureKind says how a compared figure is tested.
type FigureKind int

// The kinds of Figure.
const (
	// PassFail: each unit passes or not (or does not count); McNemar's
	// exact test on the units counted in both runs.
	PassFail FigureKind = iota
	// Sums: a function of the units' numbers summed (a ratio, an F1);
	// the paired bootstrap.
	Sums
	// Mean: the mean of a value per unit; the sign-flip permutation
	// test on the units with a value in both runs.
	Mean
	// LabelAverage: a label dimension's average (macro, micro or
	// weighted) of its confusion cells; the paired bootstrap.
	LabelAverage
)

// Figure is one figure a paired comparison tests: where its numbers are
// in a unit's vector and how they make the figure.
type Figure struct {
	// Addr is the figure's canonical address (metrics.accuracy,
	// metrics.split["smoke"].dimension.slots.f1).
	Addr string
	// Unit is what one unit is (schema.UnitCases…).
	Unit string
	Kind FigureKind
	// Off and Width locate the figure's numbers in a unit's vector; the
	// first counts the unit's results that counted (0: the unit does
	// not count towards the figure).
	Off, Width int
	// Pass (PassFail) reads a unit's numbers: whether it passed, and
	// whether it counts.
	Pass func(v []float64) (pass, counted bool)
	// Stat (Sums) is the figure of the numbers summed over the units.
	Stat func(sums []float64) float64
	// Value (Mean) is a unit's value, false when it has none.
	Value func(v []float64) (float64, bool)
	// Average (LabelAverage) is which average: 0 macro precision, 1 macro
	// recall, 2 macro F1, 3 micro F1, 4 weighted F1. The numbers are
	// (count, expected label, predicted label), labels as indexes of
	// the Pairing (predicted −1: none); Fixed are the dimension's
	// declared labels (nil: none declared).
	Average int
	Fixed   []string
}

// contrib is one family object's contribution to a unit (a dimension's,
// a conversation's): Width numbers, the first of which counts the
// results added, summed over the unit's results; figs are its figures,
// their Off relative to the contribution and Addr to the node.
type contrib struct {
	unit  string
	width int
	// add sets v (zeroed, Width long) to what o adds; false when o does
	// not count here.
	add  func(o *Observation, v []float64) bool
	figs []Figure
	// fold, for a contribution to repetitions (unit "repetitions"),
	// turns a repetition's summed numbers into what it adds to its
	// script's (the numbers the figures read).
	fold func(rep, script []float64)
}

// pairedFamily is a family some of whose figures paired comparisons
// test (paired_figures.go).
type pairedFamily interface {
	pairedContribs(s *spec.Suite, p *Pairing) []contrib
}

// unitKind is what a recorder keeps of one unit kind: its contributions
// and their offsets in a node's part of the vector, the width of that
// part, and the units.
type unitKind struct {
	unit    string
	contrib []contrib
	off     []int
	width   int // per node
}

// unitKeyOf returns the key of r's unit of kind unit, "" when r is not
// part of one.
func unitKeyOf(r *schema.Result, unit string) string {
	switch unit {
	case schema.UnitCases:
		return schema.KeyOf(r.ID, r.Repeat)
	case unitRepetitions:
		if r.Repeat < 1 {
			return ""
		}
		return schema.KeyOf(r.ScriptID(), r.Repeat)
	}
	// A conversation, memory case or scenario run: its script and
	// repetition, not its session id, which differs between runs.
	if r.Turn < 1 || r.Script == "" {
		return ""
	}
	return schema.KeyOf(r.Script, r.Repeat)
}

// unitStore keeps one run's units of one kind: each unit's key hash and
// the index of its vector in a table of distinct vectors.
type unitStore struct {
	width int
	units map[uint64]uint32
	vecs  []float64 // vector i at vecs[i·width:(i+1)·width]
	index map[string]uint32
	key   []byte
	// parents maps a repetition's hash to its script's hash.
	parents map[uint64]uint64
}

func newUnitStore(width int) *unitStore {
	return &unitStore{width: width, units: map[uint64]uint32{}, index: map[string]uint32{}}
}

// intern returns the index of vector v, added when new (−0 is 0).
func (u *unitStore) intern(v []float64) uint32 {
	u.key = u.key[:0]
	for _, x := range v {
		if x == 0 {
			x = 0
		}
		u.key = binary.LittleEndian.AppendUint64(u.key, math.Float64bits(x))
	}
	if id, ok := u.index[string(u.key)]; ok {
		return id
	}
	id := uint32(len(u.vecs) / max(u.width, 1))
	u.index[string(u.key)] = id
	for _, x := range v {
		if x == 0 {
			x = 0
		}
		u.vecs = append(u.vecs, x)
	}
	return id
}

func (u *unitStore) vec(id uint32) []float64 {
	return u.vecs[int(id)*u.width : (int(id)+1)*u.width : (int(id)+1)*u.width]
}

// add adds v to unit h's vector (scratch: a buffer of width).
func (u *unitStore) add(h uint64, v, scratch []float64) {
	if id, ok := u.units[h]; ok {
		copy(scratch, u.vec(id))
		for i, x := range v {
			scratch[i] += x
		}
		v = scratch
	}
	u.units[h] = u.intern(v)
}

// unitRecorder is a collector's record of its units (RecordUnits).
type unitRecorder struct {
	suite   *spec.Suite
	p       *Pairing
	kinds   []*unitKind
	stores  []*unitStore
	row     []float64 // scratch: a unit's vector
	sum     []float64 // scratch: a vector plus another
	part    []float64 // scratch: one contribution's numbers
	members []bool
}

// newUnitRecorder lists the contributions of fams over s.
func newUnitRecorder(s *spec.Suite, fams Families, p *Pairing) *unitRecorder {
	u := &unitRecorder{suite: s, p: p, members: make([]bool, len(p.nodes))}
	byUnit := map[string]*unitKind{}
	for _, f := range fams {
		pf, ok := f.(pairedFamily)
		if !ok {
			continue
		}
		for _, c := range pf.pairedContribs(s, p) {
			k := byUnit[c.unit]
			if k == nil {
				k = &unitKind{unit: c.unit}
				byUnit[c.unit] = k
				u.kinds = append(u.kinds, k)
			}
			k.contrib = append(k.contrib, c)
			k.off = append(k.off, k.width)
			k.width += c.width
		}
	}
	wmax := 0
	for _, k := range u.kinds {
		w := k.width * len(p.nodes)
		u.stores = append(u.stores, newUnitStore(w))
		wmax = max(wmax, w)
	}
	u.row, u.sum = make([]float64, wmax), make([]float64, wmax)
	return u
}

// fork returns an empty recorder of the same contributions.
func (u *unitRecorder) fork() *unitRecorder {
	f := *u
	f.stores = make([]*unitStore, len(u.stores))
	for i, st := range u.stores {
		f.stores[i] = newUnitStore(st.width)
	}
	f.row, f.sum = make([]float64, len(u.row)), make([]float64, len(u.sum))
	f.part, f.members = nil, make([]bool, len(u.members))
	return &f
}

// add records what observation o (source kind/name) contributes to its
// units.
func (u *unitRecorder) add(o *Observation, kind, name string) {
	r := o.Result
	for j, n := range u.p.nodes {
		u.members[j] = inNode(u.suite, r, kind, name, n)
	}
	for ki, k := range u.kinds {
		key := unitKeyOf(r, k.unit)
		if key == "" {
			continue
		}
		row := u.row[:k.width*len(u.p.nodes)]
		clear(row)
		any := false
		for ci, c := range k.contrib {
			if cap(u.part) < c.width {
				u.part = make([]float64, c.width)
			}
			part := u.part[:c.width]
			clear(part)
			if !c.add(o, part) {
				continue
			}
			for j, in := range u.members {
				if in {
					copy(row[j*k.width+k.off[ci]:], part)
					any = true
				}
			}
		}
		if !any {
			continue
		}
		st := u.stores[ki]
		h := u.p.Key(key)
		st.add(h, row, u.sum[:len(row)])
		if k.unit == unitRepetitions {
			if st.parents == nil {
				st.parents = map[uint64]uint64{}
			}
			st.parents[h] = u.p.Key(r.ScriptID())
		}
	}
}

// merge adds the units o recorded (a fork fed other results).
func (u *unitRecorder) merge(o *unitRecorder) {
	for i, st := range o.stores {
		dst := u.stores[i]
		for h, id := range st.units {
			dst.add(h, st.vec(id), u.sum[:dst.width])
		}
		for h, p := range st.parents {
			if dst.parents == nil {
				dst.parents = map[uint64]uint64{}
			}
			dst.parents[h] = p
		}
	}
}

// Units is what a run recorded for paired comparisons: its units of each
// kind with their numbers, and the figures the numbers make.
type Units struct {
	p       *Pairing
	figures []Figure
	stores  map[string]*unitStore
}

// Pairing is the pairing the units were recorded for.
func (u *Units) Pairing() *Pairing { return u.p }

// Figures lists the figures of the run's units, node by node (the
// Pairing's order), each node's in the families' order.
func (u *Units) Figures() []Figure { return u.figures }

// Len is the number of units of kind unit.
func (u *Units) Len(unit string) int {
	if st := u.stores[unit]; st != nil {
		return len(st.units)
	}
	return 0
}

// Each calls fn with every unit of kind unit: its key's hash and the
// index of its vector (Vector). Units with equal vectors share the index.
func (u *Units) Each(unit string, fn func(key uint64, id uint32)) {
	st := u.stores[unit]
	if st == nil {
		return
	}
	for h, id := range st.units {
		fn(h, id)
	}
}

// Find returns the index of the vector of the unit of kind unit whose key
// hashes to key; false when the run has no such unit.
func (u *Units) Find(unit string, key uint64) (uint32, bool) {
	st := u.stores[unit]
	if st == nil {
		return 0, false
	}
	id, ok := st.units[key]
	return id, ok
}

// Vector returns the vector of index id of the units of kind unit; it
// must not be changed.
func (u *Units) Vector(unit string, id uint32) []float64 { return u.stores[unit].vec(id) }

// units returns what the recorder holds: repetitions are gathered into
// their scripts, and every figure gets its address and offset.
func (u *unitRecorder) units() *Units {
	out := &Units{p: u.p, stores: map[string]*unitStore{}}
	for ki, k := range u.kinds {
		st := u.stores[ki]
		unit := k.unit
		if unit == unitRepetitions {
			st, unit = u.gatherScripts(k, st), schema.UnitScripts
		}
		out.stores[unit] = st
	}
	for j, n := range u.p.nodes {
		addr := nodeAddr(n)
		for _, k := range u.kinds {
			for ci, c := range k.contrib {
				for _, f := range c.figs {
					f.Addr = addr + "." + f.Addr
					f.Off += j*k.width + k.off[ci]
					if f.Unit == "" {
						f.Unit = k.unit
					}
					out.figures = append(out.figures, f)
				}
			}
		}
	}
	return out
}

// gatherScripts turns each repetition of a script (its contributions'
// numbers, node by node) into its script's: the repetitions' numbers
// folded by each contribution's fold, summed per script.
func (u *unitRecorder) gatherScripts(k *unitKind, reps *unitStore) *unitStore {
	out := newUnitStore(reps.width)
	row := make([]float64, reps.width)
	for h, id := range reps.units {
		v := reps.vec(id)
		clear(row)
		for j := range u.p.nodes {
			for ci, c := range k.contrib {
				at := j*k.width + k.off[ci]
				c.fold(v[at:at+c.width], row[at:at+c.width])
			}
		}
		out.add(reps.parents[h], row, u.sum[:reps.width])
	}
	return out
}
