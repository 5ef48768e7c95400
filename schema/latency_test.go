package schema

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseLatency gives strconv.ParseFloat's value bit for bit, and its error
// where it errs: on latencies as runs write them (whole and fractional
// milliseconds, shortest float formatting), decimals of 14–17 digits
// around the fast path's limit, and what a damaged record may hold.
func TestParseLatencyMatchesParseFloat(t *testing.T) {
	ins := []string{"0", "-0", "1", "0.5", "12.25", "0.1", "0.3", "123456789012345", "1234567890123456",
		"0.000000000000001", "0.0000000000000001", "9007199254740993", "1.", ".5", "-", "", "1e3", "1E-2",
		"01", "00.10", "Inf", "NaN", "0x1p-2", "1_000", "1..2", "1.2.3", "--1", "+1", "１", "1 ", "null", "\"1\""}
	rng := rand.New(rand.NewPCG(27, 5))
	for range 200000 {
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(rng.Float64()*math.Pow(10, float64(rng.IntN(8))), 'f', -1, 64)
		case 1:
			s = strconv.FormatFloat(float64(rng.IntN(100000))/1000, 'f', -1, 64)
		case 2:
			s = fmt.Sprintf("%d.%0*d", rng.Int64N(1e9), 1+rng.IntN(9), rng.Int64N(1e9))
		default:
			s = strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
		}
		if rng.IntN(10) == 0 {
			s = "-" + s
		}
		ins = append(ins, s)
	}
	for _, s := range ins {
		got, gerr := parseLatency([]byte(s))
		want, werr := strconv.ParseFloat(s, 64)
		if math.Float64bits(got) != math.Float64bits(want) || (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("parseLatency(%q) = %v, %v; ParseFloat %v, %v", s, got, gerr, want, werr)
		}
	}
}
