package assert

import (
	"testing"

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
