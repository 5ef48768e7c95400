package metrics

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/nlutest/nlutest/schema"
)

// MaxCountedLatencies is how many distinct latency values a LatencyAcc
// counts by value before it keeps its samples one by one. Recorded
// latencies repeat (they are whole microseconds, and a saved run's are
// often coarser), so a node of a million calls usually holds a few
// thousand distinct values: counted, they cost 16 bytes each instead of 8
// bytes per call. The figures are the same bit for bit either way
// (TestLatencyCountsExact): the sorted samples are the distinct values in
// ascending order, each repeated its count.
const MaxCountedLatencies = 4096

// valueCounts counts latency values by their bits in an open-addressing
// table (linear probing, at most half full).
type valueCounts struct {
	keys []uint64 // float64 bits of each value
	cnt  []int    // its count; 0 marks an empty slot
	n    int      // distinct values held
}

// add counts one more v (as its bits k) and reports whether it could: a
// new value beyond limit distinct values is refused.
func (c *valueCounts) add(k uint64, by, limit int) bool {
	if c.keys == nil {
		c.keys, c.cnt = make([]uint64, 16), make([]int, 16)
	}
	mask := uint64(len(c.keys) - 1)
	i := hashBits(k) & mask
	for c.cnt[i] != 0 {
		if c.keys[i] == k {
			c.cnt[i] += by
			return true
		}
		i = (i + 1) & mask
	}
	if c.n >= limit {
		return false
	}
	c.keys[i], c.cnt[i] = k, by
	c.n++
	if 2*c.n > len(c.keys) {
		c.grow()
	}
	return true
}

func hashBits(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	return k
}

func (c *valueCounts) grow() {
	keys, cnt := c.keys, c.cnt
	c.keys, c.cnt, c.n = make([]uint64, 2*len(keys)), make([]int, 2*len(keys)), 0
	for i, n := range cnt {
		if n != 0 {
			c.add(keys[i], n, math.MaxInt)
		}
	}
}

// has reports whether value bits k are counted.
func (c *valueCounts) has(k uint64) bool {
	if c.keys == nil {
		return false
	}
	mask := uint64(len(c.keys) - 1)
	for i := hashBits(k) & mask; c.cnt[i] != 0; i = (i + 1) & mask {
		if c.keys[i] == k {
			return true
		}
	}
	return false
}

// each calls fn with every value held and its count, in no order.
func (c *valueCounts) each(fn func(v float64, n int)) {
	for i, n := range c.cnt {
		if n != 0 {
			fn(math.Float64frombits(c.keys[i]), n)
		}
	}
}

// latencyCounts is a LatencyAcc's samples counted by value, per input
// length bucket.
type latencyCounts struct {
	buckets  [len(bucketLimits) + 1]valueCounts
	distinct int
}

// add counts ms in bucket i, unless it is a new value beyond
// MaxCountedLatencies distinct ones.
func (c *latencyCounts) add(i int, ms float64, by int) bool {
	before := c.buckets[i].n
	if !c.buckets[i].add(math.Float64bits(ms), by, before+MaxCountedLatencies-c.distinct) {
		return false
	}
	c.distinct += c.buckets[i].n - before
	return true
}

// newIn returns how many of o's values c does not count yet.
func (c *latencyCounts) newIn(o *latencyCounts) int {
	n := 0
	for i := range o.buckets {
		o.buckets[i].each(func(v float64, _ int) {
			if !c.buckets[i].has(math.Float64bits(v)) {
				n++
			}
		})
	}
	return n
}

// each calls fn with every value of every bucket and its count.
func (c *latencyCounts) each(fn func(bucket int, v float64, n int)) {
	for i := range c.buckets {
		c.buckets[i].each(func(v float64, n int) { fn(i, v, n) })
	}
}

// latencyCount is one distinct value and how many samples had it.
type latencyCount struct {
	v float64
	n int
}

// sortedCounts returns the values of cs in ascending order (equal values,
// 0 and -0, by their bits) with their counts.
func sortedCounts(cs ...*valueCounts) []latencyCount {
	var out []latencyCount
	for _, c := range cs {
		c.each(func(v float64, n int) { out = append(out, latencyCount{v, n}) })
	}
	slices.SortFunc(out, func(a, b latencyCount) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return cmp.Compare(math.Float64bits(a.v), math.Float64bits(b.v))
	})
	return out
}

// countedStats is summarize of the samples vs stand for: each value
// repeated its count, summed in ascending order one sample at a time, so
// every figure equals summarize's over the expanded samples bit for bit.
func countedStats(vs []latencyCount) *schema.LatencyStats {
	total, sum := 0, 0.0
	ends := make([]int, len(vs)) // rank after the last sample of each value
	for i, vc := range vs {
		for range vc.n {
			sum += vc.v
		}
		total += vc.n
		ends[i] = total
	}
	at := func(r int) float64 { return vs[sort.SearchInts(ends, r+1)].v }
	return &schema.LatencyStats{
		Count:  total,
		MeanMS: sum / float64(total),
		P50MS:  percentileFrom(total, 50, at),
		P90MS:  percentileFrom(total, 90, at),
		P95MS:  percentileFrom(total, 95, at),
		P99MS:  percentileFrom(total, 99, at),
		MaxMS:  vs[len(vs)-1].v,
	}
}

// result is LatencyAcc.Result of counted samples.
func (c *latencyCounts) result() *schema.Latency {
	out := &schema.Latency{Bucket: make(map[string]*schema.LatencyStats)}
	var filled []*valueCounts
	for i := range c.buckets {
		if c.buckets[i].n == 0 {
			continue
		}
		filled = append(filled, &c.buckets[i])
		out.Bucket[schema.LatencyBuckets[i]] = countedStats(sortedCounts(&c.buckets[i]))
	}
	if len(filled) == 1 {
		for _, st := range out.Bucket {
			out.LatencyStats = *st
		}
		return out
	}
	out.LatencyStats = *countedStats(sortedCounts(filled...))
	return out
}
