package metrics

import (
	"runtime"
	"testing"
)

// TestLatencyCountsExact: samples with few distinct values are counted by
// value, and every figure is still bit for bit one sorted copy's — alone,
// merged with counted and with one-by-one accumulators (both ways), merged
// into itself, and across the point where merging leaves too many distinct
// values to count.
func TestLatencyCountsExact(t *testing.T) {
	lengths := []int{5, 30, 70, 150, 250}
	fill := func(l *LatencyAcc, r *latencyRef, n, distinct int, scale float64) {
		for i := range n {
			r.add(l, lengths[(i/3)%5], float64((i*7919)%distinct)*scale)
		}
	}
	var a, b, many, other LatencyAcc
	var ra, rb, rmany, rother latencyRef
	fill(&a, &ra, 50_000, 500, 0.1) // 0.1 ms steps, as a saved run's
	fill(&b, &rb, 30_000, 300, 0.001)
	fill(&many, &rmany, 20_000, 9_973, 0.013) // more than can be counted
	if a.counts == nil || b.counts == nil || many.counts != nil {
		t.Fatalf("counted: a %v, b %v, many %v; want a and b counted, many not", a.counts != nil, b.counts != nil, many.counts != nil)
	}
	ra.check(t, "a counted", &a)
	rb.check(t, "b counted", &b)
	rmany.check(t, "many", &many)
	a.Merge(&b)
	for i := range ra {
		ra[i] = append(ra[i], rb[i]...)
	}
	ra.check(t, "a merged with b", &a)
	rb.check(t, "b after a merged it", &b)
	a.Merge(&a)
	for i, v := range ra {
		ra[i] = append(v, v...)
	}
	ra.check(t, "a merged into itself", &a)
	many.Merge(&b) // counted into one by one
	for i := range rmany {
		rmany[i] = append(rmany[i], rb[i]...)
	}
	rmany.check(t, "many merged with b", &many)
	b.Merge(&many) // one by one into counted
	for i := range rb {
		rb[i] = append(rb[i], rmany[i]...)
	}
	rb.check(t, "b merged with many", &b)
	// Two counted accumulators whose values together are too many.
	var c, d LatencyAcc
	var rc, rd latencyRef
	fill(&c, &rc, 8_000, 3_000, 0.5)
	fill(&d, &rd, 8_000, 3_001, 0.25)
	c.Merge(&d)
	for i := range rc {
		rc[i] = append(rc[i], rd[i]...)
	}
	rc.check(t, "c merged with d", &c)
	rd.check(t, "d after c merged it", &d)
	fill(&other, &rother, 1, 1, 1)
	rother.check(t, "one sample", &other)
}

// TestLatencyCountsMemory: a million latencies of 500 distinct values (a
// saved run's 0.1 ms steps) are held in kilobytes, not the 8 MB of keeping
// each (the 1,000,000-result eval bench kept 55 MB of them over its 8
// metrics nodes).
func TestLatencyCountsMemory(t *testing.T) {
	var l LatencyAcc
	s := make([]Sample, 500)
	for i := range s {
		s[i] = NewSample(12, float64(i)/10)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 1_000_000 {
		l.AddSample(s[i%len(s)])
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<10 {
		t.Errorf("adding 1,000,000 samples of 500 values allocated %d bytes, want under 256 KiB", got)
	}
	if got := l.Result(); got.Count != 1_000_000 || got.MaxMS != 49.9 {
		t.Errorf("count %d, max %g; want 1000000, 49.9", got.Count, got.MaxMS)
	}
}
