package nfc

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Stable never says "stable" for text that NFC would change; the
// fast answer agrees with norm on Chinese, Latin and fullwidth text.
func TestNFCStableAgreesWithNorm(t *testing.T) {
	for _, s := range []string{
		"", "book_flight", "北京", "查询13301791708的酒店同房间人员", "café", "cafe\u0301", "Å", "A\u030a",
		"，。、「」", "〪", "ｆｕｌｌ", "한국어", "\ufb01", "\u1e9b\u0323", "ｶﾞ", "Ω", "\u2126",
	} {
		stable := Stable([]byte(s))
		if stable && !norm.NFC.IsNormalString(s) {
			t.Errorf("Stable(%q) = true, but NFC changes it to %q", s, norm.NFC.String(s))
		}
	}
	for _, s := range []string{"book_flight", "北京", "查询13301791708的酒店同房间人员", "café", "，。", "ｆｕｌｌ"} {
		if !Stable([]byte(s)) {
			t.Errorf("Stable(%q) = false; the fast path misses common text", s)
		}
	}
}

// stableRunes is Stable decoding every rune: the definition the
// byte-level fast paths must agree with.
func stableRunes(b []byte) bool {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if !StableRune(r) {
			return false
		}
		i += n
	}
	return true
}

// Stable's fast paths (eight ASCII bytes at a time, ideographs from
// their bytes) answer as decoding every rune does, on text built from
// ASCII, ideographs at and around the edges of U+4E00–U+9FFF, other
// Chinese and fullwidth punctuation, Latin with combining marks, and
// invalid or cut UTF-8, at every alignment.
func TestNFCStableFastPathsAgree(t *testing.T) {
	pieces := []string{"a", "SIM_Card", "13301791708", "{\"category\":", "一", "丁", "北京", "酒店同房间", "鿿", "\u9fff", "\ua000", "\u4dff", "\u4e00",
		"㐀", "，", "、", "〪", "ｆ", "é", "e\u0301", "\u0300", "\xe4", "\xe4\xb8", "\xe4\xb8\x80", "\xe9\xbf", "\xe9\xbf\xbf", "\xe9\xc0\x80",
		"\xe5\x80\x7f", "\xe4\xb7\xbf", "\xff", "\xed\xa0\x80", "😀", " ", "\x7f"}
	rnd := rand.New(rand.NewPCG(27, 4))
	for range 20000 {
		var b []byte
		for range rnd.IntN(12) {
			b = append(b, pieces[rnd.IntN(len(pieces))]...)
		}
		for cut := 0; cut <= min(len(b), 9); cut++ {
			if got, want := Stable(b[cut:]), stableRunes(b[cut:]); got != want {
				t.Fatalf("Stable(%q) = %v, decoding every rune says %v", b[cut:], got, want)
			}
		}
	}
}

// Every rune StableRune accepts is in NFC by itself and starts a segment
// that nothing before it combines with (norm's BoundaryBefore: canonical
// combining class 0 and no composition with a preceding rune), so text
// made only of such runes is in NFC, whatever their order.
func TestStableRunesNeverCombine(t *testing.T) {
	n := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !StableRune(r) {
			continue
		}
		n++
		s := string(r)
		if !norm.NFC.IsNormalString(s) || !norm.NFC.PropertiesString(s).BoundaryBefore() {
			t.Errorf("StableRune(%U) = true, but NFC may change it or combine it with the rune before", r)
		}
	}
	if n < 20000 {
		t.Fatalf("only %d runes checked", n)
	}
}

// String is norm.NFC.String, on text that takes the fast path and text
// that does not.
func TestStringAsNorm(t *testing.T) {
	for _, s := range []string{"", "第12次订一张去北京的机票", "book_flight", "cafe\u0301", "Å", "〪北京", "ｶﾞ", "\xff北"} {
		if got, want := String(s), norm.NFC.String(s); got != want {
			t.Errorf("String(%q) = %q, want %q", s, got, want)
		}
	}
}
