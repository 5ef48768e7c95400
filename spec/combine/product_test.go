package combine

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestProductOrder(t *testing.T) {
	got, dropped := productAll(t, []int{2, 3}, 0)
	want := [][]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}
	if !slices.EqualFunc(got, want, slices.Equal) || dropped != 0 {
		t.Fatalf("Product([2 3]) = %v dropped %d, want %v dropped 0", got, dropped, want)
	}
}

func TestProduct(t *testing.T) {
	tests := []struct {
		name         string
		sizes        []int
		limit        int
		wantN        int
		wantDropped  uint64
		wantComplete bool // every tuple of the product appears
	}{
		{"no slots", nil, 0, 1, 0, true},
		{"one value", []int{1, 1}, 0, 1, 0, true},
		{"one slot", []int{5}, 0, 5, 0, true},
		{"uneven", []int{10, 2, 7, 3}, 0, 420, 0, true},
		{"limit above total", []int{3, 4}, 100, 12, 0, true},
		{"limit equal total", []int{3, 4}, 12, 12, 0, true},
		{"limit cuts", []int{3, 4, 5}, 7, 7, 53, false},
		{"negative limit is no cap", []int{2, 2, 2}, -1, 8, 0, true},
		// 2^40 · 2^40 · 1000 overflows uint64: emit to the limit, saturate.
		{"overflowing", []int{1 << 40, 1 << 40, 1000}, 5, 5, math.MaxUint64, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := productAll(t, tc.sizes, tc.limit)
			if len(got) != tc.wantN || dropped != tc.wantDropped {
				t.Fatalf("%d tuples dropped %d, want %d dropped %d", len(got), dropped, tc.wantN, tc.wantDropped)
			}
			checkTuples(t, tc.sizes, got)
			checkDistinct(t, got)
			if tc.wantComplete {
				checkPairs(t, tc.sizes, got)
			}
			// Mixed-radix order: each tuple is the previous one plus one.
			for r := 1; r < len(got); r++ {
				if slices.Compare(got[r-1], got[r]) >= 0 {
					t.Fatalf("tuple %d %v does not follow %v", r, got[r], got[r-1])
				}
			}
			if n, err := Count(StrategyProduct, tc.sizes, tc.limit, 0); err != nil || n != uint64(len(got)) {
				t.Fatalf("Count = %d, %v; Product yielded %d", n, err, len(got))
			}
		})
	}
}

func TestProductOverflowOrder(t *testing.T) {
	got, _ := productAll(t, []int{1 << 40, 1 << 40, 3}, 4)
	want := [][]int{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 1, 0}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// dropped is exact just above 2^64, where total − emitted fits again.
func TestSaturatingSub(t *testing.T) {
	sizes := []int{1 << 33, 1<<31 + 1} // 2^64 + 2^33
	if got := saturatingSub(sizes, 1<<33+5); got != math.MaxUint64-4 {
		t.Fatalf("2^64+2^33 − (2^33+5) = %d, want 2^64−5", got)
	}
	if got := saturatingSub(sizes, 1<<33-1); got != math.MaxUint64 {
		t.Fatalf("2^64+1 saturates: got %d", got)
	}
	if got := saturatingSub([]int{1 << 40, 1 << 40}, 3); got != math.MaxUint64 {
		t.Fatalf("2^80−3 saturates: got %d", got)
	}
	if got := saturatingSub([]int{6, 7}, 40); got != 2 {
		t.Fatalf("42−40 = %d", got)
	}
}

func TestProductStopAndErrors(t *testing.T) {
	calls := 0
	dropped, err := Product([]int{4, 5}, 0, func([]int) bool { calls++; return calls < 3 })
	if err != nil || calls != 3 || dropped != 17 {
		t.Fatalf("stopping after 3 of 20: calls %d dropped %d err %v, want 3, 17, nil", calls, dropped, err)
	}
	if _, err := Product([]int{2, 0}, 0, func([]int) bool { return true }); !errors.Is(err, ErrInvalidSize) {
		t.Fatalf("err = %v, want ErrInvalidSize", err)
	}
	n, err := Count(StrategyProduct, []int{1 << 40, 1 << 40}, 0, 0)
	if err != nil || n != math.MaxUint64 {
		t.Fatalf("Count of 2^80 = %d, %v; want saturated", n, err)
	}
}
