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
	i := skip(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("want a JSON object")
	}
	i = skip(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		ks, ke, err := ScanValue(b, i)
		if err != nil || b[ks] != '"' {
			return ErrSyntax
		}
		key := b[ks+1 : ke-1]
		if !PlainString(key) {
			k, err := Unquote(b[ks:ke])
			if err != nil {
				return err
			}
			key = []byte(k)
		}
		i = skip(b, ke)
		if i >= len(b) || b[i] != ':' {
			return ErrSyntax
		}
		vs, ve, err := ScanValue(b, i+1)
		if err != nil {
			return err
		}
		if err := fn(key, b[vs:ve]); err != nil {
			if err == ErrStop {
				return err // a search that ended, not a failure
			}
			return fmt.Errorf("%s: %w", key, err)
		}
		i = skip(b, ve)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		return ErrSyntax
	}
	return ErrSyntax
}

// PlainString reports whether a string body is its own text: no quote, no
// escapes, no control characters, valid UTF-8.
func PlainString(inner []byte) bool {
	for _, c := range inner {
		if !plain[c] {
			return false
		}
	}
	return utf8.Valid(inner)
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
