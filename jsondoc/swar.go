package jsondoc

import (
	"encoding/binary"
	"math/bits"
)

// The record scanner (ScanValue) skips strings 8 bytes at a time (SWAR):
// a word of 8 bytes is tested at once for a quote or a backslash. Its
// byte-at-a-time loop was the largest single cost of reading eval's
// million records (the keys of an IAO record's expectations are 40–50
// bytes long). The parser's strings (keys of a few bytes) gained nothing
// from it.

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// swarEq marks (with its high bit) each byte of w equal to c; the lowest
// marked byte is always a true match (a false mark only follows one).
func swarEq(w uint64, c byte) uint64 {
	x := w ^ (swarOnes * uint64(c))
	return (x - swarOnes) &^ x & swarHighs
}

// skipQuoteFree returns the first index from j whose byte is a quote or a
// backslash (scanStringEnd's stop bytes), or the start of the last
// incomplete word: the caller's byte loop goes on from there.
func skipQuoteFree(b []byte, j int) int {
	for j+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[j:])
		if m := swarEq(w, '"') | swarEq(w, '\\'); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
		j += 8
	}
	return j
}
