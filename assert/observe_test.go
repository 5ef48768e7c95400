package assert_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// A metric family outside package assert, built only from its exported
// API: per label dimension, the cases that expect a label and those whose
// response abstained (no prediction, or one under min_confidence) though
// the expected label was among its top-k — read from the evaluation's
// observations (Evaluation.Label), with nothing parsed again.
type abstainFamily struct{}

var abstainShape = &schema.Family{Name: "abstain", Subs: []*schema.Sub{{
	Name: "abstain", Doc: "abstentions per label dimension (test-only)", Keyed: true, What: "label dimension",
	Shape: &schema.Shape{Attrs: []schema.Attr{
		{Name: "expected", Kind: schema.MetricCount, Doc: "cases expecting a label"},
		{Name: "abstained", Kind: schema.MetricCount, Doc: "of those, no prediction"},
		{Name: "recoverable", Kind: schema.MetricCount, Doc: "abstained, the expected label in the top-k"},
	}},
}}}

func (abstainFamily) Shape() *schema.Family { return abstainShape }
func (abstainFamily) NewAcc(s *spec.Suite) assert.Acc {
	if s.Schema == nil {
		return nil
	}
	return &abstainAcc{dims: s.Schema.Dimensions, by: map[string]*[3]int{}}
}

type abstainAcc struct {
	dims []*spec.Dimension
	by   map[string]*[3]int
}

func (a *abstainAcc) Add(o *assert.Observation) {
	if o.Eval == nil {
		return
	}
	for i := range o.Eval.Dimensions() {
		l, ok := o.Eval.Label(i)
		if !ok {
			continue
		}
		c := a.by[a.dims[i].Name]
		if c == nil {
			c = &[3]int{}
			a.by[a.dims[i].Name] = c
		}
		c[0]++
		if l.Predicted == "" {
			c[1]++
			for _, k := range l.TopK {
				if k == l.Expected {
					c[2]++
				}
			}
		}
	}
}

func (a *abstainAcc) Merge(o assert.Acc) {
	for k, v := range o.(*abstainAcc).by {
		c := a.by[k]
		if c == nil {
			c = &[3]int{}
			a.by[k] = c
		}
		for i := range c {
			c[i] += v[i]
		}
	}
}

type abstainValue struct {
	Expected    int `json:"expected"`
	Abstained   int `json:"abstained"`
	Recoverable int `json:"recoverable"`
}

func (a *abstainAcc) Fill(n *schema.Node) {
	if len(a.by) == 0 {
		return
	}
	v := map[string]abstainValue{}
	for k, c := range a.by {
		v[k] = abstainValue{c[0], c[1], c[2]}
	}
	assert.SetFamily(n, "abstain", v)
}

// The outside family counts by hand: of 4 cases expecting 订机票 (rasa's
// intent dimension, min_confidence 0.6 in this suite), one is predicted,
// two fall under min_confidence with 订机票 in their ranking, and one has
// no intent at all — 4 expected, 3 abstained, 2 recoverable; a threshold
// reads metrics.abstain.intent.abstained, and the label family (in
// assert) counts the same cases as before.
func TestFamilyOutsideAssert(t *testing.T) {
	dir := t.TempDir()
	src := `suite "外部" { schema = "严格" }
schema "严格" {
  extends = "rasa"
  dimension "intent" {
    kind           = "label"
    path           = "$.intent.name"
    confidence     = "$.intent.confidence"
    ranking        = "$.intent_ranking[*].name"
    min_confidence = 0.6
  }
}
template "订票" {
  text   = "订一张去北京的机票"
  expect = { "$.intent.name" = "订机票" }
}
threshold "少弃权" { condition = metrics.abstain["intent"].abstained <= 3 }
`
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fams := append(assert.DefaultFamilies(), abstainFamily{})
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, Families: fams.Shapes()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	ev, col := assert.NewEvaluator(s), assert.NewCollector(s, fams)
	for i, resp := range []string{
		`{"intent":{"name":"订机票","confidence":0.9},"intent_ranking":[{"name":"订机票"},{"name":"查天气"}]}`,
		`{"intent":{"name":"查天气","confidence":0.3},"intent_ranking":[{"name":"查天气"},{"name":"订机票"}]}`,
		`{"intent":{"name":"订机票","confidence":0.5},"intent_ranking":[{"name":"订机票"}]}`,
		`{"entities":[]}`,
	} {
		r := &schema.Result{Case: *c, Response: json.RawMessage(resp)}
		r.ID = c.ID + string(rune('a'+i))
		e := ev.Evaluate(r)
		col.Add(r, e)
		e.Release()
	}
	rep := assert.BuildReport(s, col, schema.RunInfo{}, "test", nil)
	raw, _ := json.Marshal(rep.Metrics.Families["abstain"])
	if string(raw) != `{"intent":{"expected":4,"abstained":3,"recoverable":2}}` {
		t.Errorf("metrics.abstain = %s", raw)
	}
	if len(rep.Thresholds) != 1 || rep.Thresholds[0].Outcome != schema.Pass {
		t.Errorf("threshold on the outside family: %+v", rep.Thresholds)
	}
	if l := rep.Metrics.Label["intent"]; l == nil || l.Total != 4 {
		t.Errorf("the label family beside it: %+v", l)
	}
}
