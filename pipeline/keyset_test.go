package pipeline

import (
	"fmt"
	"runtime"
	"testing"
)

// TestKeySet: generated ids (16 lowercase hex digits) and every other key
// (uppercase, shorter, longer, a repetition's "#2", Chinese) are told
// apart exactly; a hex id and another key that spell the same number are
// different keys.
func TestKeySet(t *testing.T) {
	s := NewKeySet()
	keys := []string{
		"98645c6ff8c4d601", "98645c6ff8c4d602", "0000000000000000", "ffffffffffffffff",
		"98645C6FF8C4D601",   // uppercase: not the same key
		"98645c6ff8c4d601#2", // a repetition
		"98645c6ff8c4d60",    // 15 digits
		"098645c6ff8c4d601",  // 17 digits
		"0", "", "订票-001", "天气#3", "g8645c6ff8c4d601",
	}
	for _, k := range keys {
		if s.Has(k) {
			t.Errorf("%q in the set before it was added", k)
		}
		if !s.Add(k) {
			t.Errorf("Add(%q) = false, want true (first time)", k)
		}
	}
	for _, k := range keys {
		if !s.Has(k) || s.Add(k) {
			t.Errorf("%q: Has %v, second Add %v; want true, false", k, s.Has(k), !s.Add(k))
		}
	}
	if s.Len() != len(keys) {
		t.Errorf("Len %d, want %d", s.Len(), len(keys))
	}
	if s.Has("98645c6ff8c4d603") || s.Has("订票-002") {
		t.Error("a key never added is in the set")
	}
	// Sequential ids through several growths of the table.
	for i := range 5000 {
		if k := fmt.Sprintf("%016x", i+1); !s.Add(k) && k != "0000000000000000" {
			t.Fatalf("Add(%q) = false, want true", k)
		}
	}
	for i := range 5000 {
		if k := fmt.Sprintf("%016x", i+1); !s.Has(k) || s.Has(fmt.Sprintf("%016x", i+1<<40)) {
			t.Fatalf("sequential id %q lost, or an id never added found", k)
		}
	}
	if s.Len() != len(keys)+5000 {
		t.Errorf("Len %d, want %d", s.Len(), len(keys)+5000)
	}
}

// AddBytes is Add of the key's string: the same answers, one set for both.
func TestKeySetAddBytes(t *testing.T) {
	keys := []string{"98645c6ff8c4d601", "98645C6FF8C4D601", "98645c6ff8c4d601#2", "0000000000000000", "", "订票-001", "天气#3"}
	a, b := NewKeySet(), NewKeySet()
	for round := range 2 {
		for i, k := range keys {
			var want, got bool
			if i%2 == round { // each key added by Add in one set first
				want, got = a.Add(k), b.AddBytes([]byte(k))
			} else {
				want, got = a.Add(k), b.Add(k)
				if again := b.AddBytes([]byte(k)); again {
					t.Errorf("AddBytes(%q) after Add = true", k)
				}
			}
			if want != got {
				t.Errorf("round %d: %q: AddBytes %v, Add %v", round, k, got, want)
			}
		}
	}
	if a.Len() != len(keys) || b.Len() != len(keys) {
		t.Errorf("Len %d and %d, want %d", a.Len(), b.Len(), len(keys))
	}
}

// TestKeySetMemory: a generated id costs the set under 24 bytes of live
// heap (a map[string]bool, which the replay used before, holds about 53:
// the string's 16 bytes and header and the map slot).
func TestKeySetMemory(t *testing.T) {
	const n = 200_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewKeySet()
	for _, k := range keys {
		s.Add(k)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if per := float64(after.HeapAlloc-before.HeapAlloc) / n; per > 24 {
		t.Errorf("%d ids hold %.1f bytes each, want under 24", n, per)
	}
	runtime.KeepAlive(keys)
	if s.Len() != n {
		t.Fatalf("Len %d, want %d", s.Len(), n)
	}
}
