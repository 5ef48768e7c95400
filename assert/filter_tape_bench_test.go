package assert

import (
	"encoding/json"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// benchFilterSuite is the live-run benchmark's suite (runner/bench_test.go):
// the Rasa schema, an intent path and Rasa's entity filter.
const benchFilterSuite = `
suite "吞吐" { schema = "rasa" }
materials "话语" { values = ["订一张去北京的机票"] }
template "订机票" {
  text   = "{话语}"
  expect = {
    "$.intent.name"                           = "订机票"
    "$.entities[?(@.entity == '城市')].value" = ["北京"]
  }
}
`

// BenchmarkEvaluateFilterPath measures Evaluate of the live-run
// benchmark's response (runner/bench_test.go's benchResponse) against its
// expectations, one of them an equality filter on the entities:
//
//	go test -run '^$' -bench 'BenchmarkEvaluateFilterPath' -benchmem ./assert
func BenchmarkEvaluateFilterPath(b *testing.B) {
	s := loadSuite(b, benchFilterSuite)
	var c *schema.Case
	_ = s.Generate(spec.GenOptions{}, func(x *schema.Case) error {
		c = x
		return nil
	})
	resp := json.RawMessage(`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`)
	ev := NewEvaluator(s)
	r := &schema.Result{Case: *c, Response: resp}
	ev.Evaluate(r)
	if r.Outcome != schema.Pass {
		b.Fatalf("outcome %s: %v", r.Outcome, r.Failures)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ev.Evaluate(r)
	}
}
