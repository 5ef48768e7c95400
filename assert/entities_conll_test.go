package assert

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// The CoNLL-2000 chunking sample of seqeval's tests
// (tests/data/ground_truth.txt), with the counts and percentages the
// bundled reference script conlleval.pl prints for it (seqeval's default
// mode agrees with it): testdata/entity_conll2000_sample.json.
type conllSample struct {
	Tokens   [][]string        `json:"tokens"`
	YTrue    [][]string        `json:"y_true"`
	YPred    [][]string        `json:"y_pred"`
	Stdout   []string          `json:"expected_conlleval_stdout"`
	Counts   map[string][3]int `json:"expected_counts_gold_pred_correct"`
	Expected struct {
		Gold, Pred, Correct int
		Precision, Recall   float64
		F1                  float64 `json:"f1"`
	} `json:"expected_totals"`
}

type conllChunk struct {
	Entity     string `json:"entity"`
	Value      string `json:"value"`
	Start, End int
}

// conllChunks returns the chunks of one sentence's IOB tags as conlleval
// reads them (a chunk starts at B-X, or at I-X after O or another type),
// with character offsets into the tokens joined by spaces.
func conllChunks(tokens, tags []string) []conllChunk {
	var out []conllChunk
	offset := make([]int, len(tokens)+1)
	for i, tok := range tokens {
		offset[i+1] = offset[i] + len(tok) + 1
	}
	cur, start := "", 0
	flush := func(end int) {
		if cur != "" {
			out = append(out, conllChunk{cur, strings.Join(tokens[start:end], " "), offset[start], offset[end] - 1})
		}
		cur = ""
	}
	for i, tag := range tags {
		prefix, typ, _ := strings.Cut(tag, "-")
		switch {
		case tag == "O":
			flush(i)
		case prefix == "B" || typ != cur:
			flush(i)
			cur, start = typ, i
		}
	}
	flush(len(tags))
	return out
}

const conllSuite = `
suite "conll" { schema = "conll" }
schema "conll" {
  extends = "rasa"
  dimension "entity" {
    kind  = "items"
    items = "$.entities[*]"
    keys  = ["entity", "value"]
    type  = "entity"
    scope = ["ADJP", "ADVP", "NP", "PP", "SBAR", "VP"]
  }
}
template "sentence" {
  text   = "x"
  expect = { "$.intent.name" = "chunk" }
}
`

// conllResults turns the sample into results: each sentence a case
// expecting its gold chunks in the documented form, in reverse order
// ("$.entities" = [{ entity, value, start, end }, …]), against a service
// that answers the predicted chunks ordered by offset plus a DATE entity
// the suite does not annotate.
func conllResults(t *testing.T, smp *conllSample) []*schema.Result {
	var out []*schema.Result
	for i, toks := range smp.Tokens {
		gold := conllChunks(toks, smp.YTrue[i])
		pred := conllChunks(toks, smp.YPred[i])
		var want []any
		for _, c := range slices.Backward(gold) {
			want = append(want, map[string]any{"entity": c.Entity, "value": c.Value, "start": int64(c.Start), "end": int64(c.End)})
		}
		slices.SortFunc(pred, func(a, b conllChunk) int { return a.Start - b.Start })
		ents := []map[string]any{{"entity": "DATE", "value": toks[0], "start": 0, "end": len(toks[0])}}
		for _, c := range pred {
			ents = append(ents, map[string]any{"entity": c.Entity, "value": c.Value, "start": c.Start, "end": c.End})
		}
		body, err := json.Marshal(map[string]any{"intent": map[string]any{"name": "chunk"}, "entities": ents})
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = []any{}
		}
		out = append(out, &schema.Result{Case: schema.Case{ID: fmt.Sprint(i), Template: "sentence", Source: "sentence", SourceKind: "template", Text: strings.Join(toks, " "),
			Expect: schema.Expectations{{Path: "$.entities", Value: want}}}, Response: body})
	}
	return out
}

func loadConll(t *testing.T) *conllSample {
	b, err := os.ReadFile("testdata/entity_conll2000_sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var smp conllSample
	if err := json.Unmarshal(b, &smp); err != nil {
		t.Fatal(err)
	}
	return &smp
}

func entityMetrics(t *testing.T, results []*schema.Result) *schema.Dimension {
	s := loadSuite(t, conllSuite)
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	for _, r := range results {
		col.Add(r, ev.Evaluate(r))
	}
	d := col.Metrics().Node.Dimension["entity"]
	if d == nil {
		t.Fatal("no entity dimension")
	}
	return d
}

func ratioIs(t *testing.T, what string, r *schema.Ratio, num, den int) {
	t.Helper()
	v, ok := r.Value()
	if !ok || math.Abs(v-float64(num)/float64(den)) > 1e-12 {
		t.Errorf("%s = %v (%v/%v), want %d/%d", what, v, r.Num, r.Den, num, den)
	}
}

// Entity precision, recall and F1 per type equal conlleval's (seqeval's
// default mode) on the CoNLL-2000 sample of seqeval's tests, counted from
// expectations in the documented form against a service ordering entities
// by offset and returning a type the suite does not annotate.
func TestEntitiesEqualConlleval(t *testing.T) {
	smp := loadConll(t)
	d := entityMetrics(t, conllResults(t, smp))
	// processed 961 tokens with 459 phrases; found: 539 phrases; correct: 371.
	if d.Expected != 459 || d.Recognized != 539 || d.Correct != 371 {
		t.Errorf("expected/recognized/correct %d/%d/%d, want 459/539/371 (conlleval)", d.Expected, d.Recognized, d.Correct)
	}
	ratioIs(t, "precision", d.Precision, 371, 539) // 68.83%
	ratioIs(t, "recall", d.Recall, 371, 459)       // 80.83%
	ratioIs(t, "f1", d.F1, 2*371, 459+539)         // 74.35
	if d.OutOfScope == nil || *d.OutOfScope != len(smp.Tokens) {
		t.Errorf("out_of_scope %v, want %d (one DATE per response)", d.OutOfScope, len(smp.Tokens))
	}
	var macroP, macroR, macroF float64
	for typ, c := range smp.Counts {
		gold, pred, correct := c[0], c[1], c[2]
		got := d.Types[typ]
		if got == nil {
			t.Errorf("no figures for type %s", typ)
			continue
		}
		if got.Support != gold || got.Recognized != pred || got.Correct != correct {
			t.Errorf("%s: support/recognized/correct %d/%d/%d, want %d/%d/%d", typ, got.Support, got.Recognized, got.Correct, gold, pred, correct)
		}
		ratioIs(t, typ+" recall", got.Recall, correct, gold)
		ratioIs(t, typ+" f1", got.F1, 2*correct, gold+pred)
		p, _ := got.Precision.Value()
		r, _ := got.Recall.Value()
		f, _ := got.F1.Value()
		macroP, macroR, macroF = macroP+p, macroR+r, macroF+f
		// conlleval prints each type's line with 2 decimals.
		line := fmt.Sprintf("%s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d", typ, 100*p, 100*r, 100*f, pred)
		if !slices.Contains(smp.Stdout, line) {
			t.Errorf("line %q is not in conlleval's output %q", line, smp.Stdout)
		}
	}
	if len(d.Types) != len(smp.Counts) {
		t.Errorf("types %v, want those of %v", d.Types, smp.Counts)
	}
	n := float64(len(smp.Counts))
	for name, c := range map[string]struct {
		r    *schema.Ratio
		want float64
	}{"macro_precision": {d.MacroPrecision, macroP / n}, "macro_recall": {d.MacroRecall, macroR / n}, "macro_f1": {d.MacroF1, macroF / n}} {
		if v, _ := c.r.Value(); math.Abs(v-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, v, c.want)
		}
	}
}

// A case that expects no entities ("$.entities" = []) charges the service
// with the entity it returns: a false positive conlleval counts too.
func TestEntityFreeUtteranceCountsFalsePositive(t *testing.T) {
	smp := loadConll(t)
	results := conllResults(t, smp)
	results = append(results, &schema.Result{Case: schema.Case{ID: "free", Template: "sentence", Source: "sentence", SourceKind: "template", Text: "thanks",
		Expect: schema.Expectations{{Path: "$.entities", Value: []any{}}}},
		Response: []byte(`{"intent":{"name":"chunk"},"entities":[{"entity":"NP","value":"thanks","start":0,"end":6},{"entity":"DATE","value":"thanks"}]}`)})
	d := entityMetrics(t, results)
	if d.Recognized != 540 || d.Correct != 371 {
		t.Errorf("recognized/correct %d/%d, want 540/371", d.Recognized, d.Correct)
	}
	ratioIs(t, "precision", d.Precision, 371, 540)
	ratioIs(t, "NP precision", d.Types["NP"].Precision, 206, 318)
	last := results[len(results)-1]
	if last.Outcome != schema.Fail || len(last.Failures) != 1 || !strings.Contains(last.Failures[0].Message, `unexpected {"entity":"NP","value":"thanks"}`) {
		t.Errorf("the entity-free case: %s %+v", last.Outcome, last.Failures)
	}
}
