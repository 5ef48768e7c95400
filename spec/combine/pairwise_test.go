package combine

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/cputime"
)

func TestPairwiseCoverage(t *testing.T) {
	shapes := [][]int{
		nil,
		{1},
		{6},
		{1, 1, 1},
		{4, 1},
		{3, 4},             // two slots: the full product
		{1, 5, 1, 3, 1},    // two slots with more than one value
		{5, 4, 3},          // three: a Latin rectangle
		{2, 2, 2, 2},       // binary
		{3, 3, 3, 3},       // OA(9; 4, 3, 2)
		{10, 2, 7, 3},      // uneven
		{2, 7, 3, 10},      // the same, largest last
		{4, 1, 4, 4, 1, 4}, // one-value slots between
		{8, 8, 8, 8, 8, 8}, // GF(8)
		{9, 9, 9, 9, 9},    // GF(9)
		{6, 6, 6, 6, 6},
		{5, 4, 3, 2, 2, 2, 2},
		{12, 11, 10, 3, 3, 2},
		{20, 3, 3, 3},
		repeat(13, 3),
		repeat(10, 10),
		repeat(30, 2),
		repeat(20, 4),
		append(repeat(3, 6), repeat(20, 2)...),
	}
	for _, sizes := range shapes {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			got := pairwiseAll(t, sizes, 11)
			checkTuples(t, sizes, got)
			checkDistinct(t, got)
			checkValues(t, sizes, got)
			checkPairs(t, sizes, got)
			n, err := Count(StrategyPairwise, sizes, 0, 0)
			if err != nil || n != uint64(len(got)) {
				t.Fatalf("Count = %d, %v; Pairwise yielded %d", n, err, len(got))
			}
			if other := pairwiseAll(t, sizes, 12); len(other) != len(got) {
				t.Fatalf("seed 12 gave %d tuples, seed 11 gave %d", len(other), len(got))
			}
		})
	}
}

// Exact sizes where the answer is known: with at most two slots of more
// than one value, all pairs are the product; with three, the product of the
// two largest (a Latin rectangle reaches that trivial lower bound); and with
// up to q+1 slots of q values, q a prime power, the orthogonal array
// OA(q²; q+1, q, 2) of Bush (1952) reaches the lower bound q².
func TestPairwiseOptimal(t *testing.T) {
	tests := []struct {
		sizes []int
		want  int
	}{
		{[]int{1}, 1},
		{[]int{7}, 7},
		{[]int{3, 1, 5}, 15},
		{[]int{9, 4, 6}, 54},
		{[]int{100, 100, 100}, 10000},
		{[]int{5, 5, 5, 5}, 25},
		{[]int{3, 3, 3}, 9},
		{repeat(3, 2), 4},
		{repeat(4, 3), 9},
		{repeat(5, 4), 16},
		{repeat(6, 5), 25},
		{repeat(8, 7), 49},
		{repeat(9, 8), 64},
		{repeat(10, 9), 81},
		{repeat(12, 11), 121},
		{repeat(17, 16), 256},
		{repeat(26, 25), 625},
		{repeat(28, 27), 729},
		{[]int{10, 2, 7, 3}, 70}, // 10·7 is a lower bound
	}
	for _, tc := range tests {
		got := pairwiseAll(t, tc.sizes, 3)
		if len(got) != tc.want {
			t.Errorf("%v: %d tuples, want the optimum %d", tc.sizes, len(got), tc.want)
		}
		checkPairs(t, tc.sizes, got)
	}
}

// Quality bars. The first four are the design's bars (optima: 25 for 4×5,
// 9 for 3×3×3, 15 for 13×3). The last two compare with AETG's published
// sizes, 10 for 2^100 and 180 for 10^20 (Cohen et al., "The AETG System",
// IEEE TSE 23(7), 1997, as tabulated in Czerwonka, "Pairwise Testing in Real
// World", PNSQC 2006), with some slack.
func TestPairwiseQuality(t *testing.T) {
	tests := []struct {
		sizes []int
		most  int
	}{
		{repeat(4, 5), 35},
		{repeat(3, 3), 10},
		{repeat(13, 3), 20},
		{repeat(10, 10), 180},
		{repeat(100, 2), 16},
		{repeat(20, 10), 220},
	}
	for _, tc := range tests {
		// CPU time, not wall-clock time: a machine busy with other work
		// does not make the search look slow.
		cpu0, cpuOK := cputime.Process()
		resetPairwiseCache()
		got := pairwiseAll(t, tc.sizes, 0)
		cpu1, _ := cputime.Process()
		cpu := cpu1 - cpu0
		checkPairs(t, tc.sizes, got)
		checkDistinct(t, got)
		t.Logf("%d slots × %d values: %d tuples in %v of CPU time", len(tc.sizes), tc.sizes[0], len(got), cpu)
		if len(got) > tc.most {
			t.Errorf("%d slots × %d values: %d tuples, want at most %d", len(tc.sizes), tc.sizes[0], len(got), tc.most)
		}
		if cpuOK && !raceEnabled && cpu > time.Second {
			t.Errorf("%d slots × %d values took %v of CPU time, want under 1s", len(tc.sizes), tc.sizes[0], cpu)
		}
	}
}

func TestPairwiseSeeds(t *testing.T) {
	for _, sizes := range [][]int{{4, 4, 4, 4, 4}, {3, 5}, {6, 5, 4}, {10, 2, 7, 3}} {
		a, b := pairwiseAll(t, sizes, 1), pairwiseAll(t, sizes, 1)
		if !slices.EqualFunc(a, b, slices.Equal) {
			t.Fatalf("%v: same seed gave different tuples", sizes)
		}
		if c := pairwiseAll(t, sizes, 2); slices.EqualFunc(a, c, slices.Equal) {
			t.Fatalf("%v: seeds 1 and 2 gave the same tuples", sizes)
		}
	}
}

// The cache returns what a fresh build returns.
func TestPairwiseCache(t *testing.T) {
	sizes := []int{7, 6, 5, 4, 3}
	resetPairwiseCache()
	fresh := pairwiseAll(t, sizes, 4)
	cached := pairwiseAll(t, sizes, 4)
	if !slices.EqualFunc(fresh, cached, slices.Equal) {
		t.Fatal("cached array differs from the fresh one")
	}
	// Eviction keeps the cache within its bounds.
	for i := range cacheEntries + 5 {
		if _, err := Count(StrategyPairwise, []int{3, 3, 3, 2, i%7 + 2, i/7 + 2}, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	c := &pairwiseCache
	c.Lock()
	defer c.Unlock()
	if len(c.rows) > cacheEntries || len(c.order) != len(c.rows) {
		t.Fatalf("cache holds %d arrays (%d in order), bound %d", len(c.rows), len(c.order), cacheEntries)
	}
}

func TestPairwiseErrors(t *testing.T) {
	never := func([]int) bool { t.Fatal("yielded"); return false }
	if err := Pairwise([]int{3, 0, 3}, 0, never); !errors.Is(err, ErrInvalidSize) {
		t.Fatalf("empty slot: err = %v", err)
	}
	if err := Pairwise([]int{4000, 4000, 3, 3}, 0, never); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("16M-tuple array: err = %v, want ErrTooLarge", err)
	}
	if _, err := Count(StrategyPairwise, []int{4000, 4000, 3, 3}, 0, 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Count: err = %v, want ErrTooLarge", err)
	}
	if err := Pairwise([]int{1 << 40, 2, 1 << 40, 1 << 40}, 0, never); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("2^80-tuple array: err = %v, want ErrTooLarge", err)
	}
	// Too many value pairs to track.
	if _, err := Count(StrategyPairwise, repeat(150, 100), 0, 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("150 slots × 100 values: err = %v, want ErrTooLarge", err)
	}
	// IPOG too slow, and more slots than an orthogonal array of order 64 has.
	if _, err := Count(StrategyPairwise, repeat(66, 64), 0, 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("66 slots × 64 values: err = %v, want ErrTooLarge", err)
	}
	// IPOG too slow, but the orthogonal array of order 809 serves.
	if n, err := Count(StrategyPairwise, []int{800, 800, 800, 800}, 0, 0); err != nil || n < 640000 || n > 809*809 {
		t.Fatalf("4 slots × 800 values: %d, %v; want between 800² and 809²", n, err)
	}
	calls := 0
	if err := Pairwise(repeat(5, 4), 0, func([]int) bool { calls++; return calls < 3 }); err != nil || calls != 3 {
		t.Fatalf("stop after 3: calls %d err %v", calls, err)
	}
	// Two-slot and three-slot shapes stream however large they are.
	calls = 0
	if err := Pairwise([]int{1 << 40, 1 << 40, 1 << 40}, 0, func([]int) bool { calls++; return calls < 5 }); err != nil || calls != 5 {
		t.Fatalf("huge Latin rectangle: calls %d err %v", calls, err)
	}
}

func TestGF(t *testing.T) {
	for _, q := range []int{2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 64, 81, 125, 128, 243, 256} {
		f := newGF(q)
		if f == nil {
			t.Fatalf("GF(%d) not built", q)
		}
		for x := range q {
			if f.Add(x, 0) != x || f.Mul(x, 1) != x || f.Mul(x, 0) != 0 {
				t.Fatalf("GF(%d): identities fail at %d", q, x)
			}
			inverses := 0
			for y := range q {
				if f.Add(x, y) != f.Add(y, x) || f.Mul(x, y) != f.Mul(y, x) {
					t.Fatalf("GF(%d): not commutative at %d, %d", q, x, y)
				}
				if f.Mul(x, y) == 1 {
					inverses++
				}
			}
			if want := min(x, 1); inverses != want {
				t.Fatalf("GF(%d): %d has %d inverses, want %d", q, x, inverses, want)
			}
		}
		step := max(1, q/16) // all triples for small fields, a grid for large
		for x := 0; x < q; x += step {
			for y := 0; y < q; y += step {
				for z := range q {
					if f.Mul(x, f.Add(y, z)) != f.Add(f.Mul(x, y), f.Mul(x, z)) ||
						f.Mul(x, f.Mul(y, z)) != f.Mul(f.Mul(x, y), z) ||
						f.Add(x, f.Add(y, z)) != f.Add(f.Add(x, y), z) {
						t.Fatalf("GF(%d): field laws fail at %d, %d, %d", q, x, y, z)
					}
				}
			}
		}
	}
	for _, q := range []int{0, 1, 6, 10, 12, 1024} {
		if newGF(q) != nil {
			t.Errorf("GF(%d) built, want nil", q)
		}
	}
	for n, want := range map[int]int{1: 2, 6: 7, 10: 11, 14: 16, 255: 256, 257: 257, 258: 263, 1000: 1009} {
		if got := nextField(n); got != want {
			t.Errorf("nextField(%d) = %d, want %d", n, got, want)
		}
	}
}

// The sizes quoted in Pairwise's documentation.
func TestPairwiseDocumentedSizes(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		want  uint64
	}{{repeat(4, 5), 25}, {repeat(13, 3), 15}, {repeat(10, 10), 116}} {
		if n, err := Count(StrategyPairwise, tc.sizes, 0, 0); err != nil || n != tc.want {
			t.Errorf("%v: Count = %d, %v; the documentation says %d", tc.sizes, n, err, tc.want)
		}
	}
}

func TestCountErrors(t *testing.T) {
	if _, err := Count("exhaustive", []int{2}, 0, 0); !errors.Is(err, ErrUnknownStrategy) {
		t.Fatalf("unknown strategy: err = %v", err)
	}
	for _, s := range Strategies() {
		if _, err := Count(s, []int{2, 0}, 0, 0); !errors.Is(err, ErrInvalidSize) {
			t.Fatalf("%s with an empty slot: err = %v", s, err)
		}
		if n, err := Count(s, nil, 0, 1); err != nil || n != 1 {
			t.Fatalf("%s with no slots: %d, %v; want 1", s, n, err)
		}
	}
	if DefaultStrategy != StrategyUniq {
		t.Fatalf("default strategy %q, SPEC §5 says uniq", DefaultStrategy)
	}
}
