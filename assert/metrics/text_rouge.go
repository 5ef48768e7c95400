package metrics

import (
	"strings"
	"unicode"
)

// RougeTokens is rouge-score's default tokenizer (tokenize.tokenize
// without stemming): lower case (Lower), every character outside [a-z0-9] a
// separator. It yields no tokens for Chinese; RougeTokensZh is the
// character tokenizer nlutest uses for it.
func RougeTokens(s string) []string {
	return strings.FieldsFunc(Lower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z') && !(r >= '0' && r <= '9')
	})
}

// RougeTokensZh tokenizes Chinese for ROUGE: lower case (Lower), every CJK
// character a token, runs of other letters and digits a token,
// punctuation and white space dropped.
func RougeTokensZh(s string) []string {
	var out []string
	s = Lower(s)
	start := -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case HasCJK(string(r)):
			flush(i)
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}

// RougeScore is precision, recall and F measure.
type RougeScore struct{ P, R, F float64 }

func fmeasure(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// RougeN is rouge-score's ROUGE-N of a prediction against a target
// (_score_ngrams): clipped n-gram overlap over the prediction's and the
// target's n-gram counts (each at least 1).
func RougeN(n int, target, pred []string) RougeScore {
	tc := map[string]int{}
	for i := 0; i+n <= len(target); i++ {
		tc[ngramKey(target[i:i+n])]++
	}
	pc := map[string]int{}
	for i := 0; i+n <= len(pred); i++ {
		pc[ngramKey(pred[i:i+n])]++
	}
	inter, tn, pn := 0, 0, 0
	for k, c := range tc {
		inter += min(c, pc[k])
		tn += c
	}
	for _, c := range pc {
		pn += c
	}
	p := float64(inter) / float64(max(pn, 1))
	r := float64(inter) / float64(max(tn, 1))
	return RougeScore{p, r, fmeasure(p, r)}
}

// RougeL is rouge-score's ROUGE-L (_score_lcs): the longest common
// subsequence of the whole token sequences; all 0 when either is empty.
func RougeL(target, pred []string) RougeScore {
	if len(target) == 0 || len(pred) == 0 {
		return RougeScore{}
	}
	prev := make([]int, len(pred)+1)
	cur := make([]int, len(pred)+1)
	for i := 1; i <= len(target); i++ {
		for j := 1; j <= len(pred); j++ {
			if target[i-1] == pred[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	lcs := prev[len(pred)]
	p := float64(lcs) / float64(len(pred))
	r := float64(lcs) / float64(len(target))
	return RougeScore{p, r, fmeasure(p, r)}
}

// DistinctAcc counts distinct-1 and distinct-2 as Li et al. 2016 define
// them ("A Diversity-Promoting Objective Function for Neural Conversation
// Models"): the number of distinct unigrams (bigrams) over all replies
// divided by the total number of reply tokens, case-sensitive. Memory
// grows with the distinct n-grams seen.
type DistinctAcc struct {
	tokens int
	uni    map[string]struct{}
	bi     map[string]struct{}
}

// Add counts one reply's tokens.
func (d *DistinctAcc) Add(toks []string) {
	if d.uni == nil {
		d.uni, d.bi = map[string]struct{}{}, map[string]struct{}{}
	}
	d.tokens += len(toks)
	for i, t := range toks {
		if _, ok := d.uni[t]; !ok {
			d.uni[t] = struct{}{}
		}
		if i > 0 {
			k := ngramKey(toks[i-1 : i+1])
			if _, ok := d.bi[k]; !ok {
				d.bi[k] = struct{}{}
			}
		}
	}
}

// Merge adds o's replies.
func (d *DistinctAcc) Merge(o *DistinctAcc) {
	if o.uni == nil {
		return
	}
	if d.uni == nil {
		d.uni, d.bi = map[string]struct{}{}, map[string]struct{}{}
	}
	d.tokens += o.tokens
	for k := range o.uni {
		d.uni[k] = struct{}{}
	}
	for k := range o.bi {
		d.bi[k] = struct{}{}
	}
}

// Tokens is the number of reply tokens counted; Distinct1 and Distinct2
// the distinct unigrams and bigrams.
func (d *DistinctAcc) Tokens() int    { return d.tokens }
func (d *DistinctAcc) Distinct1() int { return len(d.uni) }
func (d *DistinctAcc) Distinct2() int { return len(d.bi) }
