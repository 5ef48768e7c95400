package assert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

func loadSuite(t testing.TB, src string) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// A result's dimension metrics reach every collector it is added to: the
// evaluation travels beside the result, the collectors only read it, and a
// collector given no evaluation re-derives it. (With the analysis hidden in
// the result, the first collector used it up and the second counted the
// case without its dimensions.)
func TestEvaluationCountsInEveryCollector(t *testing.T) {
	s := loadSuite(t, refRasaSuite)
	ev := NewEvaluator(s)
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	r := &schema.Result{Case: *c, Response: json.RawMessage(`{"intent":{"name":"订机票","confidence":0.9},"entities":[{"entity":"城市","value":"上海"}]}`)}
	evaluation := ev.Evaluate(r)
	if evaluation == nil {
		t.Fatal("a suite with dimensions gives an evaluation")
	}
	first, second, none := NewCollector(s, nil), NewCollector(s, nil), NewCollector(s, nil)
	first.Add(r, evaluation)
	second.Add(r, evaluation)
	none.Add(r, nil)
	evaluation.Release()
	want := dimensionsJSON(t, first)
	if want == "{}" || want == "null" {
		t.Fatalf("the first collector has no dimension metrics: %s", want)
	}
	for name, col := range map[string]*Collector{"second collector": second, "collector without the evaluation": none} {
		if got := dimensionsJSON(t, col); got != want {
			t.Errorf("%s: dimension metrics %s, want %s", name, got, want)
		}
	}
}

func dimensionsJSON(t *testing.T, c *Collector) string {
	m := c.Metrics()
	b, err := json.Marshal(struct {
		D map[string]*schema.Dimension
		L map[string]*schema.Label
	}{m.Dimension, m.Label})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Metrics that come from elsewhere than calls (a ratings sheet) join a
// node with AddExternal, as if the collector had counted them.
func TestAddExternal(t *testing.T) {
	s := loadSuite(t, `
template "天气" {
  text  = "北京天气"
  level = "S1"
  expect = { "$.intent" = "查天气" }
}
split "冒烟" { where = case.level == "S1" }
`)
	c := NewCollector(s, nil)
	c.Add(&schema.Result{Case: schema.Case{ID: "1", Template: "天气", Text: "北京天气", Level: "S1", Split: []string{"冒烟"}}, Outcome: schema.Pass}, nil)
	if err := c.AddExternal("cases", NodeKey{Group: "split", Key: "冒烟"}, &counts{total: 2, passed: 1, failed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddExternal("cases", NodeKey{Group: "core"}, &counts{total: 1, passed: 1}); err != nil {
		t.Fatal(err)
	}
	m := c.Metrics()
	if n := m.Split["冒烟"]; n.Total != 3 || n.Passed != 2 || n.Accuracy.Num != 2 || n.Accuracy.Den != 3 {
		t.Errorf("split node after AddExternal: %+v", n)
	}
	if m.Core == nil || m.Core.Total != 1 {
		t.Errorf("core node after AddExternal: %+v", m.Core)
	}
	if m.Total != 1 {
		t.Errorf("the root counts only what was added to it: total %d", m.Total)
	}
	if err := c.AddExternal("ratings", NodeKey{}, &counts{}); err == nil {
		t.Error("an unregistered family is an error")
	}
	if err := c.AddExternal("cases", NodeKey{Group: "shelf"}, &counts{}); err == nil {
		t.Error("an unknown group is an error")
	}
}
