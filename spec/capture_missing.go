package spec

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
)

// A later turn that reads a capture an earlier turn failed to make is not
// run with HCL's "Unsupported attribute" (SPEC §14.2): the request (or
// condition) that could not be evaluated says which capture is missing
// and which turn should have made it.

// MissingCapture explains diags, the errors of evaluating an expression
// of turn c, when they come from reading capture.NAME for a NAME c has
// no value of: `capture "order" is missing (turn 2 selected nothing)`.
// "" when they do not (or c is no conversation turn).
func (s *Suite) MissingCapture(c *schema.Case, diags hcl.Diagnostics) string {
	if c.Turn < 2 || !diags.HasErrors() {
		return ""
	}
	names := map[string]bool{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		for _, name := range s.capturesRead(d) {
			if _, ok := c.Captures[name]; !ok {
				names[name] = true
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	name := sorted[0]
	turns := TurnsOf(s.SourceByKind(c.SourceKind, c.Source))
	for t := min(c.Turn-1, len(turns)); t >= 1; t-- {
		for _, cp := range turns[t-1].Capture {
			if cp.Name == name {
				return fmt.Sprintf("capture %q is missing (turn %d selected nothing)", name, t)
			}
		}
	}
	return fmt.Sprintf("capture %q is missing (no earlier turn captures it: capture = { %s = \"$.path\" } or capture_reply on an earlier turn makes it)", name, name)
}

// unsupportedAttr reads the name out of HCL's "Unsupported attribute"
// detail, for a diagnostic without its expression.
var unsupportedAttr = regexp.MustCompile(`attribute named "([^"]+)"`)

// capturesRead lists the capture names the diagnostic's expression reads
// (capture.NAME), or, for a diagnostic without its expression, the
// attribute it says is unsupported when its subject reads capture.
func (s *Suite) capturesRead(d *hcl.Diagnostic) []string {
	if d.Expression != nil {
		var out []string
		for _, tr := range d.Expression.Variables() {
			if tr.RootName() != "capture" || len(tr) < 2 {
				continue
			}
			if name, ok := stepName(tr[1]); ok {
				out = append(out, name)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if d.Summary == "Unsupported attribute" && d.Subject != nil && s.readsCapture(*d.Subject) {
		if m := unsupportedAttr.FindStringSubmatch(d.Detail); m != nil {
			return []string{m[1]}
		}
	}
	return nil
}

// readsCapture: the source line of rng reads capture.
func (s *Suite) readsCapture(rng hcl.Range) bool {
	src := s.Sources[rng.Filename]
	if src == nil || rng.Start.Byte > len(src) {
		return false
	}
	start, end := rng.Start.Byte, rng.Start.Byte
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	for end < len(src) && src[end] != '\n' {
		end++
	}
	return bytes.Contains(src[start:end], []byte("capture"))
}
