package metrics

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// DimAcc tries the values it looked up last before its map. Cases whose
// units take their values from a pool larger than what it remembers (so
// it both hits and misses), each unit's text a slice of one buffer that is
// overwritten for the next case (as an evaluation's arena is), add up to
// the sum of the same cases counted one per accumulator: every value's
// expected, recognised and correct counts, Chinese values included.
func TestDimAccRecentValues(t *testing.T) {
	pool := []string{"Person", "SIM_Card", "使用人", "酒店同房间同宿", `["SIM_Card","Person"]`, "北京", "上海", "Persom", "人", "0"}
	rnd := rand.New(rand.NewPCG(27, 28))
	all := NewDimAcc("leaf")
	want := map[string][3]int{}
	buf := make([]byte, 0, 1024) // never grown: each case writes over the last
	for range 5000 {
		buf = buf[:0]
		unit := func() Unit {
			v := pool[rnd.IntN(len(pool))]
			if rnd.IntN(3) > 0 {
				v = pool[rnd.IntN(3)] // the common few
			}
			start := len(buf)
			buf = append(buf, v...)
			return Unit{Value: unsafe.String(&buf[start], len(v))}
		}
		var exp, rec []Unit
		for range rnd.IntN(4) {
			exp = append(exp, unit())
		}
		for range rnd.IntN(4) {
			rec = append(rec, unit())
		}
		all.AddCase(exp, rec)
		one := NewDimAcc("leaf")
		one.AddCase(exp, rec)
		for name, d := range one.Result().Values {
			w := want[name]
			want[name] = [3]int{w[0] + d.Expected, w[1] + d.Recognized, w[2] + d.Correct}
		}
		for i := range buf {
			buf[i] = 'x' // the texts are gone once the case is added
		}
	}
	got := all.Result().Values
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for name, w := range want {
		d := got[name]
		if d == nil || [3]int{d.Expected, d.Recognized, d.Correct} != w {
			t.Errorf("%s: %+v, want expected/recognized/correct %v", name, d, w)
		}
	}
}
