package spec

import (
	"fmt"
	"testing"
)

// TestUnitHashSplitsSequentialIDsEvenly: ids that differ only in their last
// characters — the usual shape of dataset ids ("utt-0"…"utt-9999",
// "GetWeather-0001"…) — must spread evenly over the unit interval, so an
// 80/20 fraction split puts close to 80 % of them in the first share. Plain
// FNV-1a (the hash before its fmix64 finaliser) put 10,000 sequential ids
// far outside these bounds (the binomial standard deviation is 40).
func TestUnitHashSplitsSequentialIDsEvenly(t *testing.T) {
	cases := []struct {
		name   string
		seed   string
		n      int
		id     func(i int) string
		lo, hi float64 // bounds on the share below 0.8
	}{
		{"utt-N", "", 10000, func(i int) string { return fmt.Sprintf("utt-%d", i) }, 0.785, 0.815},
		{"utt-N seeded", "s1", 10000, func(i int) string { return fmt.Sprintf("utt-%d", i) }, 0.785, 0.815},
		{"zero-padded", "", 10000, func(i int) string { return fmt.Sprintf("case-%05d", i) }, 0.785, 0.815},
		{"Chinese prefix", "", 10000, func(i int) string { return fmt.Sprintf("天气查询-%04d", i) }, 0.785, 0.815},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			below := 0
			for i := range tc.n {
				if UnitHash(tc.seed, tc.id(i)) < 0.8 {
					below++
				}
			}
			if share := float64(below) / float64(tc.n); share < tc.lo || share > tc.hi {
				t.Errorf("%d ids split 80/20: %d (%.4f) below 0.8, want a share in [%.3f, %.3f]", tc.n, below, share, tc.lo, tc.hi)
			}
		})
	}
}

// TestUnitHashPerGroupShares: every intent of a SNIPS-like layout (7 intents
// × 100 ids "<Intent>-0001"…"-0100") gets its own ~80 % share, not all or
// none of its utterances.
func TestUnitHashPerGroupShares(t *testing.T) {
	for _, intent := range []string{"AddToPlaylist", "BookRestaurant", "GetWeather", "PlayMusic", "RateBook", "SearchCreativeWork", "SearchScreeningEvent"} {
		below := 0
		for i := 1; i <= 100; i++ {
			if UnitHash("", fmt.Sprintf("%s-%04d", intent, i)) < 0.8 {
				below++
			}
		}
		if below < 66 || below > 94 { // 80 ± 3.5 standard deviations
			t.Errorf("%s: %d of 100 ids below 0.8, want about 80", intent, below)
		}
	}
}

// TestUnitHashPinned pins values (computed independently: FNV-1a 64 over
// seed, NUL, id, then MurmurHash3's fmix64 — Appleby, smhasher
// MurmurHash3.cpp — and the top 53 bits over 2^53), so split membership
// never changes by accident. Changing them moves cases between splits and
// shards in every existing suite.
func TestUnitHashPinned(t *testing.T) {
	cases := []struct {
		seed, id string
		want     float64
	}{
		{"", "", 0.722706486340339},
		{"", "utt-0", 0.28451238999452344},
		{"shard", "城市01", 0.0782730049300232},
	}
	for _, tc := range cases {
		if got := UnitHash(tc.seed, tc.id); got != tc.want {
			t.Errorf("UnitHash(%q, %q) = %v, want %v", tc.seed, tc.id, got, tc.want)
		}
	}
}
