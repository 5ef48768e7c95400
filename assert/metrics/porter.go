package metrics

// PorterStem is NLTK's PorterStemmer().stem(word) in its default mode,
// NLTK_EXTENSIONS (nltk/stem/porter.py, NLTK 3.8): Porter's 1980
// algorithm with Martin Porter's later changes and NLTK's own — a table
// of irregular forms (sky, dying, news…), words of one or two characters
// left alone, "ies"/"ied" of four-letter words kept as "ie" (dies → die),
// Step 1c's y → i only after a consonant that is not the first letter,
// "alli" → "al" tried first and Step 2 run again, "bli" → "ble",
// "fulli" → "ful", "logi" → "log" with the l counted in the stem, and a
// two-letter vc stem counting as *o. It lower-cases first (Python's
// str.lower: Lower) and works on code points, as Python's str does: a letter
// other than a, e, i, o, u and y is a consonant, so a non-Latin word only
// loses suffixes it ends with. METEOR's stem matching uses it.
func PorterStem(word string) string {
	lw := Lower(word)
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	w := []rune(lw)
	if len([]rune(word)) <= 2 {
		return lw
	}
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

// porterIrregular is NLTK_EXTENSIONS' table of irregular forms.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
	"innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning", "howe": "howe", "proceed": "proceed",
	"exceed": "exceed", "succeed": "succeed",
}

func isVowelRune(r rune) bool { return r == 'a' || r == 'e' || r == 'i' || r == 'o' || r == 'u' }

// consonant is _is_consonant: y is a consonant at the start or after a
// vowel.
func consonant(w []rune, i int) bool {
	switch {
	case isVowelRune(w[i]):
		return false
	case w[i] != 'y' || i == 0:
		return true
	}
	return !consonant(w, i-1)
}

// measure is m: the number of vowel-consonant transitions.
func measure(w []rune) int {
	m := 0
	prevVowel := false
	for i := range w {
		c := consonant(w, i)
		if c && prevVowel {
			m++
		}
		prevVowel = !c
	}
	return m
}

func containsVowel(w []rune) bool {
	for i := range w {
		if !consonant(w, i) {
			return true
		}
	}
	return false
}

func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && consonant(w, n-1)
}

// endsCVC is *o, with NLTK's two-letter vc case.
func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && consonant(w, n-3) && !consonant(w, n-2) && consonant(w, n-1) {
		if last := w[n-1]; last != 'w' && last != 'x' && last != 'y' {
			return true
		}
	}
	return n == 2 && !consonant(w, 0) && consonant(w, 1)
}

func hasSuffix(w []rune, s string) bool {
	rs := []rune(s)
	if len(rs) > len(w) {
		return false
	}
	off := len(w) - len(rs)
	for i, r := range rs {
		if w[off+i] != r {
			return false
		}
	}
	return true
}

// cut returns w without its last n runes, as a new slice.
func cut(w []rune, n int) []rune { return append([]rune(nil), w[:len(w)-n]...) }

func join(stem []rune, s string) []rune { return append(append([]rune(nil), stem...), []rune(s)...) }

// porterRule is one suffix rule: replace suffix by repl when cond holds of
// the stem (nil: always). The special suffix "*d" is a double consonant.
type porterRule struct {
	suffix, repl string
	cond         func(stem []rune) bool
}

// applyRules is _apply_rule_list: the first rule whose suffix the word
// ends with decides, whether or not its condition holds.
func applyRules(w []rune, rules []porterRule) []rune {
	for _, r := range rules {
		if r.suffix == "*d" && endsDoubleConsonant(w) {
			stem := cut(w, 2)
			if r.cond == nil || r.cond(stem) {
				return join(stem, r.repl)
			}
			return w
		}
		if hasSuffix(w, r.suffix) {
			stem := cut(w, len([]rune(r.suffix)))
			if r.cond == nil || r.cond(stem) {
				return join(stem, r.repl)
			}
			return w
		}
	}
	return w
}

func positive(stem []rune) bool { return measure(stem) > 0 }

func step1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return join(cut(w, 3), "ie")
	}
	return applyRules(w, []porterRule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func step1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return join(cut(w, 3), "ie")
		}
		return join(cut(w, 3), "i")
	}
	if hasSuffix(w, "eed") {
		if stem := cut(w, 3); measure(stem) > 0 {
			return join(stem, "ee")
		}
		return w
	}
	var mid []rune
	ok := false
	for _, suf := range []string{"ed", "ing"} {
		if hasSuffix(w, suf) {
			mid = cut(w, len(suf))
			if containsVowel(mid) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := mid[len(mid)-1]
	return applyRules(mid, []porterRule{
		{"at", "ate", nil},
		{"bl", "ble", nil},
		{"iz", "ize", nil},
		{"*d", string(last), func([]rune) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(stem []rune) bool { return measure(stem) == 1 && endsCVC(stem) }},
	})
}

func step1c(w []rune) []rune {
	return applyRules(w, []porterRule{{"y", "i", func(stem []rune) bool {
		return len(stem) > 1 && consonant(stem, len(stem)-1)
	}}})
}

var step2Rules = []porterRule{
	{"ational", "ate", positive}, {"tional", "tion", positive}, {"enci", "ence", positive},
	{"anci", "ance", positive}, {"izer", "ize", positive}, {"bli", "ble", positive},
	{"alli", "al", positive}, {"entli", "ent", positive}, {"eli", "e", positive},
	{"ousli", "ous", positive}, {"ization", "ize", positive}, {"ation", "ate", positive},
	{"ator", "ate", positive}, {"alism", "al", positive}, {"iveness", "ive", positive},
	{"fulness", "ful", positive}, {"ousness", "ous", positive}, {"aliti", "al", positive},
	{"iviti", "ive", positive}, {"biliti", "ble", positive}, {"fulli", "ful", positive},
}

func step2(w []rune) []rune {
	if hasSuffix(w, "alli") && positive(cut(w, 4)) {
		return step2(join(cut(w, 4), "al"))
	}
	// "logi" → "log" when the stem with its l has m > 0.
	logi := porterRule{"logi", "log", func([]rune) bool { return positive(cut(w, 3)) }}
	return applyRules(w, append(step2Rules[:len(step2Rules):len(step2Rules)], logi))
}

var step3Rules = []porterRule{
	{"icate", "ic", positive}, {"ative", "", positive}, {"alize", "al", positive},
	{"iciti", "ic", positive}, {"ical", "ic", positive}, {"ful", "", positive}, {"ness", "", positive},
}

func step3(w []rune) []rune { return applyRules(w, step3Rules) }

func gt1(stem []rune) bool { return measure(stem) > 1 }

var step4Rules = []porterRule{
	{"al", "", gt1}, {"ance", "", gt1}, {"ence", "", gt1}, {"er", "", gt1}, {"ic", "", gt1},
	{"able", "", gt1}, {"ible", "", gt1}, {"ant", "", gt1}, {"ement", "", gt1}, {"ment", "", gt1},
	{"ent", "", gt1},
	{"ion", "", func(stem []rune) bool {
		return measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{"ou", "", gt1}, {"ism", "", gt1}, {"ate", "", gt1}, {"iti", "", gt1}, {"ous", "", gt1},
	{"ive", "", gt1}, {"ize", "", gt1},
}

func step4(w []rune) []rune { return applyRules(w, step4Rules) }

func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := cut(w, 1)
		if m := measure(stem); m > 1 || m == 1 && !endsCVC(stem) {
			return stem
		}
	}
	return w
}

func step5b(w []rune) []rune {
	return applyRules(w, []porterRule{{"ll", "l", func([]rune) bool { return measure(cut(w, 1)) > 1 }}})
}
