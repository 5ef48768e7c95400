package runner

import (
	"net/http"
	"sort"
	"strings"
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
	r *strings.Replacer
}

// NewRedactor builds a redactor for the given secret values; longer
// secrets are replaced first so a secret containing another is not leaked
// in part.
func NewRedactor(secrets []string) *Redactor {
	s := append([]string(nil), secrets...)
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	var pairs []string
	for _, x := range s {
		if x != "" {
			pairs = append(pairs, x, Redacted)
		}
	}
	if len(pairs) == 0 {
		return &Redactor{}
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
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
