package jsondoc

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The 8-byte string scan stops exactly where the byte-at-a-time loop does
// (or earlier, at the start of a last incomplete word), over every byte
// value, Chinese text, and stop bytes at every position of a word.
func TestSWARScansMatchByteLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	texts := [][]byte{[]byte(`酒店同房间同宿","segs":["查询13301791708的酒店同房间人员"]`), []byte("北京\x1f上海"), []byte(`abc\"def`)}
	for range 50000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			switch rng.IntN(4) {
			case 0:
				b[i] = byte(rng.IntN(256))
			case 1:
				b[i] = `"\`[rng.IntN(2)]
			default:
				b[i] = "a酒\x7f\x80\xff 1"[rng.IntN(9)]
			}
		}
		texts = append(texts, b)
	}
	for _, b := range texts {
		for j := 0; j <= len(b); j++ {
			wantQ := j
			for wantQ < len(b) && !stringStop[b[wantQ]] {
				wantQ++
			}
			if got := skipQuoteFree(b, j); got > wantQ || (got < wantQ && got+8 <= len(b)) || got < j {
				t.Fatalf("skipQuoteFree(%q, %d) = %d, the loop stops at %d", b, j, got, wantQ)
			}
		}
	}
}

// PlainString's ASCII shortcut answers as checking UTF-8 always would.
func TestPlainString(t *testing.T) {
	for _, s := range []string{"", "id", "response", "城市", "a\xffb", "\xe4\xb8", "\xe4\xb8\xad", "a\x1fb", `a"b`, `a\b`, "\x7f", "\xc0\x80", "latency_ms\xed\xa0\x80"} {
		want := utf8.ValidString(s) && !strings.ContainsAny(s, "\"\\") && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 })
		if got := PlainString([]byte(s)); got != want {
			t.Errorf("PlainString(%q) = %v, want %v", s, got, want)
		}
	}
}
