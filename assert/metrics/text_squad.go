package metrics

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

func wordChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// SQuADNormalize is the SQuAD v1.1 evaluation script's normalize_answer:
// lower case (Python's str.lower: Lower), drop string.punctuation, drop
// the articles a, an and the (whole words), collapse white space.
func SQuADNormalize(s string) string {
	s = Lower(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	// re.sub(r'\b(a|an|the)\b', ' ', text): a whole run of word characters
	// that is an article becomes a space.
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !wordChar(r) {
			b.WriteString(s[i : i+w])
			i += w
			continue
		}
		j := i
		for j < len(s) {
			r2, w2 := utf8.DecodeRuneInString(s[j:])
			if !wordChar(r2) {
				break
			}
			j += w2
		}
		if word := s[i:j]; word == "a" || word == "an" || word == "the" {
			b.WriteByte(' ')
		} else {
			b.WriteString(word)
		}
		i = j
	}
	return strings.Join(pyFields(b.String()), " ")
}

// mlqaPunct is the MLQA script's PUNCT: every Unicode P* character and
// string.punctuation.
func mlqaPunct(r rune) bool {
	return unicode.IsPunct(r) || (r < 0x80 && strings.ContainsRune(asciiPunct, r))
}

// MLQATokens are the tokens of the MLQA evaluation script's
// normalize_answer for Chinese ("zh"): lower case (Lower), drop
// punctuation (Unicode P* and string.punctuation), no article removal,
// then mixed segmentation: each character in U+4E00–U+9FA5 is a token,
// other runs split on white space.
func MLQATokens(s string) []string {
	s = strings.Map(func(r rune) rune {
		if mlqaPunct(r) {
			return -1
		}
		return r
	}, Lower(s))
	var out []string
	start := 0
	for i, r := range s {
		if r >= 0x4e00 && r <= 0x9fa5 {
			out = append(out, pyFields(s[start:i])...)
			out = append(out, s[i:i+3]) // U+4E00–U+9FA5 are three bytes
			start = i + 3
		}
	}
	return append(out, pyFields(s[start:])...)
}

// AnswerNorm is one of the two answer normalisations.
type AnswerNorm uint8

// SQuAD's (English) or MLQA's Chinese normalisation.
const (
	NormSQuAD AnswerNorm = iota
	NormMLQA
)

func (n AnswerNorm) tokens(s string) []string {
	if n == NormMLQA {
		return MLQATokens(s)
	}
	return pyFields(SQuADNormalize(s))
}

// ExactMatch is 1 when the prediction equals a gold answer after
// normalisation, else 0 (the maximum over golds; 0 without golds).
func ExactMatch(norm AnswerNorm, pred string, golds []string) float64 {
	p := strings.Join(norm.tokens(pred), " ")
	for _, g := range golds {
		if strings.Join(norm.tokens(g), " ") == p {
			return 1
		}
	}
	return 0
}

// TokenF1 is the scripts' f1_score, the maximum over the gold answers:
// the harmonic mean of precision and recall of the multiset overlap of
// normalised tokens; 0 when nothing overlaps.
func TokenF1(norm AnswerNorm, pred string, golds []string) float64 {
	pt := norm.tokens(pred)
	best := 0.0
	for _, g := range golds {
		if f := overlapF1(pt, norm.tokens(g)); f > best {
			best = f
		}
	}
	return best
}

func overlapF1(pred, gold []string) float64 {
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	p := float64(same) / float64(len(pred))
	r := float64(same) / float64(len(gold))
	return 2 * p * r / (p + r)
}
