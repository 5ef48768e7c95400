// Package redact owns the removal of secrets (the values of sensitive
// variables) from text nlutest records or prints: recorded requests and
// responses, error messages, diagnostics and reports. A Redactor knows every
// form a secret takes on the way out — raw, JSON escaped (with and without
// HTML escaping, ASCII-only, with escaped slashes), URL encoded (query, path
// and userinfo), and inside base64 (an Authorization: Basic header built
// from a URL's user:password) — and looks under up to MaxLayers layers of
// \u, JSON and %XX escaping in any text, so a service that escapes "+" as
// \u002B, escapes every character, or answers JSON inside a JSON string does
// not slip a secret past it. Each secret is also searched in the forms a
// service that decodes it once makes of it: its query decoding ("+" read
// as a space) and its %-decoding (a value stored already encoded).
// docs/security.md lists the forms searched, and those that are not.
//
// What counts as a secret, and which values are too short to redact, is the
// spec package's rule (docs/security.md); MinLen is that length.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Redacted replaces secrets wherever they would be recorded.
const Redacted = "[redacted]"

// sensitiveHeaders are always redacted, whatever their value.
var sensitiveHeaders = map[string]bool{
	"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
	"X-Api-Key": true, "Api-Key": true, "X-Auth-Token": true,
}

// Redactor removes secrets from text. The zero value and nil redact
// nothing.
type Redactor struct {
	// m finds every textual form of every secret, and for each of the
	// three alignments a secret can have inside a longer base64 value (as
	// in base64("user:" + secret)), in the standard and URL alphabets, the
	// base64 characters that depend only on the secret's bytes; a base64
	// match redacts the whole base64 run around it.
	m *matcher
}

// MinLen is the fewest characters a value the redactor searches may have:
// text shorter than that is everywhere (spec refuses sensitive values that
// short, and a decoded form of a secret that short is not searched).
const MinLen = 3

// minBase64 is the shortest base64 run searched for: shorter ones would
// match ordinary text.
const minBase64 = 4

// secretForms returns s as it can appear in recorded text: raw, escaped
// inside a JSON string (as encoding/json and jsonencode write it, with and
// without HTML escaping, and ASCII-only as Python's json.dumps writes it)
// and URL encoded.
func secretForms(s string) []string {
	forms := []string{s}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(s)
		forms = append(forms, strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:])
	}
	for _, hex := range []string{`\u%04x`, `\u%04X`} {
		var a strings.Builder
		for _, r := range forms[2] {
			if r < utf8.RuneSelf {
				a.WriteRune(r)
				continue
			}
			if r > 0xFFFF {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&a, hex+hex, r1, r2)
				continue
			}
			fmt.Fprintf(&a, hex, r)
		}
		forms = append(forms, a.String())
	}
	userinfo := strings.TrimPrefix(url.UserPassword("", s).String(), ":")
	forms = append(forms, url.QueryEscape(s), url.PathEscape(s), userinfo, strings.ReplaceAll(forms[1], "/", `\/`))
	// Percent-encoding with lower-case hex, and of non-ASCII bytes only
	// (as a URL's query reads once a client has escaped what it must).
	for _, f := range []string{url.QueryEscape(s), url.PathEscape(s), userinfo} {
		forms = append(forms, lowerHex(f))
	}
	forms = append(forms, escapeNonASCII(s, "%%%02X"), escapeNonASCII(s, "%%%02x"))
	return forms
}

// lowerHex lower-cases the hex digits of s's percent escapes.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if b[j] >= 'A' && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}

// escapeNonASCII percent-encodes the bytes of s from 0x80 up, with format.
func escapeNonASCII(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			fmt.Fprintf(&b, format, s[i])
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// base64Forms returns, for each alignment of s inside a longer value, the
// base64 characters whose six bits all come from s (standard and URL
// alphabets), when there are at least minBase64 of them.
func base64Forms(s string) []string {
	var out []string
	for lead := 0; lead < 3; lead++ {
		buf := make([]byte, lead+len(s))
		copy(buf[lead:], s)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			text := enc.EncodeToString(buf)
			// Character i covers bits [6i, 6i+6); s covers bits
			// [8*lead, 8*(lead+len(s))).
			first := (8*lead + 5) / 6
			last := (8*(lead+len(s)))/6 - 1
			if last-first+1 >= minBase64 {
				out = append(out, text[first:last+1])
			}
		}
	}
	return out
}

// values returns secret s and what a service that decodes it once makes
// of it: its query decoding ("+" a space, %XX decoded: url.QueryUnescape,
// leniently) and its %-decoding (url.PathUnescape, leniently), when they
// differ from s and are at least MinLen characters.
func values(s string) []string {
	out := []string{s}
	for _, plus := range []bool{true, false} {
		d := s
		if plus {
			d = strings.ReplaceAll(s, "+", " ")
		}
		d, _ = unescapePct(d)
		if d != s && utf8.RuneCountInString(d) >= MinLen && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// unescapePct decodes the %XX escapes of s, leaving a % that starts none.
func unescapePct(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, false
	}
	out := make([]byte, 0, len(s))
	changed := false
	for i := 0; i < len(s); {
		if s[i] != '%' {
			out = append(out, s[i])
			i++
			continue
		}
		var next int
		out, next = unit(out, s, i, true)
		changed = changed || next-i > 1
		i = next
	}
	return string(out), changed
}

// New builds a redactor for the given secret values and their encoded
// forms; at any position the longest form is replaced, so a secret
// containing another is not leaked in part. Empty secrets are ignored.
func New(secrets []string) *Redactor {
	seen := map[string]bool{}
	var needles []needle
	add := func(f string, run bool) {
		if f != "" && !seen[f] {
			seen[f] = true
			needles = append(needles, needle{f, run})
		}
	}
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		for _, s := range values(secret) {
			for _, f := range secretForms(s) {
				add(f, false)
			}
			for _, f := range base64Forms(s) {
				add(f, true)
			}
		}
	}
	if len(needles) == 0 {
		return &Redactor{}
	}
	return &Redactor{m: newMatcher(needles)}
}

// Empty reports whether r redacts nothing.
func (r *Redactor) Empty() bool { return r == nil || r.m == nil }

// String redacts s: every form of a secret in s, and every secret under
// up to MaxLayers layers of escaping (the whole escaped text is replaced).
func (r *Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	sp := r.m.spans(s, nil)
	if hasEscape(s) {
		sp = r.escaped(s, sp)
	}
	if len(sp) == 0 {
		return s
	}
	return apply(s, sp)
}

// escaped appends to sp the spans of s that, once up to MaxLayers layers
// of escaping are taken off, hold a secret.
func (r *Redactor) escaped(s string, sp []span) []span {
	views := []string{s}
	for len(views) <= MaxLayers {
		v, ok := unescape(views[len(views)-1], true)
		if !ok {
			break
		}
		views = append(views, v)
		found := r.m.spans(v, nil)
		for k := len(views) - 2; k >= 0 && len(found) > 0; k-- {
			found = mapSpans(views[k], found)
		}
		sp = append(sp, found...)
	}
	return sp
}

// JSON redacts a valid JSON document and keeps it valid: secrets inside
// strings (keys included) are replaced there, comparing the decoded
// string, and under up to MaxLayers more layers of escaping (JSON text
// inside a string), so escapes (\u002B for "+", \/ for "/") do not hide
// them; a number whose text holds a secret becomes the string
// "[redacted]".
func (r *Redactor) JSON(b []byte) []byte {
	if r.Empty() {
		return b
	}
	s := string(b)
	if !hasEscape(s) && !r.m.any(s) {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		var rep string
		switch {
		case c == '"':
			j = stringEnd(s, i)
			rep = r.jsonString(s[i:j])
		case c == '-' || c >= '0' && c <= '9':
			for j < len(s) && strings.IndexByte("+-.0123456789eE", s[j]) >= 0 {
				j++
			}
			if r.m.any(s[i:j]) {
				rep = `"` + Redacted + `"`
			}
		}
		if rep != "" {
			out = append(append(out, s[last:i]...), rep...)
			last = j
		}
		i = j
	}
	if last == 0 {
		return b
	}
	return append(out, s[last:]...)
}

// stringEnd returns the index just past the JSON string starting at s[i].
func stringEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(s))
}

// jsonString returns the string token tok redacted (its decoded value
// redacted, encoded again), or "" when its value holds no secret.
func (r *Redactor) jsonString(tok string) string {
	if len(tok) < 2 || tok[len(tok)-1] != '"' {
		if red := r.String(tok); red != tok {
			return red
		}
		return ""
	}
	s := tok[1 : len(tok)-1]
	if strings.IndexByte(s, '\\') >= 0 {
		s, _ = unescape(s, false)
	}
	red := r.String(s)
	if red == s {
		return ""
	}
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(red)
	return string(bytes.TrimSuffix(e.Bytes(), []byte("\n")))
}

// Headers returns the headers as a flat map with sensitive ones redacted.
func (r *Redactor) Headers(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if sensitiveHeaders[ck] {
			out[ck] = Redacted
			continue
		}
		out[ck] = r.String(strings.Join(v, ", "))
	}
	return out
}
