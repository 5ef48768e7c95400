package assert

import (
	"fmt"
	"math"
	"testing"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
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
	opts := TextMetrics{Smooth: metrics.SmoothExp}
	one := &textAcc{opts: opts}
	parts := []*textAcc{{opts: opts}, {opts: opts}}
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
	opts = TextMetrics{Tokenize: metrics.TokChr, Smooth: metrics.SmoothFloor, SmoothValue: 0.1}
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
	opts := TextMetrics{Smooth: metrics.SmoothExp}
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
	a := &textAcc{opts: TextMetrics{Smooth: metrics.SmoothExp}}
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

// metrics.text.lowest lists a node's lowest-scoring cases, lowest first,
// by F1 or text_metrics' lowest_by, at most schema.MaxLowestText; ties go
// by id, so two accumulators fed halves in either order and merged list
// the same cases as one fed everything. A wrong answer to a case without
// expectations ("悉尼" for 堪培拉) is the first listed.
func TestTextLowestCases(t *testing.T) {
	var rs []*schema.Result
	for i := range 14 {
		reply := "北京"
		if i%3 == 0 {
			reply = "北京市"
		}
		rs = append(rs, &schema.Result{Case: schema.Case{ID: fmt.Sprintf("c%02d", i), Text: "首都是哪里", References: []string{"北京"}}, Reply: reply})
	}
	rs = append(rs, &schema.Result{Case: schema.Case{ID: "wrong", Text: "澳大利亚的首都是哪里", References: []string{"堪培拉"}}, Reply: "悉尼"})
	for _, by := range []string{"f1", "rougeL"} {
		opts := TextMetrics{Smooth: metrics.SmoothExp, LowestBy: by}
		one, a, b := &textAcc{opts: opts}, &textAcc{opts: opts}, &textAcc{opts: opts}
		for i, r := range rs {
			one.Add(&Observation{Result: r})
			if i%2 == 0 {
				a.Add(&Observation{Result: r})
			} else {
				b.Add(&Observation{Result: r})
			}
		}
		b.Merge(a) // the other order
		var n1, n2 schema.Node
		one.Fill(&n1)
		b.Fill(&n2)
		l1, l2 := n1.Families["text"].(*schema.Text), n2.Families["text"].(*schema.Text)
		if len(l1.Lowest) != schema.MaxLowestText || l1.Lowest[0].ID != "wrong" || l1.Lowest[0].Score != 0 || l1.LowestBy != by {
			t.Fatalf("%s: lowest %+v", by, l1.Lowest)
		}
		// c00, c03 … ("北京市" against 北京: F1 0.8 in characters) follow, by id
		if l1.Lowest[1].ID != "c00" || l1.Lowest[5].ID != "c12" || l1.Lowest[6].Score != 1 {
			t.Errorf("%s: order %+v", by, l1.Lowest)
		}
		if fmt.Sprint(l1.Lowest) != fmt.Sprint(l2.Lowest) {
			t.Errorf("%s: merged %v, want %v", by, l2.Lowest, l1.Lowest)
		}
	}
}
