package jsondoc

import (
	"math/rand/v2"
	"testing"
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
