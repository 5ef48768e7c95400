package metrics

import (
	"math"
	"slices"

	"github.com/nlutest/nlutest/schema"
)

// bucketLimits are the inclusive upper input lengths of the first four
// buckets of schema.LatencyBuckets; longer inputs go to the last (">200").
// YD/T 4394.2-2023 writes the ranges as ≤20, 20-50, 50-100, 100-200, ≥200; nlutest
// makes them disjoint: 20 belongs to "<=20", 21 to "21-50", 200 to
// "101-200" and 201 to ">200".
var bucketLimits = [...]int{20, 50, 100, 200}

// BucketIndex returns the index in schema.LatencyBuckets of the bucket an
// input of n characters or words falls in.
func BucketIndex(n int) int {
	for i, lim := range bucketLimits {
		if n <= lim {
			return i
		}
	}
	return len(bucketLimits)
}

// Bucket returns the name of the latency bucket of an input of n
// characters or words, one of schema.LatencyBuckets.
func Bucket(n int) string { return schema.LatencyBuckets[BucketIndex(n)] }

// ExactLatencySamples is how many samples a LatencyAcc keeps one by one:
// 2,097,152, so a run or an eval of a million results has exact
// percentiles (numpy's). Each kept sample costs 8 bytes in every node the
// call counts in (the whole run, its split, level, scene prefixes,
// core/non-core and template nodes): a million calls over 6 nodes keep
// 48 MB, at most 16 MiB per node. Beyond it the samples move into a
// log-linear histogram whose percentiles are within 0.4% of the exact
// value, so memory stays flat however many calls a run makes; the result
// then says so (schema.Latency.Approximate) and every report prints it.
// Count, mean and max stay exact.
const ExactLatencySamples = 1 << 21

// LatencyAcc accumulates call latencies (YD/T 4394.2-2023, response time), overall
// and per input-length bucket. The zero value is ready to use.
type LatencyAcc struct {
	// counts holds the samples counted by value while they have at most
	// MaxCountedLatencies distinct values (nil before the first sample
	// and once they have more); then buckets holds them one by one.
	counts  *latencyCounts
	several bool // counts gave way to buckets
	buckets [len(bucketLimits) + 1]sampleBlocks
	n       int
	hist    *latencyHist // set once n exceeded ExactLatencySamples
}

// NewLatencyAcc returns an empty latency accumulator.
func NewLatencyAcc() *LatencyAcc { return &LatencyAcc{} }

// Sample is one latency measurement prepared for adding to several
// accumulators (a case counts in every node of the metrics tree it belongs
// to): its length bucket is worked out once. (Its histogram cell is worked
// out only by an accumulator past ExactLatencySamples, which needs it.)
type Sample struct {
	ms     float64
	bucket int
	ok     bool
}

// NewSample prepares the latency ms of a call whose input length is n. A
// NaN or infinite latency is not a measurement; adding it does nothing.
func NewSample(n int, ms float64) Sample {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return Sample{}
	}
	return Sample{ms: ms, bucket: BucketIndex(n), ok: true}
}

// AddSample records a prepared sample.
func (l *LatencyAcc) AddSample(s Sample) {
	if !s.ok {
		return
	}
	i, ms := s.bucket, s.ms
	l.n++
	if l.hist != nil {
		l.hist.add(i, ms)
		return
	}
	if !l.several {
		if l.counts == nil {
			l.counts = &latencyCounts{}
		}
		if !l.counts.add(i, ms, 1) {
			l.toBlocks()
		}
	}
	if l.several {
		l.buckets[i].add(ms)
	}
	if l.n > ExactLatencySamples {
		l.toHist()
	}
}

// toBlocks moves counted samples into the blocks, one by one.
func (l *LatencyAcc) toBlocks() {
	if l.counts != nil {
		l.counts.each(func(b int, v float64, n int) {
			for range n {
				l.buckets[b].add(v)
			}
		})
	}
	l.counts, l.several = nil, true
}

// eachSample calls fn with the bucket and value of every exact sample.
func (l *LatencyAcc) eachSample(fn func(bucket int, v float64)) {
	if l.counts != nil {
		l.counts.each(func(b int, v float64, n int) {
			for range n {
				fn(b, v)
			}
		})
	}
	for i := range l.buckets {
		l.buckets[i].each(func(v float64) { fn(i, v) })
	}
}

// toHist moves the exact samples into the histogram.
func (l *LatencyAcc) toHist() {
	l.hist = &latencyHist{}
	l.eachSample(l.hist.add)
	l.counts, l.several = nil, true
	for i := range l.buckets {
		l.buckets[i] = sampleBlocks{}
	}
}

// Count returns the number of samples recorded.
func (l *LatencyAcc) Count() int { return l.n }

// Merge adds o's samples to l. o is left unchanged; a nil o is a no-op.
// Exact samples are not copied but shared: l takes o's filled blocks
// (which neither ever writes again) and copies only the block o is
// still filling, so merging the collectors of a million results costs
// next to nothing.
func (l *LatencyAcc) Merge(o *LatencyAcc) {
	if o == nil {
		return
	}
	if o.hist != nil || l.n+o.n > ExactLatencySamples {
		if l.hist == nil {
			l.toHist()
		}
		if o == l { // merging into itself doubles every count
			l.hist.double()
			l.n *= 2
			return
		}
		o.eachSample(l.hist.add)
		if o.hist != nil {
			l.hist.merge(o.hist)
		}
		l.n += o.n
		return
	}
	l.n += o.n
	if l.mergeCounts(o) {
		return
	}
	for i := range o.buckets {
		l.buckets[i].merge(&o.buckets[i])
	}
}

// mergeCounts merges o's counted samples into l and reports whether that
// was all of o (l's count is o's already).
func (l *LatencyAcc) mergeCounts(o *LatencyAcc) bool {
	if o.counts == nil {
		if o.several && !l.several {
			l.toBlocks()
		}
		return false
	}
	if o == l {
		for i := range l.counts.buckets {
			for k, n := range l.counts.buckets[i].cnt {
				l.counts.buckets[i].cnt[k] = 2 * n
			}
		}
		return true
	}
	if !l.several {
		if l.counts == nil {
			l.counts = &latencyCounts{}
		}
		if l.counts.distinct+l.counts.newIn(o.counts) <= MaxCountedLatencies {
			o.counts.each(func(b int, v float64, n int) { l.counts.add(b, v, n) })
			return true
		}
		l.toBlocks() // too many distinct values together
	}
	o.counts.each(func(b int, v float64, n int) {
		for range n {
			l.buckets[b].add(v)
		}
	})
	return true
}

// Result returns the latency summary, or nil when no sample was recorded.
// Bucket holds only the buckets that received samples.
func (l *LatencyAcc) Result() *schema.Latency {
	total := l.Count()
	if total == 0 {
		return nil
	}
	if l.hist != nil {
		return l.hist.result()
	}
	if l.counts != nil {
		return l.counts.result()
	}
	// Each bucket's samples are gathered into one buffer, bucket after
	// bucket, and sorted in place; the whole run's figures walk the sorted
	// buckets in step (a k-way merge) instead of sorting a second copy.
	all := make([]float64, 0, total)
	var runs [len(bucketLimits) + 1][]float64
	out := &schema.Latency{Bucket: make(map[string]*schema.LatencyStats)}
	for i := range l.buckets {
		start := len(all)
		all = l.buckets[i].appendTo(all)
		b := all[start:len(all):len(all)]
		if len(b) == 0 {
			continue
		}
		slices.Sort(b)
		runs[i] = b
		out.Bucket[schema.LatencyBuckets[i]] = summarize(b)
		// The sorted buffer replaces the blocks: the next Result sorts
		// sorted data, and blocks shared with merged accumulators are
		// never written.
		l.buckets[i] = sampleBlocks{full: [][]float64{b}}
	}
	if len(out.Bucket) == 1 { // every sample in one bucket: the same figures
		for _, st := range out.Bucket {
			out.LatencyStats = *st
		}
		return out
	}
	out.LatencyStats = *summarizeRuns(runs[:], total)
	return out
}

// latencyBlock is how many samples a block of sampleBlocks holds: 64 KiB.
const latencyBlock = 8192

// sampleBlocks holds samples in blocks that are never moved once filled,
// so growing never copies what is there and merging can share them.
type sampleBlocks struct {
	full [][]float64 // filled blocks: read-only, possibly shared
	tail []float64   // the block being filled, owned
}

func (s *sampleBlocks) add(v float64) {
	if len(s.tail) >= latencyBlock {
		s.full = append(s.full, s.tail[:len(s.tail):len(s.tail)])
		s.tail = make([]float64, 0, latencyBlock)
	}
	// The first block grows from small, so the many small nodes of a
	// metrics tree stay small.
	s.tail = append(s.tail, v)
}

// merge adds o's samples to s; o may be s.
func (s *sampleBlocks) merge(o *sampleBlocks) {
	full, tail := o.full, o.tail
	s.full = append(s.full, full...)
	for _, v := range tail {
		s.add(v)
	}
}

func (s *sampleBlocks) each(fn func(float64)) {
	for _, b := range s.full {
		for _, v := range b {
			fn(v)
		}
	}
	for _, v := range s.tail {
		fn(v)
	}
}

func (s *sampleBlocks) appendTo(dst []float64) []float64 {
	for _, b := range s.full {
		dst = append(dst, b...)
	}
	return append(dst, s.tail...)
}

// summarizeRuns computes the stats of the union of ascending runs holding
// total samples in all, walking them in ascending order: the same figures,
// bit for bit, as summarize over one sorted copy.
func summarizeRuns(runs [][]float64, total int) *schema.LatencyStats {
	ps := [...]float64{50, 90, 95, 99}
	// The ranks the percentiles read, and their values once walked to.
	var ranks [2 * len(ps)]int
	var vals [2 * len(ps)]float64
	for k, p := range ps {
		ranks[2*k], ranks[2*k+1] = percentileRanks(total, p)
	}
	pos := make([]int, len(runs))
	sum, last := 0.0, 0.0
	for r := 0; r < total; r++ {
		m := -1
		for i, run := range runs {
			if pos[i] < len(run) && (m < 0 || run[pos[i]] < runs[m][pos[m]]) {
				m = i
			}
		}
		last = runs[m][pos[m]]
		pos[m]++
		sum += last
		for k, rk := range ranks {
			if rk == r {
				vals[k] = last
			}
		}
	}
	st := &schema.LatencyStats{Count: total, MeanMS: sum / float64(total), MaxMS: last}
	at := func(k int) float64 {
		return percentileFrom(total, ps[k], func(i int) float64 {
			if i == ranks[2*k] {
				return vals[2*k]
			}
			return vals[2*k+1]
		})
	}
	st.P50MS, st.P90MS, st.P95MS, st.P99MS = at(0), at(1), at(2), at(3)
	return st
}

// summarize computes the stats of an ascending, non-empty sample. The mean
// is summed in ascending order, so it does not depend on the order samples
// arrived or accumulators were merged in.
func summarize(sorted []float64) *schema.LatencyStats {
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	return &schema.LatencyStats{
		Count:  len(sorted),
		MeanMS: sum / float64(len(sorted)),
		P50MS:  Percentile(sorted, 50),
		P90MS:  Percentile(sorted, 90),
		P95MS:  Percentile(sorted, 95),
		P99MS:  Percentile(sorted, 99),
		MaxMS:  sorted[len(sorted)-1],
	}
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of an ascending
// sample by linear interpolation between closest ranks: numpy's default
// method ("linear", Hyndman & Fan type 7), Excel's PERCENTILE.INC. The
// virtual index is (n−1)·p/100 and the interpolation is numpy's _lerp, so
// results match numpy.percentile bit for bit. p outside [0, 100] is
// clamped; an empty sample gives NaN.
func Percentile(sorted []float64, p float64) float64 {
	return percentileFrom(len(sorted), p, func(i int) float64 { return sorted[i] })
}

// percentileRanks returns the two ranks (0-based, ascending order) the
// p-th percentile of n samples interpolates between (0 < p < 100).
func percentileRanks(n int, p float64) (i, j int) {
	i = int(math.Floor(float64(n-1) * (p / 100)))
	return i, min(i+1, n-1)
}

// percentileFrom is Percentile of n ascending samples whose i-th (0-based)
// at returns.
func percentileFrom(n int, p float64, at func(int) float64) float64 {
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	q := p / 100
	if q <= 0 {
		return at(0)
	}
	if q >= 1 {
		return at(n - 1)
	}
	virtual := float64(n-1) * q
	prev := math.Floor(virtual)
	i, j := percentileRanks(n, p)
	return lerp(at(i), at(j), virtual-prev)
}

// lerp is numpy's _lerp: a + (b−a)·t, computed from b's side when t ≥ 0.5
// for better accuracy near b.
func lerp(a, b, t float64) float64 {
	diff := b - a
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}
