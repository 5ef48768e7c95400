package reporters

import (
	"math"
	"strconv"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
)

// A listed case that carries only what the collector keeps of a case with
// nothing to show (most of a large report: a passing case's id, source,
// scene, text, outcome, latency, cached flag and place) is written by
// appendLeanCase, without encoding/json's reflection and second indenting
// pass; any other case goes through encoding/json. The bytes are the same
// (TestLeanCaseMatchesEncodingJSON).

// leanCase reports whether appendLeanCase writes cr: every member it does
// not write is empty, and the latency is a number JSON holds.
// TestLeanCaseChecksEveryOtherField fails when CaseReport gains a member
// this does not check.
func leanCase(cr *schema.CaseReport) bool {
	return cr.Bare() && !math.IsNaN(cr.LatencyMS) && !math.IsInf(cr.LatencyMS, 0)
}

// appendLeanCase appends cr as the JSON encoder of JSON writes a listed
// case (prefix four spaces, indent two), without the trailing newline.
func appendLeanCase(b []byte, cr *schema.CaseReport) []byte {
	const in = "\n      "
	b = append(b, "{"+in+`"id": `...)
	b = jsondoc.AppendString(b, cr.ID)
	b = append(b, ","+in+`"template": `...)
	b = jsondoc.AppendString(b, cr.Template)
	if len(cr.Scene) > 0 {
		b = append(b, ","+in+`"scene": [`...)
		for i, s := range cr.Scene {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in+"  "...)
			b = jsondoc.AppendString(b, s)
		}
		b = append(b, in+"]"...)
	}
	b = append(b, ","+in+`"text": `...)
	b = jsondoc.AppendString(b, cr.Text)
	b = append(b, ","+in+`"outcome": `...)
	b = jsondoc.AppendString(b, cr.Outcome.String())
	b = append(b, ","+in+`"latency_ms": `...)
	b, _ = jsondoc.AppendFloat(b, cr.LatencyMS) // finite: leanCase
	if cr.Cached {
		b = append(b, ","+in+`"cached": true`...)
	}
	if cr.File != "" {
		b = append(b, ","+in+`"file": `...)
		b = jsondoc.AppendString(b, cr.File)
	}
	if cr.Line != 0 {
		b = append(b, ","+in+`"line": `...)
		b = strconv.AppendInt(b, int64(cr.Line), 10)
	}
	return append(b, "\n    }"...)
}
