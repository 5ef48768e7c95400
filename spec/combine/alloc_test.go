package combine

import "testing"

// TestNoAllocsPerTuple checks that streaming allocates nothing per tuple:
// a call yielding 100 times as many tuples allocates exactly as often.
func TestNoAllocsPerTuple(t *testing.T) {
	if raceEnabled {
		t.Skip("slow under the race detector; allocation counts do not depend on it")
	}
	sum := 0
	yield := func(tuple []int) bool { sum += tuple[0]; return true }
	tests := []struct {
		name       string
		small, big func()
	}{
		{"uniq", func() { _ = Uniq([]int{1000, 7, 3}, 1, yield) }, func() { _ = Uniq([]int{100_000, 7, 3}, 1, yield) }},
		{"uniq keyed permutation", func() { _ = Uniq([]int{tableMax + 100, tableMax + 1, 3}, 1, yield) },
			func() { _ = Uniq([]int{tableMax + 10_000, tableMax + 1, 3}, 1, yield) }},
		{"product", func() { _, _ = Product([]int{10, 10, 10}, 0, yield) }, func() { _, _ = Product([]int{100, 100, 100}, 0, yield) }},
		{"random shuffle", func() { _, _ = Random([]int{100, 100}, 100, 1, yield) }, func() { _, _ = Random([]int{100, 100}, 10_000, 1, yield) }},
		{"random permutation", func() { _, _ = Random([]int{1000, 1000}, 1000, 1, yield) }, func() { _, _ = Random([]int{1000, 1000}, 100_000, 1, yield) }},
		{"pairwise Latin rectangle", func() { _ = Pairwise([]int{10, 10, 10}, 1, yield) }, func() { _ = Pairwise([]int{100, 100, 10}, 1, yield) }},
		{"pairwise product", func() { _ = Pairwise([]int{10, 10}, 1, yield) }, func() { _ = Pairwise([]int{100, 100}, 1, yield) }},
	}
	for _, tc := range tests {
		small := testing.AllocsPerRun(2, tc.small)
		big := testing.AllocsPerRun(2, tc.big)
		if big != small {
			t.Errorf("%s: %v allocations for the small call, %v for one yielding 100× as many tuples", tc.name, small, big)
		}
	}
	_ = sum
}
