package assert

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const intervalSuite = `
suite "区间" { schema = "rasa" }
materials "城市" { values = ["北京", "上海", "广州", "深圳", "成都", "杭州", "西安", "南京", "重庆", "武汉"] }
materials "日期" { values = ["明天", "后天", "下周一", "周五", "今晚"] }
template "订机票" {
  text     = "{日期}去{城市}的机票"
  strategy = "product"
  level    = "S1"
  expect = {
    "$.intent.name" = "订机票"
    "$.entities"    = [{ entity = "城市", value = "{城市}" }, { entity = "日期", value = "{日期}" }]
  }
}
template "查天气" {
  text     = "{日期}{城市}天气怎么样"
  strategy = "product"
  level    = "S2"
  expect = {
    "$.intent.name" = "查天气"
    "$.entities"    = [{ entity = "城市", value = "{城市}" }]
  }
}
split "冒烟" { where = case.level == "S1" }
`

// intervalResults evaluates the suite's cases against answers that go
// wrong in a fixed pattern: every 7th intent is another label, every
// 5th case loses its city, every 11th gains a stray entity.
func intervalResults(t *testing.T, s *spec.Suite) ([]*schema.Result, []*Evaluation) {
	t.Helper()
	ev := NewEvaluator(s)
	var rs []*schema.Result
	var evs []*Evaluation
	i := 0
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		intent := c.Expect[0].Value
		if i%7 == 3 {
			intent = map[any]any{"订机票": "查天气", "查天气": "退订"}[intent]
		}
		var ents []map[string]string
		for _, x := range c.Expect[1:] {
			list, _ := x.Value.([]any)
			for _, e := range list {
				m := e.(map[string]any)
				if m["entity"] == "城市" && i%5 == 1 {
					continue
				}
				ents = append(ents, map[string]string{"entity": fmt.Sprint(m["entity"]), "value": fmt.Sprint(m["value"])})
			}
		}
		if i%11 == 4 {
			ents = append(ents, map[string]string{"entity": "城市", "value": "拉萨"})
		}
		body, _ := json.Marshal(map[string]any{"intent": map[string]any{"name": intent, "confidence": 0.9}, "entities": ents})
		r := &schema.Result{Case: *c, Response: body}
		evs = append(evs, ev.Evaluate(r))
		rs = append(rs, r)
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs, evs
}

// intervalsOf lists every interval of the tree by address.
func intervalsOf(tree *schema.Tree, m *schema.Metrics) map[string][2]float64 {
	out := map[string][2]float64{}
	visit := func(n *schema.Node, addr string) {
		tree.NodeRatios(n, addr, func(a string, _ schema.Attr, r *schema.Ratio) {
			if lo, hi, ok := r.CI(); ok {
				out[a] = [2]float64{lo, hi}
			}
		})
	}
	visit(&m.Node, "metrics")
	for k, n := range m.Split {
		visit(n, groupAddr("split", k))
	}
	for k, n := range m.Template {
		visit(n, groupAddr("template", k))
	}
	for k, n := range m.Level {
		visit(n, groupAddr("level", k))
	}
	return out
}

// TestIntervalsIgnoreMergeOrder: the intervals of a collector fed every
// result in order equal, bit for bit, those of three forks fed
// interleaved batches backwards and merged in another order (eval's
// workers, shards) — the contributions' tallies and the confusion cells
// are read in an order of their own — and Chinese label and dimension
// names address their streams like any other.
func TestIntervalsIgnoreMergeOrder(t *testing.T) {
	s := loadSuite(t, intervalSuite)
	rs, evs := intervalResults(t, s)
	if len(rs) != 100 {
		t.Fatalf("%d cases, want 100", len(rs))
	}
	one := NewCollector(s, nil)
	for i, r := range rs {
		one.AddAt(r, evs[i], int64(i))
	}
	base := NewCollector(s, nil)
	forks := []*Collector{base.Fork(), base.Fork(), base.Fork()}
	for i := len(rs) - 1; i >= 0; i-- {
		forks[(i/8)%3].AddAt(rs[i], evs[i], int64(i))
	}
	for _, k := range []int{2, 0, 1} {
		base.Merge(forks[k])
	}
	want, got := intervalsOf(s.Tree, one.Metrics()), intervalsOf(s.Tree, base.Metrics())
	for _, addr := range []string{
		"metrics.accuracy", `metrics.split["冒烟"].accuracy`,
		"metrics.dimension.entity.f1", "metrics.dimension.entity.precision", `metrics.template["查天气"].dimension.entity.recall`,
		"metrics.label.intent.macro_f1", "metrics.label.intent.micro_f1", "metrics.label.intent.weighted_f1",
		`metrics.label.intent.labels["订机票"].f1`, `metrics.label.intent.labels["查天气"].precision`,
	} {
		iv, ok := want[addr]
		if !ok || !(iv[0] < iv[1]) {
			t.Errorf("%s: no interval of width in the one collector's tree (%v)", addr, iv)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d intervals merged, %d in one collector", len(got), len(want))
	}
	for addr, iv := range want {
		if got[addr] != iv {
			t.Errorf("%s: merged forks give %v, one collector %v", addr, got[addr], iv)
		}
	}
	// A node's address is in its stream: two nodes holding the same cases
	// (the root and the S1 level's split are not; the S2 level and the
	// 查天气 template are) draw different resamples of the same tally.
	if a, b := want[`metrics.level["S2"].dimension.entity.f1`], want[`metrics.template["查天气"].dimension.entity.f1`]; a == b || a == [2]float64{} {
		t.Errorf("two nodes of the same cases drew the same stream: %v %v", a, b)
	}
}

// TestEveryMarkedMetricHasAnInterval: in a tree with data, every ratio
// the descriptor marks (Wilson or bootstrap) and that has a value carries
// an interval, and no unmarked ratio does.
func TestEveryMarkedMetricHasAnInterval(t *testing.T) {
	s := loadSuite(t, intervalSuite)
	rs, evs := intervalResults(t, s)
	c := NewCollector(s, nil)
	for i, r := range rs {
		c.Add(r, evs[i])
	}
	m := c.Metrics()
	marked := 0
	s.Tree.NodeRatios(&m.Node, "metrics", func(addr string, a schema.Attr, r *schema.Ratio) {
		_, _, has := r.CI()
		v, ok := r.Value()
		switch {
		case a.CI == schema.CINone && has:
			t.Errorf("%s has an interval, and the descriptor none", addr)
		case a.CI != schema.CINone && ok && !has:
			t.Errorf("%s = %v (%s) has no interval", addr, v, a.CI)
		case has:
			marked++
			// A Wilson interval holds its proportion; a percentile
			// bootstrap interval need not hold its estimate.
			if lo, hi, _ := r.CI(); lo > hi || a.CI == schema.CIWilson && (lo > v || hi < v) {
				t.Errorf("%s = %v, interval [%v, %v]", addr, v, lo, hi)
			}
		}
	})
	if marked < 15 {
		t.Errorf("only %d intervals", marked)
	}
}

// A conversation's turns are not independent, so turn accuracy's
// interval resamples conversations: 40 conversations of 5 turns, each
// wholly right or wholly wrong (24 right), give turn accuracy 120/200,
// whose bootstrap interval over the conversations is about as wide as
// Wilson's over the 40 conversations (task completion, 24/40), and
// clearly wider than Wilson's over the 200 turns would be — which
// treating turns as cases (the node's accuracy) gives. --repeat's pass@1
// resamples the scripts the same way.
func TestTurnAccuracyResamplesConversations(t *testing.T) {
	s := loadSuite(t, `
suite "对话" {}
conversation "订票" {
  turn { user = "一" }
  turn { user = "二" }
  turn { user = "三" }
  turn { user = "四" }
  turn { user = "五" }
}
`)
	c := NewCollector(s, nil)
	seq := int64(0)
	for conv := range 40 {
		out := schema.Pass
		if conv%5 >= 3 { // 24 of 40 right
			out = schema.Fail
		}
		for turn := 1; turn <= 5; turn++ {
			r := &schema.Result{Case: schema.Case{ID: fmt.Sprintf("c%d-%d", conv, turn), Source: "订票", SourceKind: spec.KindConversation,
				Script: fmt.Sprintf("c%d", conv), Turn: turn, Conversation: fmt.Sprintf("s%d", conv), Repeat: 1 + conv%2}, Outcome: out}
			c.AddAt(r, nil, seq)
			seq++
		}
	}
	m := c.Metrics()
	d, _ := m.Families["dialogue"].(*schema.Dialogue)
	if d == nil || d.TurnAccuracy.Num != 120 || d.TurnAccuracy.Den != 200 || d.TaskCompletion.Num != 24 {
		t.Fatalf("dialogue %+v", d)
	}
	width := func(r schema.Ratio) float64 { lo, hi, _ := r.CI(); return hi - lo }
	turns, convs, cases := width(d.TurnAccuracy), width(d.TaskCompletion), width(m.Accuracy)
	t.Logf("widths: turns %.3f, conversations %.3f, turns as cases %.3f", turns, convs, cases)
	if !(turns > 1.6*cases) || turns < 0.8*convs || turns > 1.2*convs {
		t.Errorf("turn accuracy's interval is %.3f wide; task completion's (40 conversations) %.3f, accuracy's (200 turns as cases) %.3f", turns, convs, cases)
	}
	rp, _ := m.Families["repeat"].(*schema.Repeat)
	if rp == nil {
		t.Fatal("no repeat figures")
	}
	if _, _, ok := rp.PassAt1.CI(); !ok || width(rp.PassAt1) < 0.2 {
		t.Errorf("pass@1 %+v: its interval resamples the scripts", rp.PassAt1)
	}
}
