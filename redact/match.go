package redact

import "sort"

// needle is one text the matcher looks for.
type needle struct {
	text string
	// run: a base64 needle; a match grows to the whole base64 run around
	// it, so no part of the encoded secret is left.
	run bool
}

// span is a byte range [from, to) of a text to replace.
type span struct{ from, to int }

// matcher finds the leftmost, longest needle in a text in one pass. The
// needles are bucketed by their first two bytes, and a bitset of those
// pairs lets the scan pass a position with one load: a text without a
// secret costs about a nanosecond a byte and no allocation.
type matcher struct {
	pairs  [1 << 16 / 64]uint64
	bucket map[uint16][]needle // by first two bytes, longest first
	single [256]bool           // one-byte needles (only a caller's own short values)
}

func newMatcher(needles []needle) *matcher {
	sort.SliceStable(needles, func(i, j int) bool { return len(needles[i].text) > len(needles[j].text) })
	m := &matcher{bucket: map[uint16][]needle{}}
	for _, n := range needles {
		switch len(n.text) {
		case 0:
		case 1:
			m.single[n.text[0]] = true
		default:
			k := uint16(n.text[0])<<8 | uint16(n.text[1])
			m.pairs[k>>6] |= 1 << (k & 63)
			m.bucket[k] = append(m.bucket[k], n)
		}
	}
	return m
}

// at returns the longest needle starting at s[i], if any.
func (m *matcher) at(s string, i int) (needle, bool) {
	if i+1 < len(s) {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		if m.pairs[k>>6]&(1<<(k&63)) != 0 {
			for _, n := range m.bucket[k] {
				if len(s)-i >= len(n.text) && s[i:i+len(n.text)] == n.text {
					return n, true
				}
			}
		}
	}
	if m.single[s[i]] {
		return needle{text: s[i : i+1]}, true
	}
	return needle{}, false
}

// next returns the first position from i on where a needle starts, and
// that needle; -1 when there is none.
func (m *matcher) next(s string, i int) (int, needle) {
	for ; i < len(s); i++ {
		if i+1 < len(s) && !m.single[s[i]] {
			k := uint16(s[i])<<8 | uint16(s[i+1])
			if m.pairs[k>>6]&(1<<(k&63)) == 0 {
				continue
			}
		}
		if n, ok := m.at(s, i); ok {
			return i, n
		}
	}
	return -1, needle{}
}

// spans appends to sp the spans of s holding a needle, left to right and
// not overlapping; a base64 match takes the whole run of base64
// characters around it (not reaching back into the previous span).
func (m *matcher) spans(s string, sp []span) []span {
	last := 0
	for i := 0; ; {
		var n needle
		if i, n = m.next(s, i); i < 0 {
			return sp
		}
		from, to := i, i+len(n.text)
		if n.run {
			for from > last && isBase64(s[from-1]) {
				from--
			}
			for to < len(s) && isBase64(s[to]) {
				to++
			}
		}
		sp = append(sp, span{from, to})
		last, i = to, to
	}
}

// any reports whether s holds a needle.
func (m *matcher) any(s string) bool {
	i, _ := m.next(s, 0)
	return i >= 0
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

// apply replaces the spans of s (in any order, possibly overlapping) with
// Redacted.
func apply(s string, sp []span) string {
	sort.Slice(sp, func(i, j int) bool { return sp[i].from < sp[j].from })
	var b []byte
	last := 0
	for i := 0; i < len(sp); {
		from, to := sp[i].from, sp[i].to
		for i++; i < len(sp) && sp[i].from <= to; i++ {
			to = max(to, sp[i].to)
		}
		if from < last { // inside the previous replacement: cannot happen after the merge
			from = last
		}
		b = append(append(b, s[last:from]...), Redacted...)
		last = to
	}
	return string(append(b, s[last:]...))
}
