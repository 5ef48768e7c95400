package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Placeholder is one {NAME} or {NAME#N} found in a text, with its byte
// offsets in that text.
type Placeholder struct {
	Key      string
	Material string
	Draw     int
	Start    int
	End      int
}

// ParsePlaceholders splits text into literal parts and placeholders.
// `{{` and `}}` are literal braces. It reports an unterminated or empty
// placeholder, or a bad #N suffix, as an error naming the byte offset.
func ParsePlaceholders(text string) (lits []string, phs []Placeholder, err error) {
	var b strings.Builder
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '{' && i+1 < len(text) && text[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(text) && text[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(text[i+1:], '}')
			if end < 0 || strings.ContainsAny(text[i+1:i+1+end], "{") {
				return nil, nil, unterminated(text, i)
			}
			key := text[i+1 : i+1+end]
			if j := strings.IndexRune(key, '｝'); j >= 0 {
				return nil, nil, unterminated(text, i)
			}
			p := Placeholder{Key: key, Material: strings.TrimSpace(key), Draw: 1, Start: i, End: i + end + 2}
			if h := strings.LastIndexByte(key, '#'); h >= 0 {
				n, err := strconv.Atoi(key[h+1:])
				if err != nil || n < 1 {
					return nil, nil, fmt.Errorf("placeholder {%s} at byte %d: the part after # must be a draw number such as #2", key, i)
				}
				p.Material, p.Draw = strings.TrimSpace(key[:h]), n
			}
			if p.Material == "" {
				return nil, nil, fmt.Errorf("empty placeholder {} at byte %d: name a materials block inside the braces, or write {{}} for literal braces", i)
			}
			lits = append(lits, b.String())
			b.Reset()
			phs = append(phs, p)
			i = p.End
		case c == '}':
			if j := strings.LastIndex(text[:i], "｛"); j >= 0 && !strings.ContainsAny(text[j:i], "{}") {
				return nil, nil, fmt.Errorf("placeholder %s at byte %d opens with the full-width ｛ (U+FF5B FULLWIDTH LEFT CURLY BRACKET), an input-method slip: type {", text[j:i+1], j)
			}
			return nil, nil, fmt.Errorf("unmatched } at byte %d: write }} for a literal brace", i)
		case strings.HasPrefix(text[i:], "｛"):
			if end := strings.Index(text[i:], "｝"); end > 0 && !strings.ContainsAny(text[i:i+end], "{}") {
				return nil, nil, fmt.Errorf("placeholder %s at byte %d is written with full-width braces ｛｝ (U+FF5B, U+FF5D), an input-method slip: type {%s}", text[i:i+end+len("｝")], i, text[i+len("｛"):i+end])
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	lits = append(lits, b.String())
	return lits, phs, nil
}

// unterminated is the error of a { at byte i without its closing }; it
// names a full-width ｝ (U+FF5D) that was probably meant.
func unterminated(text string, i int) error {
	rest := text[i+1:]
	if end := strings.IndexByte(rest, '}'); end >= 0 {
		rest = rest[:end]
	}
	if j := strings.IndexRune(rest, '｝'); j >= 0 {
		return fmt.Errorf("placeholder %s at byte %d closes with the full-width ｝ (U+FF5D FULLWIDTH RIGHT CURLY BRACKET), an input-method slip: type }", text[i:i+1+j+len("｝")], i)
	}
	return fmt.Errorf("unterminated placeholder at byte %d: a { needs its closing }, or write {{ for a literal brace", i)
}

// HasPlaceholder reports whether s contains a {slot} placeholder.
func HasPlaceholder(s string) bool {
	_, phs, err := ParsePlaceholders(s)
	return err == nil && len(phs) > 0
}
