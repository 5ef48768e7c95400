package spec

import (
	"strings"
	"unicode"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/zclconf/go-cty/cty"
)

// This file is the public API the memory kind (sources/memory) reads its
// blocks and builds its scripts with, and the records of the memory test
// (SPEC §13) other stages share with it: KindMemory (assert's memory
// family and paired figures find memory sources by it) and Fold (a
// scenario folds its phrases as the contains judge folds answers).

// KindMemory is the source kind of memory blocks.
const KindMemory = "memory"

// ScriptTurner is a Source whose scripts differ in length (a memory
// block: one script per distance). Suite.ScriptTurns asks it for the
// length of a recorded turn's script, which the source's Info().Turns
// cannot give; a resumed run checks recorded scripts against it.
type ScriptTurner interface {
	Source
	// ScriptTurns is the number of turns of the script the recorded
	// turn c belongs to.
	ScriptTurns(c *schema.Case) int
}

// TypeName names a value's type in a diagnostic's detail ("a string", "a
// number", "a list" …).
func TypeName(ty cty.Type) string { return typeName(ty) }

// Fold is the normalised form the memory kind's contains judge compares:
// lower case, full-width ASCII forms as ASCII, white space removed.
func Fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		if unicode.IsSpace(r) || r == 0x3000 {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// JudgeText is the text judge target t's judgement j is read from: the
// value of its judge block's verdict expression over response, reply and
// judge (in, what the judge was sent), or the reply when it has none. An
// error says why the expression gave no text (the response is not JSON,
// a member is missing, the value is not a string). rubric.ParseNLI and
// rubric.ParseVerdict read the verdict from the text.
func (s *Suite) JudgeText(t *Target, in *schema.JudgeInput, j *schema.Judgement) (string, error) {
	if t.Judge == nil || t.Judge.Verdict == nil {
		return j.Reply, nil
	}
	return s.evalVerdict(t.Judge.Verdict, in, j)
}

// RubricPasses reports whether rubric r's pass condition holds for the
// judge's score (1–5); an error says how the condition failed or gave
// something other than true or false. The load tries every score, so a
// loaded suite's condition gives a bool for each.
func (s *Suite) RubricPasses(r *rubric.Spec, score int) (bool, error) {
	return s.rubricPasses(r.Pass, score)
}
