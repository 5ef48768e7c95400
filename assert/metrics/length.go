package metrics

import (
	"unicode"
	"unicode/utf8"
)

// InputLength returns the length of an input the way YD/T 4394.2-2023 measures it
// for response-time buckets: "Chinese and similar languages count
// characters, English and similar languages count words". Mixed text adds
// both. The rule, applied rune by rune:
//
//   - Each rune of the Han, Hiragana, Katakana or Hangul scripts counts 1
//     (北京天气 = 4).
//   - Each maximal run of other word runes counts 1 (a word). Word runes are
//     everything that is not white space (including U+3000), punctuation
//     (ASCII or full width: 。，！？、“” …), a control character or one of
//     the runes above; letters, digits, symbols and emoji are word runes, and
//     so is connector punctuation such as "_" (snake_case is one word).
//   - Inside a word, an apostrophe (' or ’) or a hyphen (-, U+2010, U+2011)
//     followed by a word rune does not end the word (don't,
//     state-of-the-art), nor does "." or "," between two digits (3.14,
//     1,000).
//   - Combining marks (Mn, Mc, Me) and format characters (Cf: zero-width
//     joiner, zero-width space, BOM) are ignored: they neither count nor
//     split a word, so é written as e + U+0301 and emoji joined by ZWJ stay
//     one word.
//
// So "订一张明天去北京的机票" is 11, "Book a flight to Beijing" is 5, and
// "我想听 Jay Chou 的歌" is 3 + 2 + 2 = 7.
func InputLength(text string) int {
	n := 0
	inWord := false
	var prev rune // last word rune of the current word
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		switch {
		case r < utf8.RuneSelf:
			// ASCII, by table: no ASCII rune is ignorable or CJK.
			if asciiWord[r] {
				if !inWord {
					n++
					inWord = true
				}
				prev = r
				i++
				continue
			}
		case r >= 0xE4 && r <= 0xE9:
			// U+4000–U+9FFF: the CJK Unified Ideographs block (Han) from
			// U+4E00, the common case, is counted without a table lookup,
			// and decoded here: E4–E9 and two continuation bytes are
			// always a valid rune (neither overlong nor a surrogate).
			if i+2 < len(text) && text[i+1]&0xC0 == 0x80 && text[i+2]&0xC0 == 0x80 {
				r, size = (r&0x0F)<<12|rune(text[i+1]&0x3F)<<6|rune(text[i+2]&0x3F), 3
			} else {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			if r >= 0x4E00 && r <= 0x9FFF {
				n++
				inWord = false
				i += size
				continue
			}
		default:
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		switch {
		case ignorable(r):
			continue
		case cjk(r):
			n++
			inWord = false
		case wordRune(r):
			if !inWord {
				n++
				inWord = true
			}
			prev = r
		default:
			if inWord && joins(prev, r, text[i:]) {
				continue
			}
			inWord = false
		}
	}
	return n
}

// asciiWord marks the ASCII word runes.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = wordRune(r)
	}
	return t
}()

// cjk reports whether r is counted as one character.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// ignorable reports whether r is a combining mark or a format character.
func ignorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me, unicode.Cf)
}

// wordRune reports whether r belongs to a word (see InputLength).
func wordRune(r rune) bool {
	if unicode.Is(unicode.Pc, r) {
		return true
	}
	return !unicode.IsSpace(r) && !unicode.IsPunct(r) && !unicode.IsControl(r) && !cjk(r)
}

// joins reports whether the punctuation r, met inside a word whose last
// word rune is prev and followed by rest, keeps the word going.
func joins(prev, r rune, rest string) bool {
	next, _ := utf8.DecodeRuneInString(rest)
	if rest == "" {
		return false
	}
	switch r {
	case '\'', '\u2019', '-', '\u2010', '\u2011':
		return wordRune(next) && !ignorable(next)
	case '.', ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}
