package combine

import "testing"

// Run with: go test ./spec/combine -run '^$' -bench . -benchmem
// Each Uniq, Product and Random op streams 1,000,000 tuples; allocs/op is
// the per-call setup, independent of the tuple count (see TestNoAllocsPerTuple).

func BenchmarkUniq(b *testing.B) {
	sizes := []int{1_000_000, 7, 3}
	sum := 0
	yield := func(t []int) bool { sum += t[1]; return true }
	b.ReportAllocs()
	for b.Loop() {
		if err := Uniq(sizes, 1, yield); err != nil {
			b.Fatal(err)
		}
	}
	_ = sum
}

func BenchmarkProduct(b *testing.B) {
	sizes := []int{100, 100, 100}
	sum := 0
	yield := func(t []int) bool { sum += t[2]; return true }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Product(sizes, 0, yield); err != nil {
			b.Fatal(err)
		}
	}
	_ = sum
}

func BenchmarkRandom(b *testing.B) {
	sizes := []int{1000, 1000, 1000}
	sum := 0
	yield := func(t []int) bool { sum += t[2]; return true }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Random(sizes, 1_000_000, 1, yield); err != nil {
			b.Fatal(err)
		}
	}
	_ = sum
}

// BenchmarkPairwise10x10 builds the 10-slot × 10-value array from scratch
// every time (the cache is emptied).
func BenchmarkPairwise10x10(b *testing.B) {
	sizes := repeat(10, 10)
	n := 0
	yield := func([]int) bool { n++; return true }
	b.ReportAllocs()
	for b.Loop() {
		resetPairwiseCache()
		if err := Pairwise(sizes, 1, yield); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairwiseIPOG10x10 is one IPOG run with its finishing passes,
// without the orthogonal array or the search.
func BenchmarkPairwiseIPOG10x10(b *testing.B) {
	sz := repeat(10, 10)
	b.ReportAllocs()
	for b.Loop() {
		a := productArray(sz)
		a.extend(2, nil)
		a.finish()
	}
}
