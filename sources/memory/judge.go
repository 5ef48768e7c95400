package memory

import (
	"fmt"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/rubric"
)

// judgeVerdict is the verdict judge target t's judgement j gives the
// answer in (SPEC §13): entailed, neutral or contradicted, or unparseable
// with detail saying why (the judge call failed, the verdict expression
// failed, or its value is not a verdict). It reads the judgement with the
// suite as it is now, so a changed verdict expression changes the
// verdicts at the next eval, offline.
func judgeVerdict(s *spec.Suite, t *spec.Target, in *schema.JudgeInput, j *schema.Judgement) (verdict, detail string) {
	if j == nil {
		return schema.Unparseable, fmt.Sprintf("no judgement by %q is recorded for this answer (run the suite again to judge it)", t.Name)
	}
	if j.Error != nil {
		return schema.Unparseable, fmt.Sprintf("judge %q failed: %s: %s", t.Name, j.Error.Type, j.Error.Message)
	}
	text, err := s.JudgeText(t, in, j)
	if err != nil {
		return schema.Unparseable, fmt.Sprintf("judge %q: %v", t.Name, err)
	}
	if v, ok := rubric.ParseNLI(text); ok {
		return v, fmt.Sprintf("judge %q said %q", t.Name, text)
	}
	return schema.Unparseable, fmt.Sprintf("judge %q said %q, which is not a verdict (entailment, neutral or contradiction)", t.Name, clip(text, 200))
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
