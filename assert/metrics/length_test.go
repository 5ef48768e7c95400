package metrics

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// YD/T 4394.2-2023 §响应时间 b): "中文等语言以字符为基本单位，英文等语言以单词为计数单位".
func TestInputLength(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \t\n", 0},
		{"订一张明天去北京的机票", 11},
		{"明天北京天气怎么样？", 9},               // full-width punctuation is not counted
		{"你好，世界！", 4},                   // ，！ are punctuation
		{"“北京”在哪里。", 5},                 // curly quotes too
		{"北京\u3000天气", 4},               // ideographic space
		{"Book a flight to Beijing", 5}, // words
		{"Book a flight to Beijing.", 5},
		{"  leading and trailing  ", 3},
		{"hello,world", 2},
		{"don't stop", 2},
		{"it’s fine", 2}, // typographic apostrophe
		{"state-of-the-art model", 2},
		{"a - b", 2}, // a lone hyphen is punctuation
		{"a-- b", 2}, // hyphen not followed by a word rune ends the word
		{"3.14 and 1,000", 3},
		{"end.", 1},
		{"v1.2", 1}, // "." between digits joins
		{"a.b", 2},  // but not between letters
		{"snake_case", 1},
		{"我想听 Jay Chou 的歌", 7},
		{"订3张票", 4},      // 订 3 张 票
		{"2024年10月", 4},  // 2024 年 10 月
		{"play周杰伦的歌", 6}, // play + 5 characters
		{"ＡＢＣ全角", 3},     // full-width Latin is one word
		{"こんにちは", 5},     // Hiragana
		{"カタカナ", 4},      // Katakana
		{"안녕하세요", 5},     // Hangul
		{"coffee ☕ time", 3},
		{"👍👍", 1},                 // symbols form words
		{"👨\u200d👩\u200d👧", 1},    // ZWJ sequence stays one word
		{"cafe\u0301 au lait", 3}, // combining acute does not split
		{"你\u200b好", 2},           // zero-width space is ignored
		{"\ufeff北京", 2},           // BOM is ignored
		{"\x00\x01", 0},           // control characters
		{"\xff\xfe", 1},           // invalid UTF-8 decodes to U+FFFD, a symbol
		{"1 + 1 = 2", 5},
	}
	for _, tc := range tests {
		if got := InputLength(tc.text); got != tc.want {
			t.Errorf("InputLength(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestBucket(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{-1, "<=20"}, {0, "<=20"}, {20, "<=20"},
		{21, "21-50"}, {50, "21-50"},
		{51, "51-100"}, {100, "51-100"},
		{101, "101-200"}, {200, "101-200"},
		{201, ">200"}, {1 << 30, ">200"},
	}
	for _, tc := range tests {
		if got := Bucket(tc.n); got != tc.want {
			t.Errorf("Bucket(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// The fast path of InputLength counts U+4E00–U+9FFF as Han without a table
// lookup; it must agree with the Unicode tables for every rune there, and
// the ASCII table with wordRune.
func TestInputLengthFastPaths(t *testing.T) {
	for r := rune(0x4E00); r <= 0x9FFF; r++ {
		if !cjk(r) || ignorable(r) {
			t.Fatalf("U+%04X: cjk %v, ignorable %v", r, cjk(r), ignorable(r))
		}
	}
	for r := range rune(0x80) {
		if asciiWord[r] != wordRune(r) || ignorable(r) || cjk(r) {
			t.Fatalf("%q: table %v, wordRune %v", r, asciiWord[r], wordRune(r))
		}
	}
	// Runes just outside the fast range still go through the tables.
	for _, c := range []struct {
		text string
		want int
	}{{"\u4dff\u4e00", 2}, {"㐀中", 2}, {"\ua000", 1}, {"ꀀ北京", 3}} {
		if got := InputLength(c.text); got != c.want {
			t.Errorf("InputLength(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// InputLength decodes E4–E9 sequences itself; it counts as decoding
// every rune with utf8 does (inputLengthDecoding, the function before that
// fast path), on text built from Chinese, runes at the edges of the fast
// range, Latin, combining marks and cut or invalid UTF-8.
func TestInputLengthDecodesAsUTF8(t *testing.T) {
	pieces := []string{"北京", "查询", "一", "鿿", "\u4dff", "\u4e00", "\ua000", "\xe4", "\xe4\xb8", "\xe9\xbf", "\xe4\x41\x80",
		"\xe5\x80\xc0", "\xe9\xbf\xbf", "a", "book", " ", "'", "-", "3", ".", "é", "e\u0301", "。", "😀", "\xff"}
	rnd := rand.New(rand.NewPCG(27, 12))
	for range 20000 {
		var b strings.Builder
		for range rnd.IntN(10) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := InputLength(s), inputLengthDecoding(s); got != want {
			t.Fatalf("InputLength(%q) = %d, decoding with utf8 %d", s, got, want)
		}
	}
}

// inputLengthDecoding is InputLength decoding every non-ASCII rune with
// utf8.DecodeRuneInString.
func inputLengthDecoding(text string) int {
	n := 0
	inWord := false
	var prev rune
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
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

// The examples docs/metrics.md (Latency) gives for its input-length rule.
func TestInputLengthDocExamples(t *testing.T) {
	for text, want := range map[string]int{
		"订一张明天去北京的机票":              11,
		"Book a flight to Beijing": 5,
		"我想听 Jay Chou 的歌":          7,
		"GPT-4 costs $3.5":         3,
		"e-mail me @ 9:30!":        4,
		"don't state-of-the-art":   2,
		"snake_case 3.14 1,000":    3,
	} {
		if got := InputLength(text); got != want {
			t.Errorf("InputLength(%q) = %d, docs/metrics.md says %d", text, got, want)
		}
	}
}
