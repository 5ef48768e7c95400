package metrics

import (
	"math"
	"sort"

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
	buckets [len(bucketLimits) + 1][]float64
	n       int
	hist    *latencyHist // set once n exceeded ExactLatencySamples
}

// NewLatencyAcc returns an empty latency accumulator.
func NewLatencyAcc() *LatencyAcc { return &LatencyAcc{} }

// Sample is one latency measurement prepared for adding to several
// accumulators (a case counts in every node of the metrics tree it belongs
// to): its length bucket and histogram cell are worked out once.
type Sample struct {
	ms     float64
	bucket int
	cell   int32
	ok     bool
}

// NewSample prepares the latency ms of a call whose input length is n. A
// NaN or infinite latency is not a measurement; adding it does nothing.
func NewSample(n int, ms float64) Sample {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return Sample{}
	}
	return Sample{ms: ms, bucket: BucketIndex(n), cell: histIndex(ms), ok: true}
}

// AddSample records a prepared sample.
func (l *LatencyAcc) AddSample(s Sample) {
	if !s.ok {
		return
	}
	i, ms := s.bucket, s.ms
	l.n++
	if l.hist != nil {
		l.hist.addCell(i, s.cell, ms)
		return
	}
	l.buckets[i] = append(l.buckets[i], ms)
	if l.n > ExactLatencySamples {
		l.toHist()
	}
}

// toHist moves the exact samples into the histogram.
func (l *LatencyAcc) toHist() {
	l.hist = &latencyHist{}
	for i, b := range l.buckets {
		for _, v := range b {
			l.hist.add(i, v)
		}
		l.buckets[i] = nil
	}
}

// Count returns the number of samples recorded.
func (l *LatencyAcc) Count() int { return l.n }

// Merge adds o's samples to l. o is left unchanged; a nil o is a no-op.
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
		for i, b := range o.buckets {
			for _, v := range b {
				l.hist.add(i, v)
			}
		}
		if o.hist != nil {
			l.hist.merge(o.hist)
		}
		l.n += o.n
		return
	}
	for i := range o.buckets {
		// Copy first: o may be l.
		src := append([]float64(nil), o.buckets[i]...)
		l.buckets[i] = append(l.buckets[i], src...)
	}
	l.n += o.n
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
	all := make([]float64, 0, total)
	out := &schema.Latency{Bucket: make(map[string]*schema.LatencyStats)}
	for i, b := range l.buckets {
		if len(b) == 0 {
			continue
		}
		// Sorting in place is harmless (order carries no meaning) and
		// makes the next Result cheaper.
		sort.Float64s(b)
		out.Bucket[schema.LatencyBuckets[i]] = summarize(b)
		all = append(all, b...)
	}
	sort.Float64s(all)
	out.LatencyStats = *summarize(all)
	return out
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
	n := len(sorted)
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	q := p / 100
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[n-1]
	}
	virtual := float64(n-1) * q
	prev := math.Floor(virtual)
	i := int(prev)
	j := i + 1
	if j > n-1 {
		j = n - 1
	}
	return lerp(sorted[i], sorted[j], virtual-prev)
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
