package metrics

import (
	"slices"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// exactStats is the reference a LatencyAcc's figures must equal bit for
// bit: one sorted copy, summed in ascending order, numpy's percentiles.
func exactStats(v []float64) schema.LatencyStats {
	s := slices.Clone(v)
	slices.Sort(s)
	return *summarize(s)
}

// latencyRef holds the samples an accumulator was given, per bucket.
type latencyRef [len(bucketLimits) + 1][]float64

func (r *latencyRef) add(l *LatencyAcc, n int, ms float64) {
	l.AddLength(n, ms)
	i := BucketIndex(n)
	r[i] = append(r[i], ms)
}

func (r *latencyRef) check(t *testing.T, name string, l *LatencyAcc) {
	t.Helper()
	got := l.Result()
	all := slices.Concat(r[:]...)
	if got == nil || got.LatencyStats != exactStats(all) {
		t.Fatalf("%s: overall %+v, want %+v", name, got, exactStats(all))
	}
	for i, b := range r {
		st := got.Bucket[schema.LatencyBuckets[i]]
		if len(b) == 0 {
			if st != nil {
				t.Errorf("%s: empty bucket %s reported", name, schema.LatencyBuckets[i])
			}
			continue
		}
		if st == nil || *st != exactStats(b) {
			t.Errorf("%s: bucket %s = %+v, want %+v", name, schema.LatencyBuckets[i], st, exactStats(b))
		}
	}
}

// TestLatencyBlocksExact feeds accumulators samples spanning many storage
// blocks and checks that merging (which shares filled blocks), merging
// into itself and calling Result between adds keep every figure exactly
// what one sorted copy of the samples gives, and leave the merged-from
// accumulator's figures as they were.
func TestLatencyBlocksExact(t *testing.T) {
	var whole, a, b, c LatencyAcc
	var rw, ra, rb, rc latencyRef
	n := 3*latencyBlock + 123
	for i := range n {
		length := []int{5, 30, 70, 150, 250}[i%5]
		if i%11 == 0 {
			length = 12 // the first bucket fills its blocks fastest
		}
		ms := float64((i*7919)%5003)/7 + 0.1
		rw.add(&whole, length, ms)
		switch i % 3 {
		case 0:
			ra.add(&a, length, ms)
		case 1:
			rb.add(&b, length, ms)
		default:
			rc.add(&c, length, ms)
		}
	}
	rw.check(t, "whole", &whole)
	rb.check(t, "b before merging", &b)
	a.Merge(&b)
	a.Merge(&c)
	rb.check(t, "b after a merged it", &b)
	rw.check(t, "a merged with b and c", &a)
	// Both go on filling their own blocks after sharing some.
	for i := range latencyBlock + 9 {
		ms := float64(i%977) + 0.5
		rw.add(&a, 8, ms)
		rb.add(&b, 8, -ms)
	}
	rw.check(t, "a after more samples", &a)
	rb.check(t, "b after more samples", &b)
	a.Merge(&a)
	for i, v := range rw {
		rw[i] = append(v, v...)
	}
	rw.check(t, "a merged into itself", &a)
}

// TestLatencyOneBucketExact: when every sample falls in one bucket the
// overall figures are that bucket's, still bit for bit one sorted copy's.
func TestLatencyOneBucketExact(t *testing.T) {
	var l LatencyAcc
	var r latencyRef
	for i := range 2*latencyBlock + 5 {
		r.add(&l, 30, float64((i*104729)%7919)/3+0.01)
	}
	r.check(t, "one bucket", &l)
	if got := l.Result(); len(got.Bucket) != 1 {
		t.Errorf("buckets %v, want only 21-50", got.Bucket)
	}
}
