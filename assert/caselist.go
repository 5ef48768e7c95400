package assert

import (
	"cmp"
	"slices"

	"github.com/nlutest/nlutest/schema"
)

// caseChunk is how many listed cases one block of a caseList holds: 4,096
// entries of about 270 bytes, a little over 1 MiB.
const caseChunk = 4096

// caseList holds a collector's listed cases in fixed blocks that never
// move once allocated: adding copies nothing already listed, and the room
// allocated beyond the cases is at most one block. (A slice grown by
// doubling held room for 131,072 entries at 100,000 cases, with the old
// and the new array both live while it grew.)
type caseList struct {
	blocks [][]caseEntry
	n      int
}

func (l *caseList) len() int { return l.n }

// at returns the i-th case listed.
func (l *caseList) at(i int) *caseEntry { return &l.blocks[i/caseChunk][i%caseChunk] }

func (l *caseList) add(e caseEntry) {
	if l.n == len(l.blocks)*caseChunk {
		l.blocks = append(l.blocks, make([]caseEntry, caseChunk))
	}
	*l.at(l.n) = e
	l.n++
}

// addAll appends o's cases (copies: o is left as it is).
func (l *caseList) addAll(o *caseList) {
	for i := range o.n {
		l.add(*o.at(i))
	}
}

// bySeq returns the cases in the run's order (ascending sequence numbers).
func (l *caseList) bySeq() []*caseEntry {
	out := make([]*caseEntry, l.n)
	for i := range out {
		out[i] = l.at(i)
	}
	if !slices.IsSortedFunc(out, cmpSeq) {
		slices.SortFunc(out, cmpSeq)
	}
	return out
}

func cmpSeq(a, b *caseEntry) int { return cmp.Compare(a.seq, b.seq) }

// mergeCases adds o's listed cases to c's. Past the cap it keeps the
// first cases of each kind in the run's order, as one collector would
// have, merging the two lists (each put in the run's order) into a new one
// of the size kept, rather than appending and trimming. o is left as it is.
func (c *Collector) mergeCases(o *Collector) {
	pass, bad := c.keptPass+o.keptPass, c.keptBad+o.keptBad
	if pass <= schema.MaxReportCases && bad <= schema.MaxReportCases {
		c.cases.addAll(&o.cases)
		c.keptPass, c.keptBad = pass, bad
		return
	}
	a, b := c.cases.bySeq(), o.cases.bySeq()
	var kept caseList
	c.keptPass, c.keptBad = 0, 0
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var e *caseEntry
		if j == len(b) || i < len(a) && a[i].seq < b[j].seq {
			e, i = a[i], i+1
		} else {
			e, j = b[j], j+1
		}
		n := &c.keptBad
		if e.Outcome == schema.Pass {
			n = &c.keptPass
		}
		if *n >= schema.MaxReportCases {
			c.omitted++
			continue
		}
		*n++
		kept.add(*e)
	}
	c.cases = kept
}
