package assert

import (
	"hash/maphash"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/ohler55/ojg/jp"
)

// appendCanon writes the canonical JSON text of a generic value: object
// keys sorted, strings with JSON escapes only where JSON needs them, numbers
// as JSON writes them (200 and 200.0 both "200"). Dimension units compare on
// this text, so it must be identical for equal values.
func appendCanon(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case string:
		return appendJSONString(b, t)
	case int64:
		return strconv.AppendInt(b, t, 10)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return strconv.AppendInt(b, int64(t), 10)
		}
		return strconv.AppendFloat(b, t, 'g', -1, 64)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanon(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendCanon(b, t[k])
		}
		return append(b, '}')
	}
	return append(b, strconv.Quote(canonFallback(v))...)
}

func canonFallback(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return "?"
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func canon(v any) string { return string(appendCanon(nil, v)) }

var pathSeed = maphash.MakeSeed()

// pathHash identifies a normalised path without building its text.
func pathHash(p jp.Expr) uint64 {
	var h maphash.Hash
	h.SetSeed(pathSeed)
	for _, f := range p {
		switch t := f.(type) {
		case jp.Child:
			h.WriteByte('.')
			h.WriteString(string(t))
		case jp.Nth:
			h.WriteByte('[')
			var buf [20]byte
			h.Write(strconv.AppendInt(buf[:0], int64(t), 10))
		default:
			h.WriteByte('$')
		}
	}
	return h.Sum64()
}
