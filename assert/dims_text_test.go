package assert

import (
	"math/rand/v2"
	"testing"
)

// The tallies of an evaluation read their texts straight from the bytes
// the analysis wrote (no copy), and those bytes are written again once the
// evaluation is released and reused. Collecting results whose evaluations
// are released at once (their memory reused for the next result) gives the
// same metrics, byte for byte, as collecting them with evaluations never
// released (fresh memory each): nothing keeps a text past its evaluation
// without copying it. Generated IAO and Rasa-like responses, Chinese text.
func TestEvaluationTextsSurviveReuse(t *testing.T) {
	suites := []*refSuite{
		loadRefSuite(t, "iao", refIAOSuite, refCorpusFactoryResponse, true, []string{"$..ont"}),
		loadRefSuite(t, "custom", refCustomSuite, refRasaResponse, false, []string{"$.entities[*].value"}),
	}
	for k, rs := range suites {
		rnd := rand.New(rand.NewPCG(20261202, 10+uint64(k)))
		reused, fresh := NewCollector(rs.s, nil), NewCollector(rs.s, nil)
		kept := NewEvaluator(rs.s)
		for i := range 1500 {
			g := &refGen{r: rnd, iao: rs.iao}
			r := g.result(rs, i)
			ev := rs.ev.Evaluate(r)
			reused.Add(r, ev)
			ev.Release()
			fresh.Add(r, kept.Evaluate(r)) // never released
		}
		got, want := mustJSON(t, reused.Metrics()), mustJSON(t, fresh.Metrics())
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: metrics with reused evaluations differ at byte %d:\nreused: …%s…\nfresh:  …%s…", rs.name, i,
				got[max(0, i-150):min(len(got), i+150)], want[max(0, i-150):min(len(want), i+150)])
		}
	}
}
