package rubric

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
)

// Spec is one rubric block.
type Spec struct {
	Name string
	// Judge names the judge target (a target with a judge block; the
	// loader checks it is one).
	Judge    string
	Criteria string
	// History sends the conversation before the turn to the judge.
	History bool
	// Pass, when set, makes the judge give a 1–5 score and decides from
	// it whether the case passes (score is its one name); PassText is
	// the expression as written.
	Pass      hcl.Expression
	PassText  string
	DeclRange hcl.Range
}

// Scored is true when the rubric asks for a 1–5 score.
func (r *Spec) Scored() bool { return r.Pass != nil }

// Schema is the body schema of a rubric block.
var Schema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "judge", Required: true}, {Name: "criteria", Required: true}, {Name: "history"}, {Name: "pass"}},
}

// BlockType is the block type of rubric blocks, with its label.
var BlockType = hcl.BlockHeaderSchema{Type: "rubric", LabelNames: []string{"name"}}

// Input is what the judge of rubric r is sent about reply, the answer to
// case c, given the conversation before it.
func (r *Spec) Input(c *schema.Case, reply string, history []schema.Message) *schema.JudgeInput {
	in := &schema.JudgeInput{Rubric: r.Name, Criteria: r.Criteria, Question: c.Text, Answer: reply, Scored: r.Scored()}
	if r.History {
		in.History = history
	}
	return in
}

// CheckPass tries rubric r's pass condition on every score the judge can
// give, 1 to 5, with passes (the condition evaluated on a score; r.Pass
// need not be set yet): a score it fails on or that gives no bool is an
// error at subject (the pass attribute's expression), and so is a
// condition no score meets (every judged reply would fail) or every score
// meets (no reply would fail it).
func (r *Spec) CheckPass(subject hcl.Range, passes func(score int) (bool, error)) hcl.Diagnostics {
	errorf := func(summary, detail string, args ...any) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: subject.Ptr()}}
	}
	var passing []string
	for score := 1; score <= 5; score++ {
		ok, err := passes(score)
		if err != nil {
			return errorf("Invalid pass condition", "pass is a condition on the judge's 1–5 score, such as \"score >= 4\"; with score = %d it %s.", score, err)
		}
		if ok {
			passing = append(passing, fmt.Sprint(score))
		}
	}
	switch len(passing) {
	case 0:
		return errorf("Pass condition never met", "The judge scores a reply from 1 to 5, and pass = %q holds for none of them, so every judged reply would fail rubric %q. Pick the lowest score that passes within 1–5, e.g. pass = \"score >= 4\".", r.PassText, r.Name)
	case 5:
		return errorf("Pass condition always met", "The judge scores a reply from 1 to 5, and pass = %q holds for every one of them, so no reply could fail rubric %q (only an unparseable answer would). Pick the lowest score that passes within 2–5, e.g. pass = \"score >= 4\". To gate on the scores' mean instead of each reply, keep such a pass and add a threshold on metrics.rubric[%q].mean_score: a suite's thresholds decide its verdict.", r.PassText, r.Name, r.Name)
	}
	return nil
}
