package assert

import (
	"math"
	"testing"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The text family's node figures: BLEU from summed statistics equals
// corpus BLEU of sacrebleu's test_bleu.py example (48.530827 with the
// default 13a and exp), merged accumulators equal one fed everything, and
// a text_metrics block's tokenizer and smoothing reach the signature.
func TestTextFamilyNode(t *testing.T) {
	hyps := []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
	refs := [][]string{
		{"The dog bit the man.", "The dog had bit the man."},
		{"It was not unexpected.", "No one was surprised."},
		{"The man bit him first.", "The man had bitten the dog."},
	}
	suite := &spec.Suite{CaseSources: nil, TextMetrics: spec.TextMetrics{Smooth: metrics.SmoothExp}}
	one := &textAcc{opts: suite.TextMetrics}
	parts := []*textAcc{{opts: suite.TextMetrics}, {opts: suite.TextMetrics}}
	for i, h := range hyps {
		r := &schema.Result{Case: schema.Case{References: refs[i]}, Reply: h, Outcome: schema.Pass}
		one.Add(&Observation{Result: r})
		parts[i%2].Add(&Observation{Result: r})
	}
	parts[0].Merge(parts[1])
	for name, a := range map[string]*textAcc{"one": one, "merged": parts[0]} {
		var n schema.Node
		a.Fill(&n)
		v := n.Families["text"].(*schema.Text)
		if math.Abs(v.BLEUScore-48.530827) > 1e-6 || v.BLEU != v.BLEUScore/100 || v.Cases != 3 {
			t.Errorf("%s: BLEU %v (%v), cases %d; want 48.530827 (sacrebleu test_bleu.py)", name, v.BLEUScore, v.BLEU, v.Cases)
		}
		if v.BLEUSignature != "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp" {
			t.Errorf("%s: signature %q", name, v.BLEUSignature)
		}
		if v.ExactMatch != (schema.Ratio{Num: 1, Den: 3}) {
			t.Errorf("%s: EM %+v, want 1/3", name, v.ExactMatch)
		}
	}
	opts := spec.TextMetrics{Tokenize: metrics.TokChr, Smooth: metrics.SmoothFloor, SmoothValue: 0.1}
	a := &textAcc{opts: opts}
	a.Add(&Observation{Result: &schema.Result{Case: schema.Case{References: []string{"北京"}}, Reply: "北京"}})
	var n schema.Node
	a.Fill(&n)
	if v := n.Families["text"].(*schema.Text); v.BLEUSignature != "nrefs:1|case:mixed|eff:no|tok:char|smooth:floor[0.10]" || v.ExactMatch.Num != 1 {
		t.Errorf("text_metrics options: %+v", v)
	}
	var empty schema.Node
	(&textAcc{}).Fill(&empty)
	if _, ok := empty.Families["text"]; ok {
		t.Error("a node without cases with references has metrics.text")
	}
}
