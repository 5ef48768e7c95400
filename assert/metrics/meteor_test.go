package metrics

import (
	"bufio"
	"math"
	"os"
	"strings"
	"testing"
)

// PorterStem equals NLTK 3.8's PorterStemmer().stem (mode
// NLTK_EXTENSIONS) on every word of testdata/porter_nltk.tsv: the English
// words of nlutest's docs, the examples of Porter's paper for every rule,
// the words NLTK's extensions exist for (dies, dying, spied, enjoy, fly,
// geology, innings…), words of one to three letters, upper case, and
// non-ASCII words (café, straße, İstanbul, οδος).
func TestPorterStemNLTK(t *testing.T) {
	f, err := os.Open("testdata/porter_nltk.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		word, want, _ := strings.Cut(line, "\t")
		if got := PorterStem(word); got != want {
			t.Errorf("PorterStem(%q) = %q, NLTK gives %q", word, got, want)
		}
		n++
	}
	if n < 2000 {
		t.Fatalf("read %d words from testdata/porter_nltk.tsv, want the whole list", n)
	}
}

// Meteor equals NLTK 3.8's nltk.translate.meteor_score.meteor_score with
// synonyms off (wordnet= an object whose synsets() returns []) and its
// default alpha 0.9, beta 3, gamma 0.5: NLTK's doctest sentence (0.6944),
// random sentences with inflected words and 1–3 references, Chinese
// characters, case, repeated words and the edges (no match, an empty
// side). Python's lower-casing: İstanbul is not istanbul, ΟΔΟΣ is οδος.
func TestMeteorNLTK(t *testing.T) {
	for _, tc := range []struct {
		name string
		refs [][]string
		hyp  []string
		want float64
	}{
		{"nltk doctest", [][]string{{"It", "is", "a", "guide", "to", "action", "that", "ensures", "that", "the", "military", "will", "forever", "heed", "Party", "commands"}}, []string{"It", "is", "a", "guide", "to", "action", "which", "ensures", "that", "the", "military", "always", "obeys", "the", "commands", "of", "the", "party"}, 0.6944444444444445},
		{"random 1", [][]string{{"cats", "pony", "flies", "cats"}}, []string{"pony", "fly", "a", "sit", "a"}, 0.45731707317073167},
		{"random 2", [][]string{{"is", "be", "sat", "mats"}, {"ponies", "happy", "is", "happy"}}, []string{"sit", "dog", "fly", "pony", "cat", "relate"}, 0.11904761904761905},
		{"random 3", [][]string{{"happiness", "happiness", "sat", "quick", "dogs", "happy", "ran", "the", "generalization", "generalization", "mat"}, {"fly", "ponies", "sitting", "pony", "runs", "cat"}}, []string{"is", "happy", "relate", "relate", "generalization", "mat", "running", "flies"}, 0.2388369678089304},
		{"random 4", [][]string{{"flies", "dog", "be", "be", "running", "ponies", "sitting", "on", "quick", "sitting", "pony", "be"}, {"was", "running", "ponies", "runs", "ponies", "a"}}, []string{"is", "dog", "sitting", "mats", "quickly", "sat", "sit", "quick", "fly"}, 0.21367521367521372},
		{"chinese characters", [][]string{{"今", "天", "我", "想", "去", "北", "京", "的", "天", "安", "门", "看", "看"}, {"我", "想", "去", "上", "海"}}, []string{"我", "今", "天", "想", "去", "北", "京", "看", "看", "天", "安", "门"}, 0.8965869939707148},
		{"case and stems", [][]string{{"The", "Cats", "were", "RUNNING"}}, []string{"the", "cat", "is", "running"}, 0.6388888888888888},
		{"no match", [][]string{{"a", "b"}}, []string{"c", "d"}, 0.0},
		{"empty hypothesis", [][]string{{"a", "b"}}, []string{}, 0.0},
		{"empty reference", [][]string{{}}, []string{"a"}, 0.0},
		{"identical", [][]string{{"x", "y", "z"}}, []string{"x", "y", "z"}, 0.9814814814814815},
		{"reversed", [][]string{{"x", "y", "z"}}, []string{"z", "y", "x"}, 0.5},
		{"repeated words", [][]string{{"a", "a", "b", "a"}}, []string{"a", "b", "a", "a", "a"}, 0.7698170731707317},
		{"turkish and greek lower", [][]string{{"istanbul", "οδος"}}, []string{"İstanbul", "ΟΔΟΣ"}, 0.25},
		{"no references", nil, []string{"a"}, 0},
	} {
		got := Meteor(tc.hyp, tc.refs)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: METEOR %.10f, NLTK gives %.10f", tc.name, got, tc.want)
		}
	}
}
