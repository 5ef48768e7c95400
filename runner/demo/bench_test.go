package demo

import "testing"

// BenchmarkParse measures Parse on a mixed Chinese/English corpus:
// go test -bench Parse -benchmem ./runner/demo
func BenchmarkParse(b *testing.B) {
	in := goldenUtterances()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Parse(in[i%len(in)])
	}
}

// BenchmarkIAO measures IAO on the IAO corpus-factory write-up's example query.
func BenchmarkIAO(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		IAO("查询13301791708的酒店同房间人员")
	}
}
