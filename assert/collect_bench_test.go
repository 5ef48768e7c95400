package assert

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const benchCollectSuite = `
suite "bench-collect" { schema = "rasa" }
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
template "parse" {
  text  = "订一张去{城市}的机票"
  level = "S1"
  core  = true
  scene = ["出行", "机票"]
  expect = {
    "$.intent.name"        = "订机票"
    "$.entities[0].entity" = "城市"
    "$.entities[0].value"  = "北京"
  }
}
split "smoke" { where = case.level == "S1" }
`

// BenchmarkEvaluateCollect measures one result's evaluation and its
// counting into every node of the tree (root, split, level, two scene
// prefixes, core, template): the per-case work of eval and run.
func BenchmarkEvaluateCollect(b *testing.B) {
	s := loadSuite(b, benchCollectSuite)
	var rs []*schema.Result
	_ = s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		for i, city := range []string{"北京", "上海"} {
			resp := fmt.Sprintf(`{"intent":{"name":"订机票","confidence":0.9},"intent_ranking":[{"name":"订机票","confidence":0.9},{"name":"查天气","confidence":0.1}],"entities":[{"entity":"城市","value":%q}]}`, city)
			rs = append(rs, &schema.Result{Case: *c, Response: json.RawMessage(resp), LatencyMS: float64(10 + i)})
		}
		return nil
	})
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r := rs[i%len(rs)]
		evalCollect(ev, col, r)
	}
}
