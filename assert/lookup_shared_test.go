package assert

import (
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/ohler55/ojg/jp"
)

// response.lookup, which follows only the steps a path does not share
// with the path looked up before, finds what lookup finds from the root,
// in any order of paths: found and missing ones, shared prefixes that end
// in a missing step, paths longer than the steps it remembers, Chinese
// keys and negative indices.
func TestSharedLookupMatchesLookup(t *testing.T) {
	deep := `{"a":` + `{"b":[{"c":` + `{"d":[{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":"深"}}}}}}}}}}}}}}]}` + `}]}` + `}`
	docs := []string{refCorpusFactoryResponse, refRasaResponse, deep, `{"城市":{"名":["北京","上海"],"":{"x":1}},"a":null}`}
	paths := []string{
		"$", "$.code", "$.data", "$.data[0]", "$.data[0].content_op", "$.data[0].content.ont", "$.data[0].content.des.phone_number",
		"$.data[0].content.rel[0].ont", "$.data[0].content.rel[0].ont[1]", "$.data[0].content.rel[0].rel[0].behavior[0].category",
		"$.data[0].content.rel[0].rel[0].relName", "$.data[0].content.rel[1].ont", "$.data[1].content", "$.data[-1].content_op",
		"$.data[0].nope.ont", "$.intent.name", "$.intent_ranking[2].name", "$.entities[-1].value", "$.entities[0].entity",
		"$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.p.q.r", "$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.p.q", "$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.x",
		"$.城市.名[1]", "$.城市.名[0]", "$.城市[''].x", "$.城市.名[2]", "$.a", "$.a.b",
	}
	var xs []jp.Expr
	for _, p := range paths {
		x := jp.MustParseString(p)
		if modeOf(x) != modeSimple {
			t.Fatalf("%s is not a simple path", p)
		}
		xs = append(xs, x)
	}
	rnd := rand.New(rand.NewPCG(27, 2))
	for _, src := range docs {
		var d jsondoc.Doc
		if err := d.Parse([]byte(src)); err != nil {
			t.Fatal(err)
		}
		rs := &response{doc: &d}
		for range 2000 {
			i := rnd.IntN(len(xs))
			got, gotOK := rs.lookup(xs[i])
			want, wantOK := lookup(&d, xs[i])
			if got != want || gotOK != wantOK {
				t.Fatalf("%s in %.40s…: shared lookup %v %v, lookup %v %v", paths[i], src, got, gotOK, want, wantOK)
			}
		}
	}
}
