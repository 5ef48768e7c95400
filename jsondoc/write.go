package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// This file writes JSON as encoding/json does with HTML escaping off (field
// order aside: records order their own members), byte for byte, without
// reflection: the record encoders of package schema and the canonical text
// dimension metrics and statistics compare values by.

// CanonicalJSON is the JSON text of a generic value exactly as
// encoding/json writes it (object keys sorted, no HTML escaping, numbers in
// their shortest form, so 200 and 200.0 are both "200"). Dimension metrics
// and statistics compare and count values by this text.
func CanonicalJSON(v any) string {
	return string(AppendCanonical(nil, v))
}

// AppendCanonical appends CanonicalJSON(v) to b.
func AppendCanonical(b []byte, v any) []byte {
	out, err := AppendValue(b, v)
	if err != nil {
		return append(b, fmt.Sprint(v)...)
	}
	return out
}

// AppendValue writes a generic JSON value (nil, bool, int64, float64,
// string, []any, map[string]any); any other type goes through
// encoding/json, so the output never differs from it.
func AppendValue(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendString(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case float64:
		return AppendFloat(b, t)
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendValue(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if t == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = AppendValue(b, t[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	enc, err := MarshalNoEscape(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// AppendFloat formats f as encoding/json does: like ES6, the shortest
// representation, exponent form below 1e-6 and from 1e21, and an error for
// NaN and infinities.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// Word-at-a-time byte tests (Bit Twiddling Hacks): the high bit of a byte
// of the result is set when that byte is zero, or less than n; a borrow can
// only set a higher byte's bit when a lower byte matched too, so "any byte"
// is exact.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func hasZero(w uint64) uint64           { return (w - lsb) &^ w }
func hasLess(w uint64, n uint64) uint64 { return (w - lsb*n) &^ w }

// safeASCII marks the ASCII bytes a JSON string holds as is.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString writes s as a JSON string the way encoding/json does
// with HTML escaping off: `"` and `\` escaped, control characters as \b \f
// \n \r \t or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped,
// everything else (Chinese included) as is. Strings that need no escape —
// nearly all — are checked by plainJSON and copied whole.
func AppendString[T ~string | ~[]byte](b []byte, s T) []byte {
	if plainJSON(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendEscaped(b, s)
}

// plainJSON reports whether s is valid UTF-8 that a JSON string holds as
// is. It reads eight ASCII bytes at a time and three-byte sequences (all of
// CJK) inline; anything unusual goes through utf8, and anything doubtful
// answers false, leaving it to appendEscaped.
func plainJSON[T ~string | ~[]byte](s T) bool {
	n := len(s)
	for i := 0; i < n; {
		for i+8 <= n {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if (w|hasLess(w, 0x20)|hasZero(w^(lsb*'"'))|hasZero(w^(lsb*'\\')))&msb != 0 {
				break
			}
			i += 8
		}
		for i+2 < n {
			c := s[i]
			if c < utf8.RuneSelf {
				if !safeASCII[c] {
					return false
				}
				i++
				continue
			}
			// E1–EC and EE–EF take any two continuation bytes (E0 and ED
			// narrow the second); E2 80 A8/A9 is U+2028/U+2029.
			c1, c2 := s[i+1], s[i+2]
			if c < 0xE1 || c > 0xEF || c == 0xED || (c1^0x80)|(c2^0x80) >= 0x40 || (c == 0xE2 && c1 == 0x80 && c2&0xFE == 0xA8) {
				break
			}
			i += 3
		}
		if i >= n {
			return true
		}
		if c := s[i]; c < utf8.RuneSelf {
			if !safeASCII[c] {
				return false
			}
			i++
			continue
		}
		r, size := decodeRune(s, i)
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// decodeRune is utf8.DecodeRune of s[i:] for either form of text.
func decodeRune[T ~string | ~[]byte](s T, i int) (rune, int) {
	switch t := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(t[i:])
	case []byte:
		return utf8.DecodeRune(t[i:])
	}
	return utf8.DecodeRuneInString(string(s[i:]))
}

// appendEscaped is AppendString's general case, byte by byte.
func appendEscaped[T ~string | ~[]byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		if c >= 0xE1 && c <= 0xEF && c != 0xED && i+2 < len(s) {
			// A three-byte sequence other than E0 and ED (whose second byte
			// has a narrower range): both continuation bytes 80–BF.
			c1, c2 := s[i+1], s[i+2]
			if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
				if c == 0xE2 && c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9) {
					// U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
					b = append(b, s[start:i]...)
					b = append(b, '\\', 'u', '2', '0', '2', hexDigits[c2&0xF])
					i += 3
					start = i
					continue
				}
				i += 3
				continue
			}
		}
		r, size := decodeRune(s, i)
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// MarshalNoEscape is encoding/json's Marshal without HTML escaping (so
// "<", ">" and "&" stay as written, as nlutest's records keep them), for
// types AppendValue does not know.
func MarshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
