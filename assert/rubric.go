package assert

import (
	"fmt"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/rubric"
)

// rubrics reads the verdict of every rubric the case carries from the
// judgement recorded for it (SPEC §14.5), with the suite as it is now: a
// changed pass condition or verdict expression changes the verdicts at
// the next eval, offline. A rubric whose verdict is not pass is a failed
// expectation of the case. A recorded judgement of a rubric the suite no
// longer has is kept, its verdict cleared (metrics.rubric skips it).
func (e *Evaluator) rubrics(r *schema.Result, sc *sourceChecks) {
	var specs []*rubric.Spec
	if sc != nil && sc.rubrics != nil {
		specs = sc.rubrics.RubricsFor(&r.Case)
	}
	recorded := r.Rubrics
	out := make([]schema.RubricVerdict, 0, len(specs)+len(recorded))
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	for _, rs := range specs {
		var judged *schema.RubricVerdict
		for i := range recorded {
			if recorded[i].Name == rs.Name {
				judged = &recorded[i]
				break
			}
		}
		var v schema.RubricVerdict
		if strings.TrimSpace(reply) == "" && (judged == nil || judged.Judge == nil) {
			v = schema.RubricVerdict{Name: rs.Name, Verdict: schema.Unanswered, Detail: "the bot gave no reply to judge"}
		} else {
			var j *schema.Judgement
			if judged != nil {
				j = judged.Judge
			}
			v = rubricVerdict(e.suite, rs, rs.Input(&r.Case, reply, nil), j)
		}
		out = append(out, v)
		if v.Verdict != schema.RubricPass {
			r.Failures = append(r.Failures, schema.Failure{Kind: "rubric", Path: rs.Name, Message: fmt.Sprintf("%q %s: %s", rs.Name, v.Verdict, v.Detail),
				File: rs.DeclRange.Filename, Line: rs.DeclRange.Start.Line})
		}
	}
	for _, old := range recorded {
		if !containsRubric(specs, old.Name) {
			old.Verdict, old.Score, old.Detail = "", 0, ""
			out = append(out, old)
		}
	}
	r.Rubrics = out
}

func containsRubric(specs []*rubric.Spec, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}

// rubricVerdict reads rubric r's verdict from the judgement j of the
// reply in, with suite s as it is now: pass or fail (and the score, for a
// rubric with a pass condition), or unparseable with the reason. The
// judge target's verdict expression, when it has one, gives the text
// read (spec.Suite.JudgeText).
func rubricVerdict(s *spec.Suite, r *rubric.Spec, in *schema.JudgeInput, j *schema.Judgement) schema.RubricVerdict {
	out := schema.RubricVerdict{Name: r.Name, Judge: j, Verdict: schema.Unparseable}
	name := r.Judge
	switch {
	case j == nil:
		out.Detail = fmt.Sprintf("no judgement by %q is recorded for this reply (run the suite again to judge it)", name)
		return out
	case j.Error != nil:
		out.Detail = fmt.Sprintf("judge %q failed: %s: %s", name, j.Error.Type, j.Error.Message)
		return out
	}
	t := s.Target(name)
	if t == nil { // the load checks a rubric's judge; a suite without it is another suite
		out.Detail = fmt.Sprintf("the suite has no judge target %q", name)
		return out
	}
	text, err := s.JudgeText(t, in, j)
	if err != nil {
		out.Detail = fmt.Sprintf("judge %q: %v", name, err)
		return out
	}
	if !r.Scored() {
		v, ok := rubric.ParseVerdict(text)
		if !ok {
			out.Detail = fmt.Sprintf("judge %q said %q, which is not a verdict (pass or fail)", name, clipRunes(text, 200))
			return out
		}
		out.Verdict, out.Detail = v, fmt.Sprintf("judge %q said %q", name, text)
		return out
	}
	score, ok := rubric.ParseScore(text)
	if !ok {
		out.Detail = fmt.Sprintf("judge %q said %q, which is not a score (one digit from 1 to 5)", name, clipRunes(text, 200))
		return out
	}
	out.Score = score
	pass, err := s.RubricPasses(r, score)
	if err != nil {
		out.Detail = fmt.Sprintf("pass condition %q %v", r.PassText, err)
		return out
	}
	out.Verdict = schema.RubricFail
	if pass {
		out.Verdict = schema.RubricPass
	}
	out.Detail = fmt.Sprintf("judge %q gave %d (pass = %q)", name, score, r.PassText)
	return out
}

// clipRunes shortens s to at most n runes, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
