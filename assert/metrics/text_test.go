package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The hypotheses and references of sacrebleu's test/test_bleu.py
// (_hyps, _refs: two reference streams).
var (
	sbHyps = []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
	sbRefs = [][]string{
		{"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
		{"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."},
	}
)

func corpusBLEU(tok Tokenizer, m Smoothing, value float64, hyps []string, refStreams [][]string) float64 {
	var st BLEUStats
	for i, h := range hyps {
		var refs [][]string
		for _, stream := range refStreams {
			refs = append(refs, Tokenize(tok, stream[i]))
		}
		seg := SegmentBLEU(Tokenize(tok, h), refs)
		st.Add(&seg)
	}
	return BLEUScore(st, m, value)
}

// Corpus BLEU reproduces sacrebleu's corpus_bleu (sacrebleu
// test/test_bleu.py, test_corpus_bleu_cases and test_bleu_max_order's
// neighbours) to 4 decimals and beyond.
func TestCorpusBLEUSacrebleu(t *testing.T) {
	for _, tc := range []struct {
		name string
		tok  Tokenizer
		m    Smoothing
		hyps []string
		want float64
	}{
		{"default settings", Tok13a, SmoothExp, sbHyps, 48.530827},
		{"empty hypotheses are not removed", Tok13a, SmoothExp, []string{"", "", ""}, 0},
		{"tokenize none", TokNon, SmoothExp, sbHyps, 49.1919566},
		{"tokenize 13a", Tok13a, SmoothExp, sbHyps, 48.530827},
		{"smooth none", Tok13a, SmoothNone, sbHyps, 48.530827},
	} {
		got := corpusBLEU(tc.tok, tc.m, DefaultSmoothValue(tc.m), tc.hyps, sbRefs)
		if math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("%s: BLEU %.7f, want %.7f (sacrebleu)", tc.name, got, tc.want)
		}
	}
}

// sacrebleu test/test_bleu.py: raw_corpus_bleu (floor smoothing with
// 0.01, tokenize none) — test_raw_bleu_cases — and test_case_statistics,
// test_case_scoring and test_degenerate_statistics.
func TestBLEUSacrebleuStatistics(t *testing.T) {
	raw := func(h, r string) float64 {
		seg := SegmentBLEU(Tokenize(TokNon, h), [][]string{Tokenize(TokNon, r)})
		return BLEUScore(seg, SmoothFloor, 0.01) / 100
	}
	if got := raw("this is a test", "this is a test"); math.Abs(got-1) > 1e-8 {
		t.Errorf("raw BLEU identical: %v", got)
	}
	if got := raw("this is a fest", "this is a test"); math.Abs(got-0.223606797749979) > 1e-8 {
		t.Errorf("raw BLEU 'this is a fest': %v, want 0.223606797749979", got)
	}
	seg := SegmentBLEU(Tokenize(TokNon, "am I am a character sequence"), [][]string{Tokenize(TokNon, "I am a symbol string sequence a a")})
	if seg.Correct != [4]int{4, 2, 1, 0} || seg.Total != [4]int{6, 5, 4, 3} {
		t.Errorf("statistics %v %v, want [4 2 1 0] [6 5 4 3]", seg.Correct, seg.Total)
	}
	// floor with 0.1 (sacrebleu's default) and with 0 (test_offset)
	if got := BLEUScore(seg, SmoothFloor, 0.1) / 100; math.Abs(got-0.1555722182) > 1e-8 {
		t.Errorf("offset 0.1: %v, want 0.1555722182", got)
	}
	if got := BLEUScore(seg, SmoothFloor, 0); got != 0 {
		t.Errorf("offset 0: %v, want 0", got)
	}
	st := BLEUStats{SysLen: 11, RefLen: 11, Correct: [4]int{9, 7, 5, 3}, Total: [4]int{10, 8, 6, 4}}
	if got := BLEUScore(st, SmoothNone, 0) / 100; math.Abs(got-0.8375922397) > 1e-8 {
		t.Errorf("scoring: %v, want 0.8375922397", got)
	}
	for _, d := range []struct {
		st  BLEUStats
		off float64
	}{
		{BLEUStats{0, 1, [4]int{}, [4]int{4, 4, 2, 1}}, 0},
		{BLEUStats{14, 10, [4]int{}, [4]int{10, 11, 12, 0}}, 0},
		{BLEUStats{0, 0, [4]int{}, [4]int{}}, 0},
		{BLEUStats{6, 6, [4]int{6, 5, 4, 0}, [4]int{6, 5, 4, 3}}, 0},
		{BLEUStats{0, 0, [4]int{}, [4]int{}}, 0.1},
		{BLEUStats{1, 5, [4]int{}, [4]int{}}, 0.01},
	} {
		if got := BLEUScore(d.st, SmoothFloor, d.off); got != 0 {
			t.Errorf("degenerate %+v: %v, want 0", d.st, got)
		}
	}
}

// The tokenizers split as sacrebleu's (tokenizer_13a.py, tokenizer_zh.py,
// tokenizer_char.py; examples worked by hand from their regexps).
func TestTokenizers(t *testing.T) {
	for _, tc := range []struct {
		tok      Tokenizer
		in, want string
	}{
		{Tok13a, "It wasn't surprising.", "It wasn't surprising ."}, // ' is not in the first regexp's class
		{Tok13a, "3.5 million, 1,000 or 2-3 &amp; (x)", "3.5 million , 1,000 or 2 - 3 & ( x )"},
		{Tok13a, "a..b", "a . . b"},
		{TokZh, "我住在北京。Hello, world!", "我 住 在 北 京 。 Hello , world !"},
		{TokZh, "“好”", "“ 好 ”"},
		{TokChr, "北京 ab", "北 京 a b"},
		{TokNon, " a  b. ", "a b."},
	} {
		if got := strings.Join(Tokenize(tc.tok, tc.in), " "); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.tok, tc.in, got, tc.want)
		}
	}
	if sig := BLEUSignature(1, TokZh, SmoothExp, 0); sig != "nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp" {
		t.Errorf("signature %q", sig)
	}
	if sig := BLEUSignature(-1, Tok13a, SmoothFloor, 0.1); sig != "nrefs:var|case:mixed|eff:no|tok:13a|smooth:floor[0.10]" {
		t.Errorf("signature %q", sig)
	}
}

// EM and F1 follow the SQuAD v1.1 evaluation script (normalize_answer,
// exact_match_score, f1_score, metric_max_over_ground_truths) and, for
// Chinese, the MLQA evaluation script's mixed segmentation
// (mlqa_evaluation_v1.py); values worked by hand from the scripts' rules.
func TestExactMatchAndF1(t *testing.T) {
	for _, tc := range []struct {
		norm   AnswerNorm
		pred   string
		golds  []string
		em, f1 float64
	}{
		// articles and punctuation go: "the Denver Broncos!" = "Denver Broncos"
		{NormSQuAD, "the Denver Broncos!", []string{"Denver Broncos"}, 1, 1},
		// 2 of 3 predicted tokens in a gold of 2: p 2/3, r 1, F1 0.8
		{NormSQuAD, "Denver Broncos team", []string{"Denver Broncos"}, 0, 0.8},
		// the best gold counts
		{NormSQuAD, "Santa Clara", []string{"Levi's Stadium", "Santa Clara, California"}, 0, 0.8},
		{NormSQuAD, "an apple", []string{"Apple"}, 1, 1},
		// "another" is not an article
		{NormSQuAD, "another", []string{"other"}, 0, 0},
		// MLQA zh: characters one by one, "2019" whole, punctuation gone
		{NormMLQA, "2019年，北京", []string{"2019年北京。"}, 1, 1},
		// pred 北京市 (3 tokens), gold 北京 (2): p 2/3, r 1
		{NormMLQA, "北京市", []string{"北京"}, 0, 0.8},
		{NormMLQA, "GPT-3.5 模型", []string{"gpt35模型"}, 1, 1},
	} {
		if got := ExactMatch(tc.norm, tc.pred, tc.golds); got != tc.em {
			t.Errorf("EM %q %q: %v, want %v", tc.pred, tc.golds, got, tc.em)
		}
		if got := TokenF1(tc.norm, tc.pred, tc.golds); math.Abs(got-tc.f1) > 1e-6 {
			t.Errorf("F1 %q %q: %.6f, want %.6f", tc.pred, tc.golds, got, tc.f1)
		}
	}
	if got := MLQATokens("GPT-3.5 在2019年发布"); !slices.Equal(got, []string{"gpt35", "在", "2019", "年", "发", "布"}) {
		t.Errorf("MLQA mixed segmentation: %q", got)
	}
}

// ROUGE reproduces rouge-score's rouge_scorer_test.py (testRouge1,
// testRouge2, testRougeLConsecutive, testRougeLNonConsecutive,
// testRougeEmpty), scorer.score(target, prediction), to 6 decimals.
func TestRougeScore(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: %.6f, want %.6f", name, got, want)
		}
	}
	tok := RougeTokens
	r1 := RougeN(1, tok("testing one two"), tok("testing"))
	near("rouge1 P", r1.P, 1)
	near("rouge1 R", r1.R, 1.0/3)
	near("rouge1 F", r1.F, 0.5)
	r2 := RougeN(2, tok("testing one two"), tok("testing one"))
	near("rouge2 P", r2.P, 1)
	near("rouge2 R", r2.R, 0.5)
	near("rouge2 F", r2.F, 2.0/3)
	for _, pred := range []string{"testing one", "testing two"} {
		rl := RougeL(tok("testing one two"), tok(pred))
		near("rougeL P "+pred, rl.P, 1)
		near("rougeL R "+pred, rl.R, 2.0/3)
		near("rougeL F "+pred, rl.F, 0.8)
	}
	for _, s := range []RougeScore{RougeN(1, tok("testing one two"), nil), RougeN(2, tok("testing one two"), nil), RougeL(tok("testing one two"), nil)} {
		if s != (RougeScore{}) {
			t.Errorf("empty prediction: %+v", s)
		}
	}
	if got := RougeTokens("北京 Hello-World"); !slices.Equal(got, []string{"hello", "world"}) {
		t.Errorf("default tokenizer drops Chinese: %q", got)
	}
	if got := RougeTokensZh("去北京, iPhone15!"); !slices.Equal(got, []string{"去", "北", "京", "iphone15"}) {
		t.Errorf("Chinese tokenizer: %q", got)
	}
}

// distinct-n as Li et al. 2016: distinct n-grams over all replies / all
// reply tokens.
func TestDistinct(t *testing.T) {
	var a, b DistinctAcc
	a.Add([]string{"i", "do", "not", "know"})
	b.Add([]string{"i", "do", "not", "know"})
	b.Add([]string{"i", "know"})
	a.Merge(&b)
	// tokens 10; unigrams i do not know = 4; bigrams i-do do-not not-know i-know = 4
	if a.Tokens() != 10 || a.Distinct1() != 4 || a.Distinct2() != 4 {
		t.Errorf("tokens %d distinct1 %d distinct2 %d, want 10 4 4", a.Tokens(), a.Distinct1(), a.Distinct2())
	}
}

// TestNgramKeysCollisionFree: n-grams are keyed so that no token content
// makes two different n-grams one key. With tokenize none, the reply
// "a\x00b c d e" against "a b c d e" is sacrebleu 2.6.0's
// BLEU(tokenize="none").corpus_score 46.30777161991026 (its n-grams are
// tuples); joining tokens with U+0000 matched the 1-gram "a\x00b" with the
// reference's 2-gram (a, b) and gave 65.49. distinct-2 of the replies
// "a\x00b c" and "a b\x00c" is 2 bigrams over 4 tokens (Li et al. 2016),
// not 1.
func TestNgramKeysCollisionFree(t *testing.T) {
	if got := corpusBLEU(TokNon, SmoothExp, 0, []string{"a\x00b c d e"}, [][]string{{"a b c d e"}}); math.Abs(got-46.30777161991026) > 1e-9 {
		t.Errorf("BLEU %.12f, want 46.30777161991026 (sacrebleu)", got)
	}
	var d DistinctAcc
	d.Add(Tokenize(TokNon, "a\x00b c"))
	d.Add(Tokenize(TokNon, "a b\x00c"))
	if d.Distinct2() != 2 || d.Tokens() != 4 {
		t.Errorf("distinct-2 %d/%d, want 2/4", d.Distinct2(), d.Tokens())
	}
	if ngramKey([]string{"a\x00b"}) == ngramKey([]string{"a", "b"}) || ngramKey([]string{"", "a"}) == ngramKey([]string{"a"}) {
		t.Error("ngramKey collides")
	}
}

// TestLowerAsPython: the metrics lower-case as Python 3.11's str.lower
// (CPython, Unicode 14.0), which the references call. The expected
// strings and figures are what the references print: str.lower itself;
// the SQuAD v1.1 evaluation script's exact_match_score and f1_score
// (allenai/bi-att-flow squad/evaluate-v1.1.py); MLQA's
// mlqa_evaluation_v1.py with lang "zh"; rouge-score's
// RougeScorer(["rouge1", "rouge2", "rougeL"]).score(target, prediction)
// fmeasure. Go's simple mapping lowered İ to a bare i (EM, F1 and ROUGE 1
// for "İstanbul" against "istanbul") and never produced final sigma (EM 0
// for "ΟΔΟΣ" against "οδος").
func TestLowerAsPython(t *testing.T) {
	for in, want := range map[string]string{
		"İstanbul":       "i\u0307stanbul",
		"ΟΔΟΣ":           "οδος",
		"ὈΔΟΣ ΟΔΟΣ.":     "ὀδος οδος.",
		"ΣΑΣ":            "σας",
		"Σ":              "σ",    // no cased letter before: not final
		"ΑΣ'Α":           "ασ'α", // ' is case-ignorable, a cased letter follows
		"ΑΣ'":            "ας'",  // only case-ignorable after
		"ΑΣ\u0301 ΒΣ1":   "ας\u0301 βς1",
		"\u02b0Σ":        "\u02b0σ", // ʰ (Lm) is case-ignorable: nothing cased before
		"Σ北京ΑΣ":          "σ北京ας",
		"HELLO 北京 WORLD": "hello 北京 world",
		"ẞ Ǆ":            "ß ǆ",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, Python's str.lower %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		norm        AnswerNorm
		pred, gold  string
		em, f1      float64
		r1, r2, rlF float64 // rouge-score (NormSQuAD rows only)
	}{
		{NormSQuAD, "İstanbul", "istanbul", 0, 0, 0, 0, 0},
		{NormSQuAD, "ΟΔΟΣ", "οδος", 1, 1, 0, 0, 0},
		{NormSQuAD, "ΣΑΣ", "σας", 1, 1, 0, 0, 0},
		{NormSQuAD, "The İzmir ΚΑΙ ΟΔΟΣ", "izmir και οδος", 0, 0.6666666666666666, 0, 0, 0},
		{NormSQuAD, "İstanbul is big", "istanbul is big", 0, 0.6666666666666666, 0.5714285714285715, 0.4, 0.5714285714285715},
		{NormMLQA, "ΟΔΟΣ 北京", "οδος 北京", 1, 1, -1, -1, -1},
		{NormMLQA, "İstanbul 北京", "istanbul 北京", 0, 0.6666666666666666, -1, -1, -1},
	} {
		if got := ExactMatch(tc.norm, tc.pred, []string{tc.gold}); got != tc.em {
			t.Errorf("EM %q %q: %v, want %v", tc.pred, tc.gold, got, tc.em)
		}
		if got := TokenF1(tc.norm, tc.pred, []string{tc.gold}); math.Abs(got-tc.f1) > 1e-12 {
			t.Errorf("F1 %q %q: %v, want %v", tc.pred, tc.gold, got, tc.f1)
		}
		if tc.r1 < 0 {
			continue
		}
		target, pred := RougeTokens(tc.gold), RougeTokens(tc.pred)
		if r1, r2, rl := RougeN(1, target, pred).F, RougeN(2, target, pred).F, RougeL(target, pred).F; math.Abs(r1-tc.r1) > 1e-12 || math.Abs(r2-tc.r2) > 1e-12 || math.Abs(rl-tc.rlF) > 1e-12 {
			t.Errorf("ROUGE %q %q: %v %v %v, rouge-score %v %v %v", tc.pred, tc.gold, r1, r2, rl, tc.r1, tc.r2, tc.rlF)
		}
	}
	// The Chinese ROUGE tokenizer lower-cases the same way: i̇ splits as
	// rouge-score's default tokenizer splits it.
	if got := RougeTokensZh("İstanbul 北京"); !slices.Equal(got, []string{"i", "stanbul", "北", "京"}) {
		t.Errorf("RougeTokensZh: %q", got)
	}
}
