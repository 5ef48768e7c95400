package metrics

import (
	"strings"
	"unicode"
)

// Tokenizer names sacrebleu's tokenizers that BLEU and distinct-n use.
type Tokenizer string

// The tokenizers of sacrebleu that nlutest implements.
const (
	Tok13a Tokenizer = "13a"  // mteval-v13a, sacrebleu's default
	TokZh  Tokenizer = "zh"   // Chinese characters one by one, the rest as 13a's regexps
	TokChr Tokenizer = "char" // every character that is not white space
	TokNon Tokenizer = "none" // split on white space
)

// Tokenizers lists the tokenizer names a suite may set.
var Tokenizers = []Tokenizer{Tok13a, TokZh, TokChr, TokNon}

// Tokenize splits s as sacrebleu's BLEU does (the segment right-stripped,
// tokenized, then split on white space).
func Tokenize(tok Tokenizer, s string) []string {
	s = strings.TrimRightFunc(s, pySpace)
	switch tok {
	case TokZh:
		return pyFields(tokenizeRe(zhSeparate(strings.TrimFunc(s, pySpace))))
	case TokChr:
		var out []string
		for i, r := range s {
			if !pySpace(r) {
				out = append(out, s[i:i+len(string(r))])
			}
		}
		return out
	case TokNon:
		return pyFields(s)
	}
	return pyFields(tokenize13a(s))
}

// pySpace is Python's str.isspace: Go's white space and the four
// information separators U+001C–U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pyFields is Python's str.split().
func pyFields(s string) []string { return strings.FieldsFunc(s, pySpace) }

var entityReplacer = []string{"&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">"}

// tokenize13a is sacrebleu's Tokenizer13a (tokenizers/tokenizer_13a.py).
func tokenize13a(line string) string {
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.Contains(line, "&") {
		// one after the other, as sacrebleu does ("&amp;lt;" becomes "<")
		for i := 0; i < len(entityReplacer); i += 2 {
			line = strings.ReplaceAll(line, entityReplacer[i], entityReplacer[i+1])
		}
	}
	return tokenizeRe(" " + line + " ")
}

// reSpaced reports the characters of sacrebleu's first regexp
// `([\{-\~\[-\` -\&\(-\+\:-\@\/])`: ASCII punctuation but ' , - and .
// (and the space).
func reSpaced(c byte) bool {
	return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
		(c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/'
}

func digit(c byte) bool      { return c >= '0' && c <= '9' }
func dotOrComma(c byte) bool { return c == '.' || c == ',' }

// tokenizeRe is sacrebleu's TokenizerRegexp (tokenizers/tokenizer_re.py):
// four regexp substitutions, each applied left to right without overlaps,
// as Python's re.sub. Working on bytes gives the same text: every pattern
// is ASCII and a non-ASCII character's bytes only ever match [^0-9].
func tokenizeRe(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ { // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '
		if reSpaced(s[i]) {
			b.WriteByte(' ')
			b.WriteByte(s[i])
			b.WriteByte(' ')
		} else {
			b.WriteByte(s[i])
		}
	}
	s = b.String()
	b.Reset()
	for i := 0; i < len(s); i++ { // ([^0-9])([\.,]) -> '\1 \2 '
		if i+1 < len(s) && !digit(s[i]) && dotOrComma(s[i+1]) {
			b.WriteByte(s[i])
			b.WriteByte(' ')
			b.WriteByte(s[i+1])
			b.WriteByte(' ')
			i++
		} else {
			b.WriteByte(s[i])
		}
	}
	s = b.String()
	b.Reset()
	for i := 0; i < len(s); i++ { // ([\.,])([^0-9]) -> ' \1 \2'
		if i+1 < len(s) && dotOrComma(s[i]) && !digit(s[i+1]) {
			b.WriteByte(' ')
			b.WriteByte(s[i])
			b.WriteByte(' ')
			b.WriteByte(s[i+1])
			i++
		} else {
			b.WriteByte(s[i])
		}
	}
	s = b.String()
	b.Reset()
	for i := 0; i < len(s); i++ { // ([0-9])(-) -> '\1 \2 '
		if i+1 < len(s) && digit(s[i]) && s[i+1] == '-' {
			b.WriteByte(s[i])
			b.WriteString(" - ")
			i++
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// zhRanges are the ranges of sacrebleu's TokenizerZh._is_chinese_char, as
// Python evaluates them: the source writes the supplementary-plane bounds
// as '\u20000' and '\u2f800' — two-character strings — so a single
// character is "in" them when it lies in U+2001–U+2A6D or U+2F81–U+2FA1
// (general punctuation such as “ ” ’ included), and Extension B characters
// are not separated. nlutest reproduces the scores, so it keeps the quirk.
var zhRanges = [][2]rune{
	{0x3400, 0x4db5}, {0x4e00, 0x9fa5}, {0x9fa6, 0x9fbb}, {0xf900, 0xfa2d}, {0xfa30, 0xfa6a},
	{0xfa70, 0xfad9}, {0x2001, 0x2a6d}, {0x2f81, 0x2fa1}, {0xff00, 0xffef}, {0x2e80, 0x2eff},
	{0x3000, 0x303f}, {0x31c0, 0x31ef}, {0x2f00, 0x2fdf}, {0x2ff0, 0x2fff}, {0x3100, 0x312f},
	{0x31a0, 0x31bf}, {0xfe10, 0xfe1f}, {0xfe30, 0xfe4f}, {0x2600, 0x26ff}, {0x2700, 0x27bf},
	{0x3200, 0x32ff}, {0x3300, 0x33ff},
}

func zhChar(r rune) bool {
	if r < 0x2001 {
		return false
	}
	for _, rg := range zhRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// zhSeparate puts spaces around every character TokenizerZh counts as
// Chinese.
func zhSeparate(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for _, r := range s {
		if zhChar(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// HasCJK reports whether s holds a CJK ideograph (U+3400–U+9FFF, U+F900–
// U+FAFF or the supplementary ideographic planes): the text metrics then
// tokenise it as Chinese.
func HasCJK(s string) bool {
	for _, r := range s {
		if (r >= 0x3400 && r <= 0x9fff) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0x20000 && r <= 0x3ffff) {
			return true
		}
	}
	return false
}
