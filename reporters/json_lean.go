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
	return cr.Source == "" && cr.SourceKind == "" && cr.Error == nil && len(cr.Failures) == 0 &&
		cr.Request == nil && cr.Response == "" && len(cr.Slots) == 0 && cr.Script == "" &&
		cr.Turn == 0 && cr.Turns == 0 && cr.Conversation == "" && cr.Repeat == 0 &&
		cr.Reply == "" && cr.Event == "" && len(cr.Rubrics) == 0 && cr.Reason == "" && cr.Goal == "" &&
		!math.IsNaN(cr.LatencyMS) && !math.IsInf(cr.LatencyMS, 0)
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
	b = appendJSONFloat(b, cr.LatencyMS)
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

// appendJSONFloat writes a finite float64 as encoding/json does: %f
// between 1e-6 and 1e21, otherwise %e with a one-digit negative exponent
// not zero-padded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
