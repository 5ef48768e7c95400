package assert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/dataset"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// TestRasaNLUEntityFreeExamples: a Rasa nlu.yml example without
// annotations expects no entity, so an entity the service finds in it is a
// false positive and fails the case, as seqeval (chakki-works/seqeval @
// cd01b52, default mode) counts it on the same examples tagged per token:
// gold [O O] [O] [O O B-city] [O B-city], predicted [O B-city] [O]
// [O O B-city] [O B-city] — precision_score 0.6666666666666666,
// recall_score 1.0, f1_score 0.8. Before, the entity-free examples fed no
// expectation and the hallucinated "there" went uncounted (precision 1).
func TestRasaNLUEntityFreeExamples(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"s.nlutest.hcl": "suite \"rasa\" { schema = \"rasa\" }\ndataset \"nlu\" { source = \"nlu.yml\" }\n",
		"nlu.yml": `version: "3.1"
nlu:
- intent: greet
  examples: |
    - hello there
    - 你好
- intent: move
  examples: |
    - go to [Berlin](city)
    - 去[北京](city)
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, dataset.Kind{}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	found := map[string][]map[string]any{
		"hello there":  {{"entity": "city", "value": "there"}},
		"你好":           {},
		"go to Berlin": {{"entity": "city", "value": "Berlin"}},
		"去北京":          {{"entity": "city", "value": "北京"}},
	}
	ev, col := NewEvaluator(s), NewCollector(s, nil)
	outcomes := map[string]schema.Outcome{}
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		intent := "greet"
		if len(found[c.Text]) > 0 && c.Text != "hello there" {
			intent = "move"
		}
		body, _ := json.Marshal(map[string]any{"intent": map[string]any{"name": intent, "confidence": 0.9}, "entities": found[c.Text]})
		r := &schema.Result{Case: *c, Response: body}
		evaluation := ev.Evaluate(r)
		outcomes[c.Text] = r.Outcome
		col.Add(r, evaluation)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := col.Metrics().Node.Dimension["entity"]
	if d == nil {
		t.Fatal("no entity dimension")
	}
	if d.Expected != 2 || d.Recognized != 3 || d.Correct != 2 || !fraction(d.Precision, 2, 3) || !fraction(d.Recall, 2, 2) || !fraction(d.F1, 4, 5) {
		t.Errorf("entity: expected %d recognized %d correct %d, P %v R %v F1 %v; seqeval P 0.6667, R 1, F1 0.8 (3 found, 2 correct, 2 gold)",
			d.Expected, d.Recognized, d.Correct, d.Precision, d.Recall, d.F1)
	}
	if outcomes["hello there"] != schema.Fail || outcomes["你好"] != schema.Pass {
		t.Errorf("outcomes %v: the hallucinated entity fails its case, the entity-free answer passes", outcomes)
	}
}

// fraction reports whether r is num/den (whatever its interval).
func fraction(r *schema.Ratio, num, den float64) bool {
	return r != nil && r.Num == num && r.Den == den
}
