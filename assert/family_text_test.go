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

// TestDistinctNodeTokenizer: distinct-n tokenizes every reply of a node
// with the node's BLEU tokenizer (zh when any case is Chinese, the one the
// BLEU signature names), not each case's own. The audit's node — "He said
// “yes” — 3. ok" (English reference) and "你好，世界。" (Chinese) — under
// sacrebleu 2.6.0's TokenizerZh is 15 tokens, 15 distinct unigrams and 13
// distinct bigrams (Li et al. 2016's pooled ratios 1 and 0.8667; the
// per-case tokenizers gave 13/13 and 11/13 = 0.8462). A node holding the
// English case alone uses 13a: Tokenizer13a's 7 tokens, 6 bigrams.
func TestDistinctNodeTokenizer(t *testing.T) {
	en := &schema.Result{Case: schema.Case{References: []string{"He said yes, 3 ok"}}, Reply: "He said \u201cyes\u201d \u2014 3. ok"}
	zh := &schema.Result{Case: schema.Case{References: []string{"你好世界"}}, Reply: "你好，世界。"}
	opts := spec.TextMetrics{Smooth: metrics.SmoothExp}
	mixed, parts := &textAcc{opts: opts}, []*textAcc{{opts: opts}, {opts: opts}}
	for i, r := range []*schema.Result{en, zh} {
		mixed.Add(&Observation{Result: r})
		parts[i].Add(&Observation{Result: r})
	}
	var enOnly schema.Node
	parts[0].Fill(&enOnly)
	parts[0].Merge(parts[1])
	for name, a := range map[string]*textAcc{"one": mixed, "merged": parts[0]} {
		var n schema.Node
		a.Fill(&n)
		v := n.Families["text"].(*schema.Text)
		if v.Distinct1 != schema.R(15, 15) || v.Distinct2 != schema.R(13, 15) || v.BLEUSignature != "nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp" {
			t.Errorf("%s: distinct1 %v distinct2 %v (%s); want 15/15, 13/15 with tok:zh (sacrebleu TokenizerZh)", name, v.Distinct1, v.Distinct2, v.BLEUSignature)
		}
	}
	if v := enOnly.Families["text"].(*schema.Text); v.Distinct1 != schema.R(7, 7) || v.Distinct2 != schema.R(6, 7) || v.BLEUSignature != "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp" {
		t.Errorf("English node: distinct1 %v distinct2 %v (%s); want 7/7, 6/7 with tok:13a", v.Distinct1, v.Distinct2, v.BLEUSignature)
	}
}

// metrics.text.meteor is the mean over cases of NLTK's meteor_score
// (NLTK 3.8, synonyms off) on the case's tokens: a Chinese case character
// by character (sacrebleu's zh tokenizer: 0.8965869939707148 for these
// sentences, the best of two references), an English one in 13a tokens
// ("The Cats were RUNNING": 0.6388888888888888, stems and case).
func TestTextFamilyMeteor(t *testing.T) {
	a := &textAcc{opts: spec.TextMetrics{Smooth: metrics.SmoothExp}}
	for _, r := range []*schema.Result{
		{Case: schema.Case{References: []string{"今天我想去北京的天安门看看", "我想去上海"}}, Reply: "我今天想去北京看看天安门"},
		{Case: schema.Case{References: []string{"The Cats were RUNNING"}}, Reply: "the cat is running"},
	} {
		a.Add(&Observation{Result: r})
	}
	var n schema.Node
	a.Fill(&n)
	v := n.Families["text"].(*schema.Text)
	want := (0.8965869939707148 + 0.6388888888888888) / 2
	if got, ok := v.Meteor.Value(); !ok || math.Abs(got-want) > 1e-9 || v.Meteor.Den != 2 {
		t.Errorf("METEOR %+v, want %.10f over 2 cases (NLTK meteor_score)", v.Meteor, want)
	}
}
