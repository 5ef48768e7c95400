package metrics

import (
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

func BenchmarkLabelAccAdd(b *testing.B) {
	cases := randomLabelCases(1024)
	a := NewLabelAcc(3)
	i := 0
	for b.Loop() {
		c := cases[i&1023]
		a.Add(c.expected, c.ranked)
		i++
	}
}

// benchDimCase is a typical IAO case: ontology, attributes and relations of
// a few entities, most of them right.
func benchDimCase(n int) (exp, rec []Unit) {
	for i := range n {
		u := Unit{Key: "$.data[" + strconv.Itoa(i) + "].content.ont", Value: `"Person"`}
		exp = append(exp, u)
		if i%5 == 4 {
			u.Value = `"Place"`
		}
		rec = append(rec, u)
	}
	return exp, rec
}

func BenchmarkDimAccAddCase(b *testing.B) {
	for _, n := range []int{4, 64} {
		b.Run(strconv.Itoa(n)+"_units", func(b *testing.B) {
			exp, rec := benchDimCase(n)
			d := NewDimAcc(schema.KindLeaf)
			for b.Loop() {
				d.AddCase(exp, rec)
			}
		})
	}
}

func BenchmarkLatencyResult(b *testing.B) {
	var l LatencyAcc
	for i := range 10000 {
		l.AddLength(i%250, float64((i*7919)%1000))
	}
	for b.Loop() {
		_ = l.Result()
	}
}
