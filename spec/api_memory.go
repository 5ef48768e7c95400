package spec

import (
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
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

// TurnSep separates the turns' texts in the joined template text a kind
// built on a template generates (a conversation's turns; a memory block's
// facts, questions and expected answers): split a generated case's text
// on it to cut the case into its turns.
const TurnSep = turnSep

// AnyText, as the Text of the Saved given to the Rebuild of a template
// source (NewTemplateSource), makes it check the saved case's id only: a
// kind that cuts the joined case into turns checks its turn's text itself.
const AnyText = anyText

// AppendText appends text, the i-th of the texts joined into t's text
// (TurnSep before every one but the first), to t's parts: its literals,
// and its placeholders as t's slots, a placeholder key seen before
// (index, by key, filled as slots are added) reusing its slot. A bad
// placeholder or one naming no materials block is reported at rng;
// false after a problem.
func (d *Decoder) AppendText(t *Template, i int, text string, rng hcl.Range, index map[string]int) bool {
	cs := &conversationSource{s: d.l.suite, t: t}
	return cs.addTurnText(d.l, &Turn{User: text, UserRange: rng}, i, index)
}

// SlotsUnknown runs f with the checks of placeholders against a block's
// slots turned off: f reads the checks of a block whose text had a
// mistake (its slots are not all known), so only their other mistakes
// are reported.
func (d *Decoder) SlotsUnknown(f func()) {
	d.l.slotsUnknown = true
	defer func() { d.l.slotsUnknown = false }()
	f()
}

// TargetBroken reports whether a target block named name was declared
// with an error already reported: a reference to it is not reported a
// second time.
func (d *Decoder) TargetBroken(name string) bool { return d.l.isBroken("target", name) }

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

// part is texts[i], "" past the end: a turn's text in a joined case cut
// on TurnSep (the scenario kind's; the memory kind has its own copy).
func part(texts []string, i int) string {
	if i < len(texts) {
		return texts[i]
	}
	return ""
}

// JudgeText is the text judge target t's judgement j is read from: the
// value of its judge block's verdict expression over response, reply and
// judge (in, what the judge was sent), or the reply when it has none. An
// error says why the expression gave no text (the response is not JSON,
// a member is missing, the value is not a string). ParseVerdict and
// ParseRubricVerdict read the verdict from the text.
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
func (s *Suite) RubricPasses(r *RubricSpec, score int) (bool, error) {
	return s.rubricPasses(r.Pass, score)
}
