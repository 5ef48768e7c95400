package dataset

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"

	"github.com/nlutest/nlutest/spec"
)

// This file keeps dataset case ids unique, the same way in every command
// (generate, validate, stats, run and --resume generate the rows; eval
// and merge read them through the rebuild index):
//
//   - Rows whose id comes from the id expression must not share one, in
//     one dataset or across the suite's datasets: a second row with an id
//     already seen is an error naming both rows (file:line of each).
//   - A row without an id expression takes the hash of its dataset's name
//     and its text (rowID); rows identical to an earlier one of the same
//     file take that hash followed by -2, -3, … in file order, so each
//     counts once as its own case.
//
// Memory stays small per row: generation keeps 8 bytes of hash per id,
// and only when two hashes meet does it read the files again to find the
// earlier row and tell a real duplicate from two ids of one hash.

// caseIDs is the set of explicit dataset ids one generation has seen,
// shared by the suite's dataset sources in declaration order.
type caseIDs struct {
	seen    hashSet
	sources []*datasetSource
}

// idsKey keys a generation's caseIDs (spec.Gen.Shared).
type idsKey struct{}

// sharedIDs is the set of explicit ids g's dataset sources have seen.
func sharedIDs(g *spec.Gen) *caseIDs {
	return g.Shared(idsKey{}, func() any { return &caseIDs{} }).(*caseIDs)
}

// hashSet is a set of 64-bit hashes: open addressing in a slice at most
// half full, 16 to 32 bytes a hash. `generate` of 1,000,000 JSONL rows
// with ids peaked at 67 MB RSS with it, 89 MB with a Go map, 25 MB
// before ids were checked.
type hashSet struct {
	slots []uint64 // 0 is an empty slot; the hash 0 is kept as 1
	n     int
}

// add puts h in the set and reports whether it was there already.
func (hs *hashSet) add(h uint64) (had bool) {
	if h == 0 {
		h = 1
	}
	if 2*(hs.n+1) > len(hs.slots) {
		hs.grow()
	}
	mask := uint64(len(hs.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch hs.slots[i] {
		case h:
			return true
		case 0:
			hs.slots[i] = h
			hs.n++
			return false
		}
	}
}

// grow doubles the table (1,024 slots at first) and places the hashes
// again.
func (hs *hashSet) grow() {
	old := hs.slots
	hs.slots = make([]uint64, max(2*len(old), 1024))
	hs.n = 0
	for _, h := range old {
		if h != 0 {
			hs.add(h)
		}
	}
}

// add records id, read from the row at line of ds, and refuses it when
// an earlier row has it.
func (ids *caseIDs) add(ds *datasetSource, id string, line int) error {
	if ids == nil {
		return nil
	}
	if len(ids.sources) == 0 || ids.sources[len(ids.sources)-1] != ds {
		ids.sources = append(ids.sources, ds)
	}
	if !ids.seen.add(idHash(id)) {
		return nil
	}
	for _, src := range ids.sources {
		before := 0 // every row of an earlier source
		if src == ds {
			before = line
		}
		if at, ok := src.findID(id, before); ok {
			return duplicateID(id, src.path, at, ds.path, line)
		}
	}
	return nil // another id of the same hash
}

// idHash is a 64-bit FNV-1a hash of id.
func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// findID reads the file again for the first row whose id is id, among
// the rows before line (every row for 0); it returns that row's line.
func (ds *datasetSource) findID(id string, before int) (int, bool) {
	rd, err := ds.open()
	if err != nil {
		return 0, false
	}
	defer rd.close()
	var ev rowEval
	for {
		r, err := rd.next()
		if err != nil || r == nil || before > 0 && r.line >= before {
			return 0, false
		}
		ev.reset(r)
		if got, err := ds.str(&ev, ds.id, true); err == nil && got == id {
			return r.line, true
		}
	}
}

// duplicateID is the error of a row (path2:line2) whose id an earlier row
// (path1:line1) has.
func duplicateID(id, path1 string, line1 int, path2 string, line2 int) error {
	return dataError(path2, line2, "Duplicate case id",
		"The rows at %s:%d and %s:%d both have the id %q. A case id names one case: a run records its result under it, and eval, merge and --resume count each id once, so the second row would be run but not counted. Give every row its own id, or leave id out to have nlutest derive one from each row's content.",
		path1, line1, path2, line2, id)
}

// occurrences numbers the rows of one file that are identical (the same
// rowKey): the first is 1, the next 2, and so on.
type occurrences struct {
	once  hashSet
	count map[uint64]uint32 // for keys seen more than once
}

// next is the occurrence number of a row of key.
func (o *occurrences) next(key uint64) uint32 {
	if !o.once.add(key) {
		return 1
	}
	if o.count == nil {
		o.count = map[uint64]uint32{}
	}
	n := o.count[key]
	if n == 0 {
		n = 1
	}
	n++
	o.count[key] = n
	return n
}

// rowKey is the 64 bits of the default id of a row of dataset name with
// text raw: rowID is their hex.
func rowKey(name string, raw []byte) uint64 {
	sum := rowSum(name, raw)
	return binary.BigEndian.Uint64(sum[:8])
}

// defaultID is the id of a row without an id expression: rowID, and for
// a row identical to nth−1 earlier ones (nth ≥ 2), rowID-nth.
func defaultID(name string, raw []byte, nth uint32) string {
	id := rowID(name, raw)
	if nth > 1 {
		id += "-" + strconv.FormatUint(uint64(nth), 10)
	}
	return id
}

// checkIndexIDs refuses, in the rebuild index of ds, an explicit id that
// an earlier dataset source's index also holds.
func checkIndexIDs(earlier []*datasetSource, ds *datasetSource) error {
	if ds.id == nil || ds.index == nil {
		return nil
	}
	for _, e := range earlier {
		if e.id == nil || e.index == nil {
			continue
		}
		// The first row of ds (by line) whose id e holds.
		first, at := "", 0
		for id, loc := range ds.index.at {
			if _, ok := e.index.at[id]; ok && (at == 0 || loc.line < at) {
				first, at = id, loc.line
			}
		}
		if at > 0 {
			return duplicateID(first, e.path, e.index.at[first].line, ds.path, at)
		}
	}
	return nil
}

// CheckCaseIDs (spec.DataChecker) refuses dataset rows that share a case id, as generation
// does, for a command that rebuilds recorded cases without generating
// them (eval, merge). It builds each dataset's rebuild index, which the
// rebuild then uses.
func (Kind) CheckCaseIDs(s *spec.Suite) error {
	var done []*datasetSource
	for _, src := range s.CaseSources {
		ds, ok := src.(*datasetSource)
		if !ok {
			continue
		}
		ds.once.Do(func() { ds.index = ds.buildIndex() })
		if ds.index != nil && ds.index.dup != nil {
			return ds.index.dup
		}
		if err := checkIndexIDs(done, ds); err != nil {
			return err
		}
		done = append(done, ds)
	}
	return nil
}
