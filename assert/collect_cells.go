package assert

import (
	"encoding/binary"

	"github.com/nlutest/nlutest/schema"
)

// A result counts in about eight nodes of the metrics tree (root, its
// splits, level, each scene prefix, core or noncore, its template), and
// the results that count in the same nodes are many: every case of a
// template with the same splits, say. A cell gathers such results. The
// families whose Merge is exact (exactMerger: outcomes, dimensions,
// labels, latency — integer counts, and latencies kept exactly) count a
// result once, in its cell, and the cell is merged into each of its nodes
// when the nodes are read (flush): the same figures, bit for bit, as
// counting the result in every node, since merging is how forked
// collectors already combine (TestCellsMatchNodes). Other families
// (float sums whose rounding depends on the grouping, a program's own)
// still count the result in every node, in the same order as before.
type cell struct {
	// acc holds the exact families' accumulators, nil for the others.
	acc nodeAcc
	// nodes are the nodes the cell's results count in, found on its
	// first result that counts in the metrics (nil before).
	nodes []*nodeAcc
	// src is the result's source's tally.
	src *sourceTally
}

// exactMerger marks an Acc whose Merge gives the same figures, bit for
// bit, as Adding the merged cases one by one, whatever the grouping and
// order: such a family's cases are counted once per cell.
type exactMerger interface{ mergesExactly() }

func (*counts) mergesExactly()       {}
func (*dimensionAcc) mergesExactly() {}
func (*labelAcc) mergesExactly()     {}
func (*latencyAcc) mergesExactly()   {}

// maxCells bounds the cells a collector holds between flushes: results of
// ever new node sets (a dataset whose rows each name their own scene) are
// merged into their nodes every maxCells cells.
var maxCells = 4096

// cellOf returns the cell of r, whose source is kind/name: results with
// the same source, splits, level, scene, core flag and review state count
// in the same nodes.
func (c *Collector) cellOf(r *schema.Result, kind, name string) *cell {
	k := appendKeyPart(c.cellKey[:0], kind)
	k = appendKeyPart(k, name)
	k = appendKeyPart(k, r.Level)
	var flags byte
	if r.Core {
		flags |= 1
	}
	if r.Unreviewed {
		flags |= 2
	}
	k = append(k, flags)
	k = binary.AppendUvarint(k, uint64(len(r.Split)))
	for _, sp := range r.Split {
		k = appendKeyPart(k, sp)
	}
	k = binary.AppendUvarint(k, uint64(len(r.Scene)))
	for _, part := range r.Scene {
		k = appendKeyPart(k, part)
	}
	c.cellKey = k
	if cl := c.cells[string(k)]; cl != nil { // looked up without a copy
		return cl
	}
	if len(c.cells) >= maxCells {
		c.flush()
	}
	key := sourceKey{kind, name}
	g := c.groups[key]
	if g == nil {
		g = &sourceTally{}
		c.groups[key] = g
	}
	cl := &cell{src: g, acc: nodeAcc{accs: make([]Acc, len(c.fams))}}
	for i, f := range c.fams {
		if a, ok := f.NewAcc(c.suite).(exactMerger); ok {
			cl.acc.accs[i] = a.(Acc)
		}
	}
	c.cells[string(k)] = cl
	return cl
}

// appendKeyPart appends s to a cell key, prefixed by its length so that
// no two lists of parts give the same key.
func appendKeyPart(k []byte, s string) []byte {
	return append(binary.AppendUvarint(k, uint64(len(s))), s...)
}

// flush merges every cell into its nodes and forgets the cells: the nodes
// then hold every result added. Whatever reads the nodes flushes first.
func (c *Collector) flush() {
	for _, cl := range c.cells {
		for _, n := range cl.nodes {
			for i, a := range cl.acc.accs {
				if a != nil {
					n.accs[i].Merge(a)
				}
			}
		}
	}
	clear(c.cells)
}
