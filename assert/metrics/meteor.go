package metrics

import (
	"math"
	"slices"
)

// METEOR's parameters, NLTK's defaults (nltk.translate.meteor_score):
// alpha weighs precision against recall in the harmonic mean, beta shapes
// and gamma weighs the fragmentation penalty.
const (
	meteorAlpha = 0.9
	meteorBeta  = 3.0
	meteorGamma = 0.5
)

// Meteor is METEOR (Banerjee & Lavie 2005) of one hypothesis against its
// references, each a list of tokens: the best over the references of
// single-reference METEOR, as NLTK's meteor_score(references, hypothesis)
// with synonym matching off (a WordNet whose synsets() is empty).
//
// Per reference, as nltk/translate/meteor_score.py computes it: tokens
// are lower-cased as Python's str.lower does (Lower); words are aligned
// in two stages, exact then Porter stems (PorterStem, NLTK_EXTENSIONS mode) of the words left,
// each stage taking the hypothesis words from the last and matching each
// with the last unmatched reference word equal to it; m matches give
// P = m / hypothesis words, R = m / reference words,
// Fmean = P·R / (α·P + (1 − α)·R), and with the fewest chunks c of matches
// adjacent in both (in hypothesis order) the penalty γ·(c/m)^β; the score
// is (1 − penalty)·Fmean. No match, or an empty side, scores 0. No
// references score 0.
func Meteor(hyp []string, refs [][]string) float64 {
	best := 0.0
	for _, ref := range refs {
		best = math.Max(best, meteorOne(hyp, ref))
	}
	return best
}

// enumWord is a word with its position in the sentence.
type enumWord struct {
	at   int
	word string
}

type wordMatch struct{ hyp, ref int }

func meteorOne(hypothesis, reference []string) float64 {
	hyp, ref := enumerate(hypothesis), enumerate(reference)
	exact, hyp, ref := matchEnums(hyp, ref)
	for i := range hyp {
		hyp[i].word = PorterStem(hyp[i].word)
	}
	for i := range ref {
		ref[i].word = PorterStem(ref[i].word)
	}
	stemmed, _, _ := matchEnums(hyp, ref)
	// NLTK's third stage, WordNet synonyms, matches a word with itself
	// when it has no synsets: every equal pair left was matched above.
	matches := append(exact, stemmed...)
	m := len(matches)
	if m == 0 || len(hypothesis) == 0 || len(reference) == 0 {
		return 0
	}
	slices.SortFunc(matches, func(a, b wordMatch) int { return a.hyp - b.hyp })
	p := float64(m) / float64(len(hypothesis))
	r := float64(m) / float64(len(reference))
	fmean := p * r / (meteorAlpha*p + (1-meteorAlpha)*r)
	frag := float64(countChunks(matches)) / float64(m)
	return (1 - meteorGamma*math.Pow(frag, meteorBeta)) * fmean
}

func enumerate(words []string) []enumWord {
	out := make([]enumWord, len(words))
	for i, w := range words {
		out[i] = enumWord{i, Lower(w)}
	}
	return out
}

// matchEnums is NLTK's _match_enums: from the last hypothesis word to the
// first, match it with the last remaining reference word equal to it.
// It returns the matches and the words left on each side.
func matchEnums(hyp, ref []enumWord) ([]wordMatch, []enumWord, []enumWord) {
	var out []wordMatch
	for i := len(hyp) - 1; i >= 0; i-- {
		for j := len(ref) - 1; j >= 0; j-- {
			if hyp[i].word == ref[j].word {
				out = append(out, wordMatch{hyp[i].at, ref[j].at})
				hyp = slices.Delete(hyp, i, i+1)
				ref = slices.Delete(ref, j, j+1)
				break
			}
		}
	}
	return out, hyp, ref
}

// countChunks is NLTK's _count_chunks: matches sorted by hypothesis
// position, a new chunk wherever the next match is not adjacent in both.
func countChunks(ms []wordMatch) int {
	chunks := 1
	for i := 0; i+1 < len(ms); i++ {
		if ms[i+1].hyp != ms[i].hyp+1 || ms[i+1].ref != ms[i].ref+1 {
			chunks++
		}
	}
	return chunks
}
