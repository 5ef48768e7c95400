package combine

import (
	"errors"
	"slices"
	"testing"
)

func TestRandom(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		count int
		want  int
	}{
		{"no slots", nil, 3, 1},
		{"count zero", []int{4, 4}, 0, 0},
		{"small, fewer than total", []int{4, 3, 2}, 10, 10},
		{"small, all of it", []int{4, 3, 2}, 24, 24},
		{"small, more than total", []int{4, 3, 2}, 1000, 24},
		{"one value", []int{1, 1}, 5, 1},
		{"explicit shuffle bound", []int{256, 256}, 70000, 65536},
		{"permutation, all of it", []int{300, 301}, 100000, 90300},
		{"permutation, a sample", []int{1000, 1000, 7}, 5000, 5000},
		{"permutation, odd domain bits", []int{1 << 20, 3}, 3000, 3000},
		{"beyond 2^62", []int{1 << 40, 1 << 40}, 2000, 2000},
		{"beyond 2^64", []int{1 << 50, 1 << 50, 9}, 2000, 2000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, seed := range []uint64{0, 77} {
				got := randomAll(t, tc.sizes, tc.count, seed)
				if len(got) != tc.want {
					t.Fatalf("seed %d: %d tuples, want min(count, total) = %d", seed, len(got), tc.want)
				}
				checkTuples(t, tc.sizes, got)
				checkDistinct(t, got)
				if n, err := Count(StrategyRandom, tc.sizes, 0, tc.count); err != nil || n != uint64(len(got)) {
					t.Fatalf("Count = %d, %v; Random yielded %d", n, err, len(got))
				}
			}
		})
	}
}

func TestRandomSeeds(t *testing.T) {
	for _, sizes := range [][]int{{5, 6, 7}, {1000, 1000}, {1 << 40, 1 << 40}} {
		a, b := randomAll(t, sizes, 50, 9), randomAll(t, sizes, 50, 9)
		if !slices.EqualFunc(a, b, slices.Equal) {
			t.Fatalf("%v: same seed gave different tuples", sizes)
		}
		if c := randomAll(t, sizes, 50, 10); slices.EqualFunc(a, c, slices.Equal) {
			t.Fatalf("%v: seeds 9 and 10 gave the same tuples", sizes)
		}
		// A longer draw starts with the shorter one.
		if d := randomAll(t, sizes, 80, 9); !slices.EqualFunc(a, d[:50], slices.Equal) {
			t.Fatalf("%v: count 80 does not extend count 50", sizes)
		}
	}
}

// Each slot's values should be drawn evenly. With a fixed seed the outcome
// is fixed, so the test cannot flake; it fails if a path is biased. The
// bound is the chi-square critical value at p = 0.001 (NIST/SEMATECH
// e-Handbook of Statistical Methods, §1.3.6.7.4: 27.877 for 9 degrees of
// freedom).
func TestRandomEvenness(t *testing.T) {
	for _, sizes := range [][]int{{10, 1000}, {10, 20000}, {10, 1 << 62}} {
		const draws = 5000
		counts := make([]float64, 10)
		_, err := Random(sizes, draws, 2024, func(tuple []int) bool {
			counts[tuple[0]]++
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		chi := 0.0
		for _, c := range counts {
			chi += (c - draws/10) * (c - draws/10) / (draws / 10)
		}
		t.Logf("%v: chi-square %.2f", sizes, chi)
		if chi > 27.877 {
			t.Errorf("%v: slot 0 counts %v, chi-square %.1f > 27.877", sizes, counts, chi)
		}
	}
}

func TestFeistelIsAPermutation(t *testing.T) {
	for bits := uint(1); bits <= 13; bits++ {
		var f feistel
		f.init(1<<bits, newRNG(uint64(bits), 0, 0))
		domain := uint64(1) << (2 * ((bits + 1) / 2))
		seen := make([]bool, domain)
		for x := range domain {
			y := f.permute(x)
			if y >= domain || seen[y] {
				t.Fatalf("%d bits: permute(%d) = %d repeats or leaves [0, %d)", bits, x, y, domain)
			}
			seen[y] = true
		}
	}
}

func TestRandomStopAndErrors(t *testing.T) {
	for _, sizes := range [][]int{{5, 5}, {1000, 1000}, {1 << 40, 1 << 40}} {
		calls := 0
		n, err := Random(sizes, 20, 1, func([]int) bool { calls++; return calls < 4 })
		if err != nil || n != 4 || calls != 4 {
			t.Fatalf("%v: stop after 4: emitted %d calls %d err %v", sizes, n, calls, err)
		}
	}
	if _, err := Random([]int{3}, -1, 0, func([]int) bool { return true }); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("negative count: err = %v", err)
	}
	if _, err := Count(StrategyRandom, []int{3}, 0, -2); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("Count negative count: err = %v", err)
	}
	if _, err := Random([]int{3, 0}, 5, 0, func([]int) bool { return true }); !errors.Is(err, ErrInvalidSize) {
		t.Fatalf("empty slot: err = %v", err)
	}
}

// Cycle walking restricts the network to a permutation of [0, n) for any n.
func TestFeistelAt(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 5, 17, 100, 1000, 4097, 70001} {
		var f feistel
		f.init(n, newRNG(n, 0, 0))
		seen := make([]bool, n)
		for x := range n {
			y := f.at(x)
			if y >= n || seen[y] {
				t.Fatalf("n=%d: at(%d) = %d repeats or leaves [0, n)", n, x, y)
			}
			seen[y] = true
		}
	}
}
