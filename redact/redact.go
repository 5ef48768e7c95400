// Package redact owns the removal of secrets (the values of sensitive
// variables) from text nlutest records or prints: recorded requests and
// responses, error messages, diagnostics and reports. A Redactor knows every
// form a secret takes on the way out — raw, JSON escaped (with and without
// HTML escaping, ASCII-only, with escaped slashes), URL encoded (query, path
// and userinfo), and inside base64 (an Authorization: Basic header built
// from a URL's user:password) — and JSON compares decoded string values, so
// a service that escapes "+" as \u002B does not slip a secret past it.
//
// What counts as a secret, and which values are too short to redact, is the
// spec package's rule (docs/security.md).
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
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

// SensitiveHeader reports whether a header (any case) is always redacted.
func SensitiveHeader(name string) bool { return sensitiveHeaders[http.CanonicalHeaderKey(name)] }

// Redactor removes secrets from text. The zero value and nil redact
// nothing.
type Redactor struct {
	r     *strings.Replacer
	forms []string // every textual form of every secret, longest first
	// b64 are the base64 characters that depend only on a secret's bytes,
	// for each of the three alignments a secret can have inside a longer
	// encoded value (as in base64("user:" + secret)), in the standard and
	// URL alphabets; a match redacts the whole base64 run around it.
	b64 []string
}

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

// New builds a redactor for the given secret values and their encoded
// forms; longer forms are replaced first so a secret containing another is
// not leaked in part. Empty secrets are ignored.
func New(secrets []string) *Redactor {
	seen := map[string]bool{}
	var forms, b64 []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range secretForms(s) {
			if f != "" && !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
		for _, f := range base64Forms(s) {
			if !seen[f] {
				seen[f] = true
				b64 = append(b64, f)
			}
		}
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return &Redactor{r: strings.NewReplacer(pairs...), forms: forms, b64: b64}
}

// Empty reports whether r redacts nothing.
func (r *Redactor) Empty() bool { return r == nil || r.r == nil }

// String redacts s.
func (r *Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	s = r.r.Replace(s)
	for _, f := range r.b64 {
		for {
			i := strings.Index(s, f)
			if i < 0 {
				break
			}
			from, to := i, i+len(f)
			for from > 0 && isBase64(s[from-1]) {
				from--
			}
			for to < len(s) && isBase64(s[to]) {
				to++
			}
			s = s[:from] + Redacted + s[to:]
		}
	}
	return s
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

// JSON redacts a compact, valid JSON document and keeps it valid: secrets
// inside strings (keys included) are replaced there, comparing the decoded
// string so escapes (\u002B for "+", \/ for "/") do not hide them, and a
// number whose text holds a secret becomes the string "[redacted]".
func (r *Redactor) JSON(b []byte) []byte {
	if r.Empty() || !r.mayHold(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			j := stringEnd(b, i)
			out = r.jsonString(out, b[i:j])
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(b) && strings.IndexByte("+-.0123456789eE", b[j]) >= 0 {
				j++
			}
			if r.contains(b[i:j]) {
				out = append(out, `"`+Redacted+`"`...)
			} else {
				out = append(out, b[i:j]...)
			}
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(b))
}

// jsonString appends the string token tok, redacted when its decoded value
// holds a secret.
func (r *Redactor) jsonString(out, tok []byte) []byte {
	var s string
	if len(tok) < 2 {
		return append(out, tok...)
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		if !r.contains(tok) {
			return append(out, tok...)
		}
		s = string(tok[1 : len(tok)-1])
	} else if json.Unmarshal(tok, &s) != nil || !r.contains([]byte(s)) {
		return append(out, tok...)
	}
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r.String(s))
	return append(out, bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
}

// mayHold reports whether b might hold a secret: one of its forms, or an
// escape that could hide one.
func (r *Redactor) mayHold(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || r.contains(b)
}

func (r *Redactor) contains(b []byte) bool {
	for _, f := range r.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	for _, f := range r.b64 {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
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
