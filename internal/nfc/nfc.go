// Package nfc owns the fast check that text is already in Unicode NFC, so
// hot paths (the evaluator's canonical texts, the bodies of live requests)
// skip golang.org/x/text/unicode/norm for the ASCII, Latin-1 and Chinese
// text they nearly always see, and ask norm only about the rest.
package nfc

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Stable reports, faster than norm.NFC.IsNormal, that b is in NFC
// because every rune is one that NFC leaves alone whatever surrounds it:
// ASCII and Latin-1 letters before U+0300, CJK unified ideographs, CJK
// punctuation without its tone marks, fullwidth ASCII (StableRune). A
// false answer only means "ask norm": a combining mark after a Latin
// letter, say. ASCII is skipped eight bytes at a time and ideographs
// (U+4E00–U+9FFF, three bytes from E4 B8 80 to E9 BF BF) are recognised
// from their bytes; any other rune is decoded.
func Stable(b []byte) bool {
	for i := 0; i < len(b); {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
			i += 8
			continue
		}
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		if i+2 < len(b) && (c >= 0xE5 && c <= 0xE9 && b[i+1] >= 0x80 || c == 0xE4 && b[i+1] >= 0xB8) &&
			b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !StableRune(r) {
			return false
		}
		i += n
	}
	return true
}

// StableString is Stable of the bytes of s.
func StableString(s string) bool {
	return Stable(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
}

// StableRune reports whether NFC leaves r alone whatever surrounds it: r
// is in NFC by itself and no rune before it can combine with it
// (TestStableRunesNeverCombine checks every one).
func StableRune(r rune) bool {
	return r < 0x300 || r >= 0x3000 && r <= 0x3029 || r >= 0x4E00 && r <= 0x9FFF || r >= 0xFF01 && r <= 0xFF5E
}

// String is norm.NFC.String(s): s itself when Stable says so.
func String(s string) string {
	if StableString(s) {
		return s
	}
	return norm.NFC.String(s)
}
