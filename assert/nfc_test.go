package assert

import (
	"fmt"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// Labels, dimension values and thresholds compare in Unicode NFC: café
// written precomposed (NFC) and decomposed (cafe + U+0301, NFD) is one
// label, so a threshold on labels["café"] reads one figure. (Before, the
// two were separate labels whose entries collided when the thresholds'
// object was built, and map order picked the survivor: the same run passed
// 17 of 20 evaluations.)
func TestNFCLabelThresholdIsStable(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	src := `
suite "nfc" { schema = "rasa" }
template "t" {
  text   = "x"
  expect = { "$.intent.name" = "x" }
}
threshold "café" { condition = metrics.label.intent.labels["café"].f1 >= 0.9 }
`
	s := loadSuite(t, src)
	pairs := [][2]string{{nfc, nfd}, {nfd, nfc}, {nfc, nfc}, {nfd, nfd}, {"tea", "tea"}}
	for run := range 100 {
		ev := NewEvaluator(s)
		col := NewCollector(s, nil)
		for i, p := range pairs {
			r := &schema.Result{Case: schema.Case{ID: fmt.Sprint(i), Template: "t", Source: "t", SourceKind: "template",
				Expect: schema.Expectations{{Path: "$.intent.name", Value: p[0]}}},
				Response: []byte(fmt.Sprintf(`{"intent":{"name":%q}}`, p[1]))}
			col.Add(r, ev.Evaluate(r))
		}
		m := col.Metrics()
		labels := m.Node.Label["intent"].Labels
		if len(labels) != 2 || labels[nfc] == nil {
			t.Fatalf("run %d: labels %v, want café (NFC) and tea", run, labels)
		}
		th := EvaluateThresholds(s, m)
		if len(th) != 1 || th[0].Outcome != schema.Pass {
			t.Fatalf("run %d: threshold %+v, want met (café F1 = 1)", run, th)
		}
	}
}

// Entity values compare in NFC too: an expected café matches a decomposed
// one in the response.
func TestNFCEntityValues(t *testing.T) {
	s := loadSuite(t, `
suite "nfc" { schema = "rasa" }
template "t" {
  text   = "x"
  expect = { "$.intent.name" = "x" }
}
`)
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	r := &schema.Result{Case: schema.Case{ID: "1", Template: "t", Source: "t", SourceKind: "template",
		Expect: schema.Expectations{{Path: "$.entities", Value: []any{map[string]any{"entity": "place", "value": "caf\u00e9"}}}}},
		Response: []byte(`{"intent":{"name":"x"},"entities":[{"entity":"place","value":"cafe\u0301"}]}`)}
	col.Add(r, ev.Evaluate(r))
	d := col.Metrics().Node.Dimension["entity"]
	if r.Outcome != schema.Pass || d == nil || d.Correct != 1 || d.Recognized != 1 {
		t.Fatalf("outcome %s %+v, dimension %+v", r.Outcome, r.Failures, d)
	}
}
