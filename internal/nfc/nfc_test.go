package assert

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// nfcStable never says "stable" for text that NFC would change; the
// fast answer agrees with norm on Chinese, Latin and fullwidth text.
func TestNFCStableAgreesWithNorm(t *testing.T) {
	for _, s := range []string{
		"", "book_flight", "北京", "查询13301791708的酒店同房间人员", "café", "cafe\u0301", "Å", "A\u030a",
		"，。、「」", "〪", "ｆｕｌｌ", "한국어", "\ufb01", "\u1e9b\u0323", "ｶﾞ", "Ω", "\u2126",
	} {
		stable := nfcStable([]byte(s))
		if stable && !norm.NFC.IsNormalString(s) {
			t.Errorf("nfcStable(%q) = true, but NFC changes it to %q", s, norm.NFC.String(s))
		}
	}
	for _, s := range []string{"book_flight", "北京", "查询13301791708的酒店同房间人员", "café", "，。", "ｆｕｌｌ"} {
		if !nfcStable([]byte(s)) {
			t.Errorf("nfcStable(%q) = false; the fast path misses common text", s)
		}
	}
}

// nfcStableRunes is nfcStable decoding every rune: the definition the
// byte-level fast paths must agree with.
func nfcStableRunes(b []byte) bool {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if !nfcStableRune(r) {
			return false
		}
		i += n
	}
	return true
}

// nfcStable's fast paths (eight ASCII bytes at a time, ideographs from
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
			if got, want := nfcStable(b[cut:]), nfcStableRunes(b[cut:]); got != want {
				t.Fatalf("nfcStable(%q) = %v, decoding every rune says %v", b[cut:], got, want)
			}
		}
	}
}
