package pipeline

// KeySet is the set of record keys (schema.RecordKey) a replay has seen:
// eval, merge and resume keep the first record of each key. A key that is
// a generated case id — 16 lowercase hexadecimal digits — is held as the
// 64-bit number it spells (8 bytes in a map slot instead of a string
// header, the string and a bool: the 1,000,000-result eval bench's keys
// took 53 MB as a map[string]bool, 17 MB this way); any other key (an id
// a dataset row gives, a repetition's "id#2") as a string. The zero value
// is not usable; use NewKeySet.
type KeySet struct {
	hex   map[uint64]struct{}
	other map[string]struct{}
}

// NewKeySet returns an empty set.
func NewKeySet() *KeySet {
	return &KeySet{hex: map[uint64]struct{}{}, other: map[string]struct{}{}}
}

// hexKey returns the number k spells when it is exactly 16 lowercase
// hexadecimal digits (so two different such keys never share a number).
func hexKey(k string) (uint64, bool) {
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
		_, in := s.hex[n]
		return in
	}
	_, in := s.other[k]
	return in
}

// Add puts k in the set and reports whether it was not there yet.
func (s *KeySet) Add(k string) bool {
	if n, ok := hexKey(k); ok {
		if _, in := s.hex[n]; in {
			return false
		}
		s.hex[n] = struct{}{}
		return true
	}
	if _, in := s.other[k]; in {
		return false
	}
	s.other[k] = struct{}{}
	return true
}

// Len is the number of keys in the set.
func (s *KeySet) Len() int { return len(s.hex) + len(s.other) }
