// Package mutate makes random edits of byte strings for the differential
// tests of fast paths: a fast path and the general code it stands in for
// must agree on hand-written samples and on many edited copies of them,
// which reach the error paths the samples miss.
package mutate

import "math/rand/v2"

// JSON is an alphabet for edits of JSON documents: structure, string
// escapes, white space, the letters of numbers and literals, control
// bytes, the bytes of a Chinese character (中) and a byte UTF-8 never has.
var JSON = []byte("{}[],:\"\\/ \t\n\r0123456789.eE+-truefalsn\x00\x1f\x7f\xe4\xb8\xad\xff")

// Edit applies 1 to 3 random edits to doc and returns it: a byte replaced
// by one of alphabet, one of alphabet inserted, a byte deleted, or the text
// cut at a position. It reuses doc's memory.
func Edit(rng *rand.Rand, doc, alphabet []byte) []byte {
	for range 1 + rng.IntN(3) {
		at := 0
		if len(doc) > 0 {
			at = rng.IntN(len(doc))
		}
		c := alphabet[rng.IntN(len(alphabet))]
		switch rng.IntN(4) {
		case 0:
			if len(doc) > 0 {
				doc[at] = c
			}
		case 1:
			doc = append(doc[:at], append([]byte{c}, doc[at:]...)...)
		case 2:
			if len(doc) > 0 {
				doc = append(doc[:at], doc[at+1:]...)
			}
		case 3:
			doc = doc[:at]
		}
	}
	return doc
}
