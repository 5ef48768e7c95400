package metrics

import (
	"fmt"
	"math"
	"slices"

	"github.com/nlutest/nlutest/schema"
)

// latencyHist is a log-linear histogram of latencies per input-length
// bucket: each power of two (from 1 µs) is split into histSub equal
// sub-buckets, so a value is known to within 1/(2·histSub) of itself.
// Count and max are kept exactly, and the sum in whole nanoseconds, so the
// mean does not depend on the order samples arrive or histograms merge in.
type latencyHist struct {
	counts [len(bucketLimits) + 1]map[int32]int64
	n      [len(bucketLimits) + 1]int
	nanos  [len(bucketLimits) + 1]int64
	max    [len(bucketLimits) + 1]float64
}

const (
	histSub  = 128
	histUnit = 0.001 // ms: 1 µs
)

func histIndex(ms float64) int32 {
	if ms < histUnit {
		return -1 // everything below 1 µs shares one bucket
	}
	x := ms / histUnit
	e := math.Floor(math.Log2(x))
	sub := math.Floor((x/math.Exp2(e) - 1) * histSub)
	return int32(e)*histSub + int32(min(sub, histSub-1))
}

// histValue is the midpoint of a bucket.
func histValue(i int32) float64 {
	if i < 0 {
		return histUnit / 2
	}
	e, sub := float64(i/histSub), float64(i%histSub)
	lo := math.Exp2(e) * (1 + sub/histSub)
	hi := math.Exp2(e) * (1 + (sub+1)/histSub)
	return (lo + hi) / 2 * histUnit
}

func (h *latencyHist) add(bucket int, ms float64) {
	h.addCell(bucket, histIndex(ms), ms)
}

// addCell is add for a caller that knows the value's cell, histIndex(ms).
func (h *latencyHist) addCell(bucket int, cell int32, ms float64) {
	if h.counts[bucket] == nil {
		h.counts[bucket] = map[int32]int64{}
	}
	h.counts[bucket][cell]++
	h.n[bucket]++
	h.nanos[bucket] += int64(math.Round(ms * 1e6))
	h.max[bucket] = max(h.max[bucket], ms)
}

func (h *latencyHist) merge(o *latencyHist) {
	for b := range o.counts {
		if o.n[b] == 0 {
			continue
		}
		if h.counts[b] == nil {
			h.counts[b] = map[int32]int64{}
		}
		for k, c := range o.counts[b] {
			h.counts[b][k] += c
		}
		h.n[b] += o.n[b]
		h.nanos[b] += o.nanos[b]
		h.max[b] = max(h.max[b], o.max[b])
	}
}

func (h *latencyHist) double() {
	for b := range h.counts {
		for k := range h.counts[b] {
			h.counts[b][k] *= 2
		}
		h.n[b] *= 2
		h.nanos[b] *= 2
	}
}

func (h *latencyHist) result() *schema.Latency {
	out := &schema.Latency{Bucket: map[string]*schema.LatencyStats{}}
	all := map[int32]int64{}
	var n int
	var nanos int64
	var mx float64
	for b := range h.counts {
		if h.n[b] == 0 {
			continue
		}
		out.Bucket[schema.LatencyBuckets[b]] = histStats(h.counts[b], h.n[b], float64(h.nanos[b])/1e6, h.max[b])
		for k, c := range h.counts[b] {
			all[k] += c
		}
		n += h.n[b]
		nanos += h.nanos[b]
		mx = max(mx, h.max[b])
	}
	out.LatencyStats = *histStats(all, n, float64(nanos)/1e6, mx)
	out.Approximate = fmt.Sprintf("percentiles from a log-linear histogram (more than %d calls): within 0.4%% of the exact values; count, mean and max exact", ExactLatencySamples)
	return out
}

// histStats computes the stats of one histogram, with percentiles by the
// same linear interpolation between closest ranks as Percentile, each rank
// read as its bucket's midpoint (capped at the exact maximum).
func histStats(counts map[int32]int64, n int, sum, mx float64) *schema.LatencyStats {
	keys := make([]int32, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	at := func(rank int64) float64 { // value of the rank-th smallest sample (0-based)
		var seen int64
		for _, k := range keys {
			seen += counts[k]
			if rank < seen {
				return min(histValue(k), mx)
			}
		}
		return mx
	}
	pct := func(p float64) float64 {
		v := float64(n-1) * p / 100
		lo := math.Floor(v)
		a, b := at(int64(lo)), at(int64(math.Ceil(v)))
		return a + (b-a)*(v-lo)
	}
	return &schema.LatencyStats{
		Count: n, MeanMS: sum / float64(n), MaxMS: mx,
		P50MS: pct(50), P90MS: pct(90), P95MS: pct(95), P99MS: pct(99),
	}
}
