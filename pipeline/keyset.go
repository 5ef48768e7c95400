package pipeline

import "math/bits"

// KeySet is the set of record keys (schema.RecordKey) a replay has seen:
// eval, merge and resume keep the first record of each key. A key that is
// a generated case id — 16 lowercase hexadecimal digits — is held as the
// 64-bit number it spells, in an open-addressing table at most three
// quarters full (8 to 16 bytes a key; the 1,000,000-result eval bench's
// keys took 53 MB as a map[string]bool of the strings, 16 MB this way);
// any other key (an id a dataset row gives, a repetition's "id#2") as a
// string. The zero value is not usable; use NewKeySet.
type KeySet struct {
	hex   hexSet
	other map[string]struct{}
}

// NewKeySet returns an empty set.
func NewKeySet() *KeySet {
	return &KeySet{other: map[string]struct{}{}}
}

// hexSet is a set of uint64 by linear probing; 0 marks an empty slot, so
// the key 0 is a flag of its own.
type hexSet struct {
	slots []uint64
	n     int
	zero  bool
	// touched keeps addGroup's loads from being left out as unused.
	touched uint64
}

// slot returns where k is, or the empty slot where it would go.
func (h *hexSet) slot(k uint64) int {
	mask := uint64(len(h.slots) - 1)
	// Fibonacci hashing: the top bits of the product, so sequential keys
	// spread as well as random ones.
	i := (k * 0x9e3779b97f4a7c15) >> (bits.LeadingZeros64(mask) & 63) // addGroup loads the same slot
	for h.slots[i] != 0 && h.slots[i] != k {
		i = (i + 1) & mask
	}
	return int(i)
}

func (h *hexSet) has(k uint64) bool {
	if k == 0 {
		return h.zero
	}
	return h.n > 0 && h.slots[h.slot(k)] == k
}

// add puts k in the set and reports whether it was not there yet.
func (h *hexSet) add(k uint64) bool {
	if k == 0 {
		added := !h.zero
		h.zero = true
		return added
	}
	h.grow(1)
	i := h.slot(k)
	if h.slots[i] == k {
		return false
	}
	h.slots[i] = k
	h.n++
	return true
}

// grow makes room for m more keys.
func (h *hexSet) grow(m int) {
	for 4*(h.n+m) > 3*len(h.slots) {
		old := h.slots
		h.slots = make([]uint64, max(1024, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				h.slots[h.slot(v)] = v
			}
		}
	}
}

// addGroup is add of each key in turn, added[i] its answer. It first
// loads the slot where each key's probe starts, so the table's cache
// misses (16 MB for a million ids) overlap instead of coming one after
// another between the reader's other work.
func (h *hexSet) addGroup(keys []uint64, added []bool) {
	h.grow(len(keys))
	shift := bits.LeadingZeros64(uint64(len(h.slots)-1)) & 63
	var sum uint64
	for _, k := range keys {
		sum += h.slots[(k*0x9e3779b97f4a7c15)>>shift]
	}
	h.touched += sum
	for i, k := range keys {
		added[i] = h.add(k)
	}
}

// hexKey returns the number k spells when it is exactly 16 lowercase
// hexadecimal digits (so two different such keys never share a number).
func hexKey[T string | []byte](k T) (uint64, bool) {
	if len(k) != 16 {
		return 0, false
	}
	var n uint64
	for i := range len(k) {
		c := k[i]
		switch {
		case '0' <= c && c <= '9':
			n = n<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// Has reports whether k is in the set.
func (s *KeySet) Has(k string) bool {
	if n, ok := hexKey(k); ok {
		return s.hex.has(n)
	}
	_, in := s.other[k]
	return in
}

// Add puts k in the set and reports whether it was not there yet.
func (s *KeySet) Add(k string) bool {
	if n, ok := hexKey(k); ok {
		return s.hex.add(n)
	}
	if _, in := s.other[k]; in {
		return false
	}
	s.other[k] = struct{}{}
	return true
}

// AddBytes is Add of string(k), making the string only for a key that is
// no generated id and not in the set yet.
func (s *KeySet) AddBytes(k []byte) bool {
	if n, ok := hexKey(k); ok {
		return s.hex.add(n)
	}
	if _, in := s.other[string(k)]; in {
		return false
	}
	s.other[string(k)] = struct{}{}
	return true
}

// Len is the number of keys in the set.
func (s *KeySet) Len() int {
	n := s.hex.n + len(s.other)
	if s.hex.zero {
		n++
	}
	return n
}
