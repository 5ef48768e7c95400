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
	s, diags := spec.Load(dir, spec.Options{})
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
	first, second, none := NewCollector(s), NewCollector(s), NewCollector(s)
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
