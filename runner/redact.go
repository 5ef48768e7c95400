package runner

import (
	"bytes"
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

// Redactor removes secrets (sensitive variables' values) from text.
type Redactor struct {
	r     *strings.Replacer
	forms []string // every form of every secret, longest first
}

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
	forms = append(forms, url.QueryEscape(s), url.PathEscape(s), strings.ReplaceAll(forms[1], "/", `\/`))
	return forms
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// NewRedactor builds a redactor for the given secret values and their
// encoded forms; longer forms are replaced first so a secret containing
// another is not leaked in part.
func NewRedactor(secrets []string) *Redactor {
	seen := map[string]bool{}
	var forms []string
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
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return &Redactor{r: strings.NewReplacer(pairs...), forms: forms}
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// JSON redacts a compact, valid JSON document and keeps it valid: secrets
// inside strings (keys included) are replaced there, and a number whose text
// holds a secret becomes the string "[redacted]".
func (r *Redactor) JSON(b []byte) []byte {
	if r == nil || r.r == nil || !r.contains(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(b))
			tok := b[i:j]
			var s string
			if r.contains(tok) && json.Unmarshal(tok, &s) == nil {
				var e bytes.Buffer
				enc := json.NewEncoder(&e)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(r.String(s))
				out = append(out, bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
			} else {
				out = append(out, tok...)
			}
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

func (r *Redactor) contains(b []byte) bool {
	for _, f := range r.forms {
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
