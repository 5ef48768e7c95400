package jsondoc

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// This file is the tokenizer's record side: readers that find the members
// and elements of a JSON text without building a tape, for records whose
// shape the caller knows (schema reads a million result records this way
// in `nlutest eval`). Strings decode with the tape's unescape.

// ErrSyntax is the error of the tokenizer's readers on text that is not
// JSON where they look.
var ErrSyntax = errors.New("invalid JSON")

// ErrStop, returned by a Members or Elements callback, ends the walk
// early; the walk returns it as is.
var ErrStop = errors.New("stop")

// structural marks the bytes a container scan stops at: quotes and
// brackets. stringStop marks the bytes a string scan stops at.
var structural, stringStop [256]bool

func init() {
	for _, c := range []byte(`"{}[]`) {
		structural[c] = true
	}
	stringStop['"'], stringStop['\\'] = true, true
}

// ScanValue returns the start and end of the JSON value at b[i:] (after
// spaces). It checks structure only as far as finding the end needs (Parse
// validates).
func ScanValue(b []byte, i int) (start, end int, err error) {
	i = skip(b, i)
	if i >= len(b) {
		return 0, 0, ErrSyntax
	}
	start = i
	switch b[i] {
	case '"':
		end, err = scanStringEnd(b, i)
		return start, end, err
	case '{', '[':
		depth := 0
		for i < len(b) {
			for i < len(b) && !structural[b[i]] {
				i++
			}
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"':
				e, err := scanStringEnd(b, i)
				if err != nil {
					return 0, 0, err
				}
				i = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return start, i + 1, nil
				}
			}
			i++
		}
		return 0, 0, ErrSyntax
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return start, i, nil
			}
			i++
		}
		return start, i, nil
	}
}

// scanStringEnd returns the end of the string at b[i], without validating
// it.
func scanStringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		j = skipQuoteFree(b, j)
		for j < len(b) && !stringStop[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		if b[j] == '"' {
			return j + 1, nil
		}
		j++ // the byte after a backslash
	}
	return 0, ErrSyntax
}

// Unquote decodes a JSON string token (with its quotes) as encoding/json
// does: escapes decoded, a lone surrogate or an invalid UTF-8 byte as
// U+FFFD. A string without escapes is copied once.
func Unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", ErrSyntax
	}
	inner := tok[1 : len(tok)-1]
	if PlainString(inner) {
		return string(inner), nil
	}
	if end, _, err := scanString(tok, 0); err != nil || end != len(tok) {
		return "", ErrSyntax
	}
	b := unescape(make([]byte, 0, len(inner)), inner)
	if !utf8.Valid(b) {
		b = validUTF8(b)
	}
	return string(b), nil
}

// validUTF8 replaces each byte of b that is not part of valid UTF-8 by
// U+FFFD, as encoding/json does.
func validUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// Members calls fn for every member of the JSON object in b, with the
// member's key (its text: the raw bytes when the key has no escapes, so
// reading a record allocates no keys) and the raw bytes of its value.
func Members(b []byte, fn func(key []byte, val []byte) error) error {
	i, err := openObject(b)
	for err == nil && i < len(b) {
		var key []byte
		var vs, ve int
		if key, i, err = memberKey(b, i); err != nil {
			return err
		}
		if vs, ve, err = ScanValue(b, i); err != nil {
			return err
		}
		if err := fn(key, b[vs:ve]); err != nil {
			return memberErr(key, err)
		}
		i, err = nextMember(b, ve)
	}
	return err
}

// MembersParsing is Members that reads the value of the member named
// parse, when it is an object or an array, into doc (ParseValue) as it
// finds the value's end, so a reader that parses that value anyway reads
// it once; fn's parsed tells whether doc holds the value. A value
// ParseValue refuses is found as Members finds it (parsed false), so the
// walk accepts exactly the texts Members accepts, with the same values.
func MembersParsing(b []byte, parse string, doc *Doc, fn func(key []byte, val []byte, parsed bool) error) error {
	i, err := openObject(b)
	for err == nil && i < len(b) {
		var key []byte
		var vs, ve int
		if key, i, err = memberKey(b, i); err != nil {
			return err
		}
		parsed := false
		if vs = skip(b, i); vs < len(b) && (b[vs] == '{' || b[vs] == '[') && string(key) == parse {
			n, perr := doc.ParseValue(b[vs:])
			parsed, ve = perr == nil, vs+n
		}
		if !parsed {
			if vs, ve, err = ScanValue(b, i); err != nil {
				return err
			}
		}
		if err := fn(key, b[vs:ve], parsed); err != nil {
			return memberErr(key, err)
		}
		i, err = nextMember(b, ve)
	}
	return err
}

// openObject checks b holds an object and returns where its first member
// starts (len(b) for an empty object: the walk is over).
func openObject(b []byte) (int, error) {
	i := skip(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, fmt.Errorf("want a JSON object")
	}
	i = skip(b, i+1)
	if i < len(b) && b[i] == '}' {
		return len(b), nil
	}
	if i >= len(b) {
		return 0, ErrSyntax
	}
	return i, nil
}

// memberKey reads the key of the member at i and its colon; it returns
// the key's text and where the value starts (before spaces).
func memberKey(b []byte, i int) (key []byte, vi int, err error) {
	if key, ke, ok := plainKey(b, skip(b, i)); ok {
		i = skip(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, 0, ErrSyntax
		}
		return key, i + 1, nil
	}
	return scannedKey(b, i)
}

// scannedKey is memberKey for any key: escapes decoded, errors for what is
// no string or is followed by no colon.
func scannedKey(b []byte, i int) (key []byte, vi int, err error) {
	ks, ke, err := ScanValue(b, i)
	if err != nil || b[ks] != '"' {
		return nil, 0, ErrSyntax
	}
	key = b[ks+1 : ke-1]
	if !PlainString(key) {
		k, err := Unquote(b[ks:ke])
		if err != nil {
			return nil, 0, err
		}
		key = []byte(k)
	}
	i = skip(b, ke)
	if i >= len(b) || b[i] != ':' {
		return nil, 0, ErrSyntax
	}
	return key, i + 1, nil
}

// plainKey reads the string at b[i] in one pass when it is its own text
// (PlainString), as a record's keys are: it returns the text and the end
// of the string. ok is false for anything else (no string at i, escapes,
// invalid UTF-8, no closing quote), which memberKey reads the general way.
func plainKey(b []byte, i int) (key []byte, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	var or byte
	j := i + 1
	for j < len(b) && plain[b[j]] {
		or |= b[j]
		j++
	}
	if j >= len(b) || b[j] != '"' {
		return nil, 0, false
	}
	key = b[i+1 : j]
	if or >= utf8.RuneSelf && !utf8.Valid(key) {
		return nil, 0, false
	}
	return key, j + 1, true
}

// nextMember reads what follows a member's value ending at ve: a comma
// (the next member starts after it) or the closing brace (len(b): the
// walk is over).
func nextMember(b []byte, ve int) (int, error) {
	i := skip(b, ve)
	if i < len(b) && b[i] == ',' {
		i++
		if i >= len(b) {
			return 0, ErrSyntax
		}
		return i, nil
	}
	if i < len(b) && b[i] == '}' {
		return len(b), nil
	}
	return 0, ErrSyntax
}

// memberErr is the error of a member's callback: ErrStop as is (a search
// that ended, not a failure), any other prefixed with the member's key.
func memberErr(key []byte, err error) error {
	if err == ErrStop {
		return err
	}
	return fmt.Errorf("%s: %w", key, err)
}

// PlainString reports whether a string body is its own text: no quote, no
// escapes, no control characters, valid UTF-8.
func PlainString(inner []byte) bool {
	var or byte
	for _, c := range inner {
		if !plain[c] {
			return false
		}
		or |= c
	}
	return or < utf8.RuneSelf || utf8.Valid(inner) // ASCII (a record's keys) is valid
}

// Elements calls fn for every element of the JSON array in b.
func Elements(b []byte, fn func(val []byte) error) error {
	i := skip(b, 0)
	if i >= len(b) || b[i] != '[' {
		return fmt.Errorf("want a JSON array")
	}
	i = skip(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		vs, ve, err := ScanValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[vs:ve]); err != nil {
			return err
		}
		i = skip(b, ve)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return ErrSyntax
	}
	return ErrSyntax
}

// MemberField is one result of MemberFields: the key of a member of the
// outer object and the text of the field's string in its value.
type MemberField struct{ Key, Text []byte }

// MemberFields reads, in one pass, an object whose members are objects
// (a record's slots: {"城市": {"value": "北京", "source": "城市"}, …}):
// it appends to dst the key of each member and the text of each string
// member named field of its value, in order, and reports true. It reads
// only what it can read as Members nested in Members read it —
//
//	Members(b, func(key, v []byte) error {
//		return Members(v, func(k, s []byte) error {
//			if string(k) == field { dst = append(dst, MemberField{key, s[1:len(s)-1]}) }; …
//
// with each field a string whose text is its own (PlainString) — and
// reports false (dst as given) for anything else: escapes, a field that is
// no string, a member that is no object, a scalar of other bytes than
// letters, digits and '+-.' (ScanValue would read a '{' in it as part of
// the scalar, which Members of the outer object counts as a bracket), a
// syntax error, or more than max results. The caller then reads the object
// the general way, which decides what is accepted and what error to give.
func MemberFields(b []byte, field string, dst []MemberField, max int) ([]MemberField, bool) {
	n0 := len(dst)
	i := skip(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst[:n0], false
	}
	if i = skip(b, i+1); i < len(b) && b[i] == '}' {
		return dst, true
	}
	for {
		key, e, ok := plainKey(b, i)
		if !ok {
			return dst[:n0], false
		}
		if i = skip(b, e); i >= len(b) || b[i] != ':' {
			return dst[:n0], false
		}
		if dst, i, ok = objectField(b, skip(b, i+1), key, field, dst); !ok || len(dst)-n0 > max {
			return dst[:n0], false
		}
		switch i = skip(b, i); {
		case i < len(b) && b[i] == '}':
			return dst, true
		case i < len(b) && b[i] == ',':
			i = skip(b, i+1)
		default:
			return dst[:n0], false
		}
	}
}

// objectField is MemberFields reading the object at b[i], the value of
// the member key; it returns dst with its fields and the object's end.
func objectField(b []byte, i int, key []byte, field string, dst []MemberField) ([]MemberField, int, bool) {
	if i >= len(b) || b[i] != '{' {
		return dst, 0, false
	}
	if i = skip(b, i+1); i < len(b) && b[i] == '}' {
		return dst, i + 1, true
	}
	for {
		k, e, ok := plainKey(b, i)
		if !ok {
			return dst, 0, false
		}
		if i = skip(b, e); i >= len(b) || b[i] != ':' {
			return dst, 0, false
		}
		i = skip(b, i+1)
		if string(k) == field {
			var s []byte
			if s, i, ok = plainKey(b, i); !ok {
				return dst, 0, false
			}
			dst = append(dst, MemberField{Key: key, Text: s})
		} else if i, ok = plainScalarOrValue(b, i); !ok {
			return dst, 0, false
		}
		switch i = skip(b, i); {
		case i < len(b) && b[i] == '}':
			return dst, i + 1, true
		case i < len(b) && b[i] == ',':
			i = skip(b, i+1)
		default:
			return dst, 0, false
		}
	}
}

// plainScalarOrValue returns the end of the value at b[i] as ScanValue
// finds it, for a string or container, or a scalar of letters, digits and
// '+-.' only.
func plainScalarOrValue(b []byte, i int) (int, bool) {
	if i < len(b) && (b[i] == '"' || b[i] == '{' || b[i] == '[') {
		_, end, err := ScanValue(b, i)
		return end, err == nil
	}
	j := i
	for j < len(b) && scalarByte[b[j]] {
		j++
	}
	return j, j > i
}

// scalarByte marks the bytes of numbers and of true, false and null.
var scalarByte = func() (t [256]bool) {
	for _, c := range []byte("+-.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] = true
	}
	return t
}()
