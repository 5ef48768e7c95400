package infer

import (
	"fmt"
	"math"
	"testing"

	"github.com/nlutest/nlutest/internal/cputime"
)

// loop runs body b.N times (b.Loop) and reports the process's CPU time a
// run as cpu-ns/op besides the wall-clock ns/op: on this shared machine
// the wall clock grows with other processes' load, the CPU time much
// less.
func loop(b *testing.B, body func()) {
	b.Helper()
	before, ok := cputime.Process()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if after, _ := cputime.Process(); ok && n > 0 {
		b.ReportMetric(float64(after-before)/float64(n), "cpu-ns/op")
	}
}

func BenchmarkWilson(b *testing.B) {
	var sink float64
	i := 0
	loop(b, func() {
		lo, hi, _ := Wilson(float64(891234+i%7), 1000000, 0.95)
		sink += lo + hi
		i++
	})
	_ = sink
}

// benchTally is a tally of k distinct (correct, recognised, expected)
// vectors over a million cases, the shape of a dimension's F1.
func benchTally(k int) *Tally {
	t := NewTally(3)
	n := 1000000
	for i := range k {
		c := int64(n / k)
		if i < n%k {
			c++
		}
		t.AddN(c, float64(i%5), float64(i%7), float64(i/35+i%3))
	}
	return t
}

func f1(s []float64) float64 { return 2 * s[0] / (s[1] + s[2]) }

// BenchmarkBootstrap is one interval (B = 1000 resamples) of an F1 over a
// million cases with K distinct contribution vectors.
func BenchmarkBootstrap(b *testing.B) {
	for _, k := range []int{4, 100, 10000} {
		t := benchTally(k)
		b.Run(fmt.Sprintf("K=%d/B=1000", k), func(b *testing.B) {
			loop(b, func() {
				if iv := t.Bootstrap(f1, Options{Resamples: 1000, Budget: math.MaxInt64}); !iv.OK {
					b.Fatal(iv.Note)
				}
			})
		})
	}
}

// BenchmarkBootstrapDefault is the default B (2,000) at the largest K
// the default budget bootstraps.
func BenchmarkBootstrapDefault(b *testing.B) {
	t := benchTally(DefaultBudget / DefaultResamples)
	loop(b, func() {
		if iv := t.Bootstrap(f1, Options{}); !iv.OK {
			b.Fatal(iv.Note)
		}
	})
}

// BenchmarkMultinomial is one resample's multiplicities of a million
// cases in K distinct contributions.
func BenchmarkMultinomial(b *testing.B) {
	for _, k := range []int{4, 100, 10000} {
		counts := benchTally(k).Counts()
		m := newMultinomial(counts)
		s := NewStream(1, "bench")
		w := make([]int64, len(counts))
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			loop(b, func() { m.draw(s, w) })
		})
	}
}

func BenchmarkBinomial(b *testing.B) {
	for _, c := range []struct {
		n int64
		p float64
	}{{100, 0.02}, {1000000, 0.5}, {1000000, 0.3}, {1000, 0.05}} {
		s := NewStream(1, "bench")
		b.Run(fmt.Sprintf("n=%d/p=%v", c.n, c.p), func(b *testing.B) {
			var sink int64
			loop(b, func() { sink += s.Binomial(c.n, c.p) })
			_ = sink
		})
	}
}

// BenchmarkTallyAdd is the cost a case of counting its contribution.
func BenchmarkTallyAdd(b *testing.B) {
	t := NewTally(3)
	i := 0
	loop(b, func() {
		t.Add(float64(i&3), float64(i&1), 1)
		i++
	})
}

// BenchmarkComparePassFail is a paired comparison of two runs of a
// million cases: McNemar and the paired bootstrap (B = 2,000).
func BenchmarkComparePassFail(b *testing.B) {
	pc := PairCounts{Both: 850000, BaselineOnly: 40000, CandidateOnly: 35000, Neither: 75000}
	loop(b, func() { ComparePassFail(pc, CompareOptions{}) })
}

// BenchmarkBootstrapAll is a dimension's four figures (precision, recall,
// F1, error rate) over one set of 1,000 resamples, K = 100.
func BenchmarkBootstrapAll(b *testing.B) {
	t := benchTally(100)
	stats := []func([]float64) float64{
		func(s []float64) float64 { return s[0] / s[1] },
		func(s []float64) float64 { return s[0] / s[2] },
		f1,
		func(s []float64) float64 { return (s[1] - s[0]) / s[1] },
	}
	loop(b, func() { t.BootstrapAll(stats, Options{}) })
}
