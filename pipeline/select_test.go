package pipeline_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// The N shards of a selection partition it: every case in exactly one.
func TestShardsPartitionTheCases(t *testing.T) {
	s := weatherSuite(t, 60)
	all := ids(t, s, pipeline.Selection{})
	if len(all) != 120 {
		t.Fatalf("the suite generates %d cases, want 120", len(all))
	}
	for n := 1; n <= 5; n++ {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			part := ids(t, s, mustSelection(t, "", "", pipeline.Shard{K: k, N: n}.String()))
			if n > 1 && (len(part) == 0 || len(part) == len(all)) {
				t.Errorf("shard %d/%d holds %d of %d cases: not a partition worth the name", k, n, len(part), len(all))
			}
			for _, id := range part {
				seen[id]++
			}
		}
		for _, id := range all {
			if seen[id] != 1 {
				t.Errorf("with %d shards, case %s is in %d shards, want 1", n, id, seen[id])
			}
		}
	}
}

// Shards are even for ids that differ only at the end ("utt-0"…"utt-9999"):
// each of 4 shards holds 2,500 ± 150 of 10,000 (the binomial standard
// deviation is 43); before spec.UnitHash's fmix64 finaliser they did not.
func TestShardsAreEvenForSequentialIDs(t *testing.T) {
	var count [4]int
	for i := range 10000 {
		id := "utt-" + strconv.Itoa(i)
		for k := 1; k <= 4; k++ {
			if (pipeline.Shard{K: k, N: 4}).Has(id) {
				count[k-1]++
			}
		}
	}
	for k, n := range count {
		if n < 2350 || n > 2650 {
			t.Errorf("shard %d/4 holds %d of 10,000 sequential ids, want 2,500 ± 150 (all: %v)", k+1, n, count)
		}
	}
}

// A case's shard depends on its id only: adding cases never moves old
// ones, and every machine (and version) agrees.
func TestShardIsStable(t *testing.T) {
	small, big := weatherSuite(t, 20), weatherSuite(t, 50)
	for k := 1; k <= 3; k++ {
		sel := mustSelection(t, "", "", pipeline.Shard{K: k, N: 3}.String())
		bigSet := ids(t, big, sel)
		for _, id := range ids(t, small, sel) {
			if !slices.Contains(bigSet, id) {
				t.Errorf("case %s left shard %d/3 when cases were added", id, k)
			}
		}
	}
	// Pinned: a change here moves cases between the shards of runs
	// recorded by earlier versions (merge and resume would mix them).
	// Changed deliberately once: spec.UnitHash gained its fmix64 finaliser.
	want := map[string]int{
		"89cd8381e27fc9ce": 2, "dfd9b2aaab0ca9f4": 2, "e99f54c650ef7fa6": 2, "0ae4a1b3b24ac6d8": 3,
		"4ef08bb6a9990ab1": 2, "a8743ea8002d02d5": 3, "9051b19b65291ff9": 2, "0a608b1cc9fd81fa": 3,
	}
	for id, k := range want {
		for j := 1; j <= 3; j++ {
			if got := (pipeline.Shard{K: j, N: 3}).Has(id); got != (j == k) {
				t.Errorf("case %s in shard %d/3: %v, want it in shard %d/3 only", id, j, got, k)
			}
		}
	}
}

// Split, filter and shard combine as intersections; the filter matches a
// case's template name, id or text.
func TestSelectionCombinesSplitFilterAndShard(t *testing.T) {
	s := weatherSuite(t, 30)
	all := ids(t, s, pipeline.Selection{})
	for _, tc := range []struct {
		split, filter, shard string
		want                 int
	}{
		{"", "", "", 60},
		{"smoke", "", "", 30},
		{"", "订机票", "", 30},       // template name
		{"", "城市00[0-4]", "", 10}, // text, both templates
		{"smoke", "城市00[0-4]", "", 5},
	} {
		sel := mustSelection(t, tc.split, tc.filter, tc.shard)
		n, err := sel.Count(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n.Total != tc.want {
			t.Errorf("split %q filter %q: %d cases, want %d", tc.split, tc.filter, n.Total, tc.want)
		}
		sum := 0
		for _, v := range n.PerSource {
			sum += v
		}
		if sum != n.Total {
			t.Errorf("split %q filter %q: per-source counts add up to %d, not %d", tc.split, tc.filter, sum, n.Total)
		}
	}
	// The filter also matches ids.
	if n, _ := mustSelection(t, "", "^"+all[3]+"$", "").Count(s, nil); n.Total != 1 {
		t.Errorf("a filter of one case id selects %d cases, want 1", n.Total)
	}
	// Shards of a filtered selection partition the filtered cases.
	sel := mustSelection(t, "smoke", "城市01", "")
	whole, _ := sel.Count(s, nil)
	sum := 0
	for k := 1; k <= 3; k++ {
		part, _ := mustSelection(t, "smoke", "城市01", pipeline.Shard{K: k, N: 3}.String()).Count(s, nil)
		sum += part.Total
	}
	if sum != whole.Total {
		t.Errorf("3 shards of split smoke filter 城市01 hold %d cases, the whole %d", sum, whole.Total)
	}
}

func TestSelectionRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ split, filter, shard, want string }{
		{"", "([", "", "--filter is not a valid regular expression"},
		{"", "", "0/4", "--shard takes K/N"},
		{"", "", "5/4", "--shard takes K/N"},
		{"", "", "1/0", "--shard takes K/N"},
		{"", "", "02/4", "--shard takes K/N"},
		{"", "", "2/4x", "--shard takes K/N"},
		{"", "", "two", "--shard takes K/N"},
	} {
		_, err := pipeline.NewSelection(tc.split, tc.filter, tc.shard)
		var ie *pipeline.InvalidError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewSelection(%q, %q, %q) = %v, want an InvalidError saying %q", tc.split, tc.filter, tc.shard, err, tc.want)
		}
	}
	for _, ok := range []string{"", "1/1", "2/4", "4/4", "10/12"} {
		sh, err := pipeline.ParseShard(ok)
		if err != nil || sh.String() != ok {
			t.Errorf("ParseShard(%q) = %v, %v; want it back unchanged", ok, sh, err)
		}
	}
	s := weatherSuite(t, 3)
	err := mustSelection(t, "nightly", "", "").Check(s)
	if err == nil || !strings.Contains(err.Error(), `the suite has no split "nightly" (splits: smoke)`) {
		t.Errorf("an unknown split: %v", err)
	}
}

// A script is selected whole: the shard keys on the script id (not its
// turns' ids), and the filter matches its source, its id or any turn.
func TestSelectionKeepsWholeScripts(t *testing.T) {
	sc := &schema.Script{ID: "0ae4a1b3b24ac6d8", Source: "订票对话", SourceKind: "conversation", Turns: []*schema.Case{
		{ID: "89cd8381e27fc9ce", Text: "我想订机票"},
		{ID: "9051b19b65291ff9", Text: "去北京"},
	}}
	for _, tc := range []struct {
		filter, shard string
		want          bool
	}{
		{"", "3/3", true}, // the script id's shard, although no turn id is in it
		{"", "1/3", false},
		{"", "2/3", false}, // both turns' ids are in shard 2/3
		{"北京", "", true},   // the second turn
		{"订票对话", "", true},
		{"^0ae4", "", true},
		{"^89cd", "", false}, // a turn id is not the script's
		{"上海", "", false},
		{"北京", "2/3", false},
	} {
		if got := mustSelection(t, "", tc.filter, tc.shard).Keep(sc); got != tc.want {
			t.Errorf("filter %q shard %q keeps the script: %v, want %v", tc.filter, tc.shard, got, tc.want)
		}
	}
}
