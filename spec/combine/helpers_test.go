package combine

import (
	"fmt"
	"slices"
	"testing"
)

// collect runs a streaming strategy and copies every tuple it yields.
func collect(t testing.TB, run func(yield func([]int) bool) error) [][]int {
	t.Helper()
	var out [][]int
	if err := run(func(tuple []int) bool {
		out = append(out, slices.Clone(tuple))
		return true
	}); err != nil {
		t.Fatalf("strategy failed: %v", err)
	}
	return out
}

func uniqAll(t testing.TB, sizes []int, seed uint64) [][]int {
	return collect(t, func(y func([]int) bool) error { return Uniq(sizes, seed, y) })
}

func pairwiseAll(t testing.TB, sizes []int, seed uint64) [][]int {
	return collect(t, func(y func([]int) bool) error { return Pairwise(sizes, seed, y) })
}

func randomAll(t testing.TB, sizes []int, count int, seed uint64) [][]int {
	return collect(t, func(y func([]int) bool) error {
		n, err := Random(sizes, count, seed, y)
		if err == nil && n != 0 && n > count {
			return fmt.Errorf("emitted %d > count %d", n, count)
		}
		return err
	})
}

func productAll(t testing.TB, sizes []int, limit int) ([][]int, uint64) {
	var dropped uint64
	out := collect(t, func(y func([]int) bool) error {
		var err error
		dropped, err = Product(sizes, limit, y)
		return err
	})
	return out, dropped
}

// checkTuples fails unless every tuple has one in-range index per slot.
func checkTuples(t testing.TB, sizes []int, tuples [][]int) {
	t.Helper()
	for r, tuple := range tuples {
		if len(tuple) != len(sizes) {
			t.Fatalf("tuple %d = %v has %d slots, want %d", r, tuple, len(tuple), len(sizes))
		}
		for i, v := range tuple {
			if v < 0 || v >= sizes[i] {
				t.Fatalf("tuple %d = %v: slot %d value %d out of [0, %d)", r, tuple, i, v, sizes[i])
			}
		}
	}
}

// checkDistinct fails if two tuples are alike.
func checkDistinct(t testing.TB, tuples [][]int) {
	t.Helper()
	seen := make(map[string]int, len(tuples))
	for r, tuple := range tuples {
		k := fmt.Sprint(tuple)
		if first, dup := seen[k]; dup {
			t.Fatalf("tuples %d and %d are both %v", first, r, tuple)
		}
		seen[k] = r
	}
}

// checkValues fails unless every value of every slot appears.
func checkValues(t testing.TB, sizes []int, tuples [][]int) {
	t.Helper()
	for i, s := range sizes {
		seen := make([]bool, s)
		for _, tuple := range tuples {
			seen[tuple[i]] = true
		}
		if j := slices.Index(seen, false); j >= 0 {
			t.Fatalf("slot %d value %d never appears in %d tuples", i, j, len(tuples))
		}
	}
}

// checkPairs fails unless, for every two slots, every combination of their
// values appears in some tuple. It is written independently of the
// construction: a plain set of (slot, value, slot, value) keys.
func checkPairs(t testing.TB, sizes []int, tuples [][]int) {
	t.Helper()
	type pair struct{ i, vi, j, vj int }
	seen := make(map[pair]bool)
	for _, tuple := range tuples {
		for i := range tuple {
			for j := i + 1; j < len(tuple); j++ {
				seen[pair{i, tuple[i], j, tuple[j]}] = true
			}
		}
	}
	for i := range sizes {
		for j := i + 1; j < len(sizes); j++ {
			for vi := range sizes[i] {
				for vj := range sizes[j] {
					if !seen[pair{i, vi, j, vj}] {
						t.Fatalf("pair slot %d=%d with slot %d=%d is not covered by %d tuples",
							i, vi, j, vj, len(tuples))
					}
				}
			}
		}
	}
}

func repeat(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}
