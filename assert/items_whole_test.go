package assert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// An items dimension without keys compares its items whole: a list of
// words ("evidence") is a multiset of words, in any order, each word
// matched once — the interpretability score of the YD/T draft (§6.2):
// precision = right evidence words / words returned, recall = right /
// annotated. The built-in "sentiment" preset declares it. A repeated word
// counts as often as it is listed; words compare in NFC; [] annotates "no
// evidence", so every word returned is wrong; a case that does not
// annotate evidence is not charged.
func TestItemsWithoutKeysCompareWords(t *testing.T) {
	s := loadSuite(t, `
suite "s" { schema = "sentiment" }
template "t1" {
  text   = "菜很好吃，服务周到"
  expect = { "$.label" = "正面", "$.evidence" = ["好吃", "周到"] }
}
template "t2" {
  text   = "好好差"
  expect = { "$.evidence" = ["好", "好", "差"] }
}
template "t3" {
  text   = "café"
  expect = { "$.evidence" = ["café"] }
}
template "t4" {
  text   = "一般"
  expect = { "$.evidence" = [] }
}
template "t5" {
  text   = "没有标注"
  expect = { "$.label" = "正面" }
}
`)
	answers := map[string]string{
		"t1": `{"label":"正面","confidence":0.9,"evidence":["周到","好吃"]}`,
		"t2": `{"label":"负面","evidence":["好","差","差"]}`,
		"t3": `{"label":"正面","evidence":["cafe\u0301"]}`,
		"t4": `{"label":"负面","evidence":["多余"]}`,
		"t5": `{"label":"正面","evidence":["x","y"]}`,
	}
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	outcomes := map[string]schema.Outcome{}
	failures := map[string]string{}
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		r := &schema.Result{Case: *c, Response: json.RawMessage(answers[c.Template])}
		e := ev.Evaluate(r)
		col.Add(r, e)
		e.Release()
		outcomes[c.Template] = r.Outcome
		for _, f := range r.Failures {
			failures[c.Template] += f.Message
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := col.Metrics().Dimension["evidence"]
	if d == nil || d.Expected != 6 || d.Recognized != 7 || d.Correct != 5 {
		t.Fatalf("evidence: %+v, want 6 expected, 7 recognised, 5 right", d)
	}
	if p, _ := d.Precision.Value(); p != 5.0/7 {
		t.Errorf("precision %v, want 5/7", d.Precision)
	}
	want := map[string]schema.Outcome{"t1": schema.Pass, "t2": schema.Fail, "t3": schema.Pass, "t4": schema.Fail, "t5": schema.Pass}
	for k, o := range want {
		if outcomes[k] != o {
			t.Errorf("%s: %s, want %s (%s)", k, outcomes[k], o, failures[k])
		}
	}
	if !strings.Contains(failures["t2"], `items compared in any order whole: missing "好"; unexpected "差"`) {
		t.Errorf("t2's failure: %q", failures["t2"])
	}
}
