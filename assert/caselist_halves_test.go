package assert

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// TestSortCaseKeysHalvesMatchStable checks the order Cases gives a long
// list — each half sorted on its own and the halves merged — against one
// stable sort by the report's order (outcome, failed checks, source order,
// id; ties in listing order), on lists with many ties, Chinese and
// repeated ids (--repeat lists an id more than once) and halves of odd
// sizes.
func TestSortCaseKeysHalvesMatchStable(t *testing.T) {
	stable := func(a, b caseKey) int {
		if a.outcome != b.outcome {
			return -cmp.Compare(a.outcome, b.outcome)
		}
		if a.nfail != b.nfail {
			return -cmp.Compare(a.nfail, b.nfail)
		}
		if a.order != b.order {
			return cmp.Compare(a.order, b.order)
		}
		return strings.Compare(a.id, b.id)
	}
	// Ids equal in their first 8 bytes, or apart only in zero bytes, and
	// bytes past 0x7f: the keys' 8-byte prefixes must order as the ids.
	ids := []string{"a-1", "a-2", "b-1", "订票-1", "订票-2", "天气/北京-1", "天气/北京-10", "天气/北京-2", "",
		"ab", "ab\x00", "ab\x00\x00", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgha", "\xff\xfe", "\x7f", "00002f7c8f0ea887", "00002f7c8f0ea886"}
	outcomes := []schema.Outcome{schema.Pass, schema.Fail, schema.Error}
	rng := rand.New(rand.NewPCG(27, 2))
	for _, n := range []int{0, 1, 2, 3, 17, 1000, 4097, 20001} {
		keys := make([]caseKey, n)
		for i := range keys {
			keys[i] = newCaseKey(outcomes[rng.IntN(len(outcomes))], rng.IntN(3), rng.IntN(4), ids[rng.IntN(len(ids))], i)
		}
		want := slices.Clone(keys)
		slices.SortStableFunc(want, stable)
		wantOrder := make([]int32, n)
		for i, k := range want {
			wantOrder[i] = k.i
		}
		got := slices.Clone(keys)
		inHalves(true, n, func(lo, hi int) { slices.SortFunc(got[lo:hi], compareCaseKeys) })
		if order := mergeCaseKeys(got, n/2); !slices.Equal(order, wantOrder) {
			t.Fatalf("%d keys: the halves merged give another order than one stable sort", n)
		}
		one := slices.Clone(keys)
		inHalves(false, n, func(lo, hi int) { slices.SortFunc(one[lo:hi], compareCaseKeys) })
		if order := mergeCaseKeys(one, n); !slices.Equal(one, want) || !slices.Equal(order, wantOrder) {
			t.Fatalf("%d keys: one sort gives another order than a stable sort", n)
		}
	}
}
