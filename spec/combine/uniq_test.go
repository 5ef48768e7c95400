package combine

import (
	"errors"
	"maps"
	"slices"
	"testing"
)

func TestUniq(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"one slot", []int{7}},
		{"one value", []int{1}},
		{"all one value", []int{1, 1, 1}},
		{"the IAO corpus-factory write-up template", []int{3, 5, 4}}, // {查询操作}{手机号11位}的{伴随关系}人员
		{"equal slots", []int{6, 6, 6}},
		{"largest last", []int{2, 3, 11}},
		{"uneven", []int{10, 2, 7, 3}},
		{"many cycles", []int{2, 97, 5, 1, 13}},
		{"two largest", []int{4, 9, 9, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, seed := range []uint64{0, 1, 20240601} {
				got := uniqAll(t, tc.sizes, seed)
				if want := slices.Max(tc.sizes); len(got) != want {
					t.Fatalf("seed %d: %d tuples, want max(sizes) = %d", seed, len(got), want)
				}
				checkTuples(t, tc.sizes, got)
				checkDistinct(t, got)
				checkValues(t, tc.sizes, got)
				if n, err := Count(StrategyUniq, tc.sizes, 0, 0); err != nil || n != uint64(len(got)) {
					t.Fatalf("Count = %d, %v; Uniq yielded %d", n, err, len(got))
				}
			}
		})
	}
}

// The first largest slot walks its values in order; every other slot shows
// each of its values once per cycle of its size.
func TestUniqWalkAndCycles(t *testing.T) {
	sizes := []int{4, 9, 9, 3}
	got := uniqAll(t, sizes, 5)
	for r, tuple := range got {
		if tuple[1] != r {
			t.Fatalf("tuple %d = %v: walking slot 1 holds %d, want %d", r, tuple, tuple[1], r)
		}
	}
	for _, i := range []int{0, 2, 3} {
		s := sizes[i]
		for start := 0; start+s <= len(got); start += s {
			cycle := make([]int, 0, s)
			for _, tuple := range got[start : start+s] {
				cycle = append(cycle, tuple[i])
			}
			slices.Sort(cycle)
			for v := range s {
				if cycle[v] != v {
					t.Fatalf("slot %d tuples %d..%d hold %v, not a permutation of 0..%d", i, start, start+s-1, cycle, s-1)
				}
			}
		}
	}
}

func TestUniqSeeds(t *testing.T) {
	sizes := []int{5, 12, 8, 3}
	a, b := uniqAll(t, sizes, 1), uniqAll(t, sizes, 1)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatal("same seed gave different tuples")
	}
	if c := uniqAll(t, sizes, 2); slices.EqualFunc(a, c, slices.Equal) {
		t.Fatal("seeds 1 and 2 gave the same tuples")
	}
	// A slot's shuffle depends on its own stream: growing another slot does
	// not change it.
	grown := uniqAll(t, []int{5, 12, 8, 4}, 1)
	for r := range a {
		if a[r][0] != grown[r][0] || a[r][2] != grown[r][2] {
			t.Fatalf("tuple %d: %v became %v when slot 3 grew", r, a[r], grown[r])
		}
	}
}

func TestUniqEdges(t *testing.T) {
	if got := uniqAll(t, nil, 0); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("no slots: got %v, want one empty tuple", got)
	}
	for _, bad := range [][]int{{0}, {3, -1}, {2, 0, 2}} {
		err := Uniq(bad, 0, func([]int) bool { t.Fatal("yielded for bad sizes"); return true })
		if !errors.Is(err, ErrInvalidSize) {
			t.Fatalf("sizes %v: err = %v, want ErrInvalidSize", bad, err)
		}
	}
	calls := 0
	if err := Uniq([]int{10, 3}, 0, func([]int) bool { calls++; return calls < 4 }); err != nil || calls != 4 {
		t.Fatalf("stopping after 4: calls = %d, err = %v", calls, err)
	}
}

// A caller that scribbles on the yielded slice does not derail any stream.
func TestCallerMutation(t *testing.T) {
	sizes := []int{6, 1, 4, 3, 1}
	strategies := map[string]func(y func([]int) bool) error{
		"uniq": func(y func([]int) bool) error { return Uniq(sizes, 3, y) },
		"product": func(y func([]int) bool) error {
			_, err := Product(sizes, 0, y)
			return err
		},
		"pairwise":         func(y func([]int) bool) error { return Pairwise(sizes, 3, y) },
		"pairwise product": func(y func([]int) bool) error { return Pairwise([]int{1, 5, 1, 3}, 3, y) },
		"pairwise Latin":   func(y func([]int) bool) error { return Pairwise([]int{1, 5, 4, 3}, 3, y) },
		"random": func(y func([]int) bool) error {
			_, err := Random(sizes, 50, 3, y)
			return err
		},
		"random huge": func(y func([]int) bool) error {
			_, err := Random([]int{1 << 40, 1, 1 << 40}, 50, 3, y)
			return err
		},
	}
	for _, name := range slices.Sorted(maps.Keys(strategies)) {
		run := strategies[name]
		want := collect(t, run)
		got := collect(t, func(y func([]int) bool) error {
			return run(func(tuple []int) bool {
				ok := y(tuple)
				for i := range tuple {
					tuple[i] = -7
				}
				return ok
			})
		})
		if !slices.EqualFunc(want, got, slices.Equal) {
			t.Fatalf("%s: mutating the yielded slice changed the stream:\n%v\n%v", name, want, got)
		}
	}
}
