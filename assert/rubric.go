package assert

import (
	"fmt"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// rubrics reads the verdict of every rubric the case carries from the
// judgement recorded for it (SPEC §14.5), with the suite as it is now: a
// changed pass condition or verdict expression changes the verdicts at
// the next eval, offline. A rubric whose verdict is not pass is a failed
// expectation of the case. A recorded judgement of a rubric the suite no
// longer has is kept, its verdict cleared (metrics.rubric skips it).
func (e *Evaluator) rubrics(r *schema.Result, sc *sourceChecks) {
	var specs []*spec.RubricSpec
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
			v = e.suite.RubricVerdict(rs, spec.RubricInput(rs, &r.Case, reply, nil), j)
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

func containsRubric(specs []*spec.RubricSpec, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}
