package reporters

import (
	"math"
	"slices"
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
	var m leanMemo
	return m.appendLeanCase(b, cr)
}

// leanMemo keeps the JSON of the last template, scene and file a lean case
// had: consecutive listed cases mostly share them (a template's passing
// cases are listed together), and a string compares equal at once when it
// is the same string, so only ids, texts and latencies are escaped per
// case. TestLeanMemoMatchesFresh compares it with a memo made per case.
type leanMemo struct {
	template, file string
	scene          []string
	templateJSON   []byte
	fileJSON       []byte
	sceneJSON      []byte
}

// appendLeanCase is appendLeanCase with m's memo.
func (m *leanMemo) appendLeanCase(b []byte, cr *schema.CaseReport) []byte {
	const in = "\n      "
	b = append(b, "{"+in+`"id": `...)
	b = jsondoc.AppendString(b, cr.ID)
	b = append(b, ","+in+`"template": `...)
	if m.templateJSON == nil || cr.Template != m.template {
		m.template, m.templateJSON = cr.Template, jsondoc.AppendString(m.templateJSON[:0], cr.Template)
	}
	b = append(b, m.templateJSON...)
	if len(cr.Scene) > 0 {
		if m.sceneJSON == nil || !slices.Equal(cr.Scene, m.scene) {
			m.scene, m.sceneJSON = cr.Scene, appendScene(m.sceneJSON[:0], cr.Scene)
		}
		b = append(b, m.sceneJSON...)
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
		if m.fileJSON == nil || cr.File != m.file {
			m.file, m.fileJSON = cr.File, jsondoc.AppendString(m.fileJSON[:0], cr.File)
		}
		b = append(b, m.fileJSON...)
	}
	if cr.Line != 0 {
		b = append(b, ","+in+`"line": `...)
		b = strconv.AppendInt(b, int64(cr.Line), 10)
	}
	return append(b, "\n    }"...)
}

// appendScene appends a case's "scene" member (comma first).
func appendScene(b []byte, scene []string) []byte {
	const in = "\n      "
	b = append(b, ","+in+`"scene": [`...)
	for i, s := range scene {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, in+"  "...)
		b = jsondoc.AppendString(b, s)
	}
	return append(b, in+"]"...)
}
