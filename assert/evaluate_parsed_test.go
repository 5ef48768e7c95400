package assert

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// EvaluateParsed with the response parsed by the caller (eval's replay
// parses it while decoding the record) gives what Evaluate gives: outcome,
// failures and the dimension metrics the evaluation carries.
func TestEvaluateParsedMatchesEvaluate(t *testing.T) {
	s := loadSuite(t, refRasaSuite)
	ev := NewEvaluator(s)
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	for _, resp := range []string{
		`{"intent":{"name":"订机票","confidence":0.9},"entities":[{"entity":"城市","value":"北京"}]}`,
		`{"intent":{"name":"订机票","confidence":0.9},"entities":[{"entity":"城市","value":"上海"}]}`,
		`{"intent":{"name":"\u8ba2\u673a\u7968"},"entities":[{"entity":"城市","value":"北京","extra":[1,2.5,null,true]}]}`,
		`{"intent":null,"entities":[]}`,
		`[1,2,3]`,
	} {
		plain := &schema.Result{Case: *c, Response: json.RawMessage(resp)}
		parsed := &schema.Result{Case: *c, Response: json.RawMessage(resp)}
		var doc jsondoc.Doc
		if err := doc.Parse(parsed.Response); err != nil {
			t.Fatal(err)
		}
		want, got := ev.Evaluate(plain), ev.EvaluateParsed(parsed, &doc)
		if plain.Outcome != parsed.Outcome || !reflect.DeepEqual(plain.Failures, parsed.Failures) {
			t.Errorf("%s: EvaluateParsed gave %v %+v, Evaluate %v %+v", resp, parsed.Outcome, parsed.Failures, plain.Outcome, plain.Failures)
		}
		a, b := NewCollector(s, nil), NewCollector(s, nil)
		a.Add(plain, want)
		b.Add(parsed, got)
		want.Release()
		got.Release()
		if x, y := dimensionsJSON(t, a), dimensionsJSON(t, b); x != y {
			t.Errorf("%s: dimension metrics %s, want %s", resp, y, x)
		}
	}
}
