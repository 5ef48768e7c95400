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
// keys and negative indices; and, as the member positions it remembers
// carry from one response to the next, responses whose members come in
// different orders, repeat a key or spell it with escapes.
func TestSharedLookupMatchesLookup(t *testing.T) {
	deep := `{"a":` + `{"b":[{"c":` + `{"d":[{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":"深"}}}}}}}}}}}}}}]}` + `}]}` + `}`
	docs := []string{refCorpusFactoryResponse, refRasaResponse, deep, `{"城市":{"名":["北京","上海"],"":{"x":1}},"a":null}`,
		`{"a":null,"城市":{"":{"x":2},"名":["广州"]}}`, `{"城市":{"名":["深圳"]},"城市":{"名":["杭州","南京"],"":{"x":3}}}`,
		`{"\u57ce\u5e02":{"\u540d":["成都","重庆"]},"a":{"b":[{"c":1}]}}`, `{"data":[{"content_op":"查询","content":{"ont":"Person","rel":[{"ont":"x"}]}}],"code":0}`}
	paths := []string{
		"$", "$.code", "$.data", "$.data[0]", "$.data[0].content_op", "$.data[0].content.ont", "$.data[0].content.des.phone_number",
		"$.data[0].content.rel[0].ont", "$.data[0].content.rel[0].ont[1]", "$.data[0].content.rel[0].rel[0].behavior[0].category",
		"$.data[0].content.rel[0].rel[0].relName", "$.data[0].content.rel[1].ont", "$.data[1].content", "$.data[-1].content_op",
		"$.data[0].nope.ont", "$.intent.name", "$.intent_ranking[2].name", "$.entities[-1].value", "$.entities[0].entity",
		"$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.p.q.r", "$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.p.q", "$.a.b[0].c.d[0].e.f.g.h.i.j.k.l.m.n.o.x",
		"$.城市.名[1]", "$.城市.名[0]", "$.城市[''].x", "$.城市.名[2]", "$.a", "$.a.b",
	}
	var cs []*compiled
	e := &Evaluator{}
	for _, p := range paths {
		c := e.compile(jp.MustParseString(p))
		if c.mode != modeSimple {
			t.Fatalf("%s is not a simple path", p)
		}
		cs = append(cs, &c)
	}
	rss := make([]*response, len(docs))
	for i, src := range docs {
		var d jsondoc.Doc
		if err := d.Parse([]byte(src)); err != nil {
			t.Fatal(err)
		}
		rss[i] = &response{doc: &d}
	}
	rnd := rand.New(rand.NewPCG(27, 2))
	for range 20000 {
		// runs of one response, then another: the positions remembered
		// for one shape meet the others
		di := rnd.IntN(len(docs))
		rs, src := rss[di], docs[di]
		for range 1 + rnd.IntN(12) {
			i := rnd.IntN(len(cs))
			got, gotOK := rs.lookup(cs[i])
			want, wantOK := lookup(rs.doc, cs[i].x)
			if got != want || gotOK != wantOK {
				t.Fatalf("%s in %.40s…: shared lookup %v %v, lookup %v %v", paths[i], src, got, gotOK, want, wantOK)
			}
		}
	}
}
