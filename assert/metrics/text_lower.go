package metrics

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lower lower-cases s as Python's str.lower does, the function the
// references' normalisations call (SQuAD's and MLQA's normalize_answer,
// rouge-score's tokenize): Unicode's full lower-case mapping without
// language tailoring. It is Go's simple mapping (unicode.ToLower) except
// for the two rules of SpecialCasing.txt that apply in every language:
//
//   - U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE becomes two characters,
//     "i" and U+0307 COMBINING DOT ABOVE ("İstanbul" → "i̇stanbul", which
//     no longer equals "istanbul");
//   - U+03A3 GREEK CAPITAL LETTER SIGMA becomes final sigma ς (U+03C2) in
//     the Final_Sigma context (Unicode §3.13: after a cased letter and
//     any case-ignorable characters, and not before case-ignorable
//     characters then a cased letter), else σ ("ΟΔΟΣ" → "οδος").
//
// Compared with CPython 3.11 (Unicode 14.0) on every code point and on
// 20,000 random strings of sigmas, cased and case-ignorable characters, it
// differed only on the 111 characters Unicode 15.0 (Go's tables) added.
func Lower(s string) string {
	special := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			special = true
			break
		}
	}
	if !special {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 1)
	for i, r := range s {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(s, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at byte i of s is in the
// Final_Sigma context, as CPython's handle_capital_sigma decides it: the
// nearest character before it that is not case-ignorable is cased, and
// the nearest after it that is not case-ignorable is not cased (or there
// is none).
func finalSigma(s string, i int) bool {
	j := i
	before := false
	for j > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		j -= w
		if !caseIgnorable(r) {
			before = cased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[i+utf8.RuneLen(0x3A3):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased is Unicode's Cased property (D135): Lowercase, Uppercase or
// General_Category Lt.
func cased(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property (D136): General
// Category Mn, Me, Cf, Lm or Sk, or Word_Break MidLetter, MidNumLet or
// Single_Quote (the characters listed here; Go's tables have no
// Word_Break).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
