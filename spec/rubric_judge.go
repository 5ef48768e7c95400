package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
)

// This file is the rubric block (SPEC §14.5): criteria a judge target
// judges a case's reply by, on a conversation turn, a template, a dataset
// or a memory block's questions.
//
//	rubric "empathy" {
//	  judge    = "llm-judge"
//	  criteria = "The reply acknowledges the problem and offers a next step."
//	  history  = true          # the judge also sees the conversation so far
//	  pass     = "score >= 4"  # the judge gives a 1–5 score; default pass/fail
//	}
//
// A rubric is an expectation of the case: a verdict other than pass fails
// it. The judge's answer is read strictly (ParseRubricVerdict,
// ParseRubricScore): anything else is unparseable, never guessed. The
// evaluator (assert) reads a recorded judgement's verdict with these,
// Suite.JudgeText and Suite.RubricPasses.

// RubricSpec is one rubric block.
type RubricSpec struct {
	Name string
	// Judge is the judge target (a target with a judge block).
	Judge    *Target
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
func (r *RubricSpec) Scored() bool { return r.Pass != nil }

var rubricSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "judge", Required: true}, {Name: "criteria", Required: true}, {Name: "history"}, {Name: "pass"}},
}

// RubricBlockType is the block type of rubric blocks, with its label.
var RubricBlockType = hcl.BlockHeaderSchema{Type: "rubric", LabelNames: []string{"name"}}

// RubricBlock decodes a rubric block of any source kind; nil when it has
// errors. seen holds the names of the rubrics already on the same case (a
// name appears once per case).
func (d *Decoder) RubricBlock(b *hcl.Block, seen map[string]hcl.Range) *RubricSpec {
	return d.l.decodeRubric(b, seen)
}

func (l *loader) decodeRubric(b *hcl.Block, seen map[string]hcl.Range) *RubricSpec {
	// Every attribute is checked, whatever the others' mistakes (ok false:
	// a missing argument, a mistake below); a rubric with one is nil.
	c, ok := l.content(b.Body, rubricSchema)
	ok = l.checkLabel(b) && ok
	r := &RubricSpec{Name: label(b), DeclRange: b.DefRange}
	if first, dup := seen[r.Name]; dup {
		l.errorf(b.DefRange.Ptr(), "Duplicate rubric", "This case already has a rubric %q (at %s); give each rubric of a case its own name.", r.Name, first)
		ok = false
	} else {
		seen[r.Name] = b.DefRange
	}
	if a, has := c.Attributes["criteria"]; has {
		v, good := l.static(a, cty.String, `"criteria" attribute`)
		if good && !v.IsNull() {
			r.Criteria = strings.TrimSpace(v.AsString())
		}
		if !good {
			ok = false
		} else if r.Criteria == "" {
			l.errorf(a.Expr.Range().Ptr(), "Empty criteria", "A rubric's criteria tell the judge what a good reply does; write them as a sentence, e.g. criteria = \"The reply acknowledges the problem and offers a next step.\"")
			ok = false
		}
	}
	r.History = l.boolean(c.Attributes, "history", false)
	if a, has := c.Attributes["judge"]; has && !l.rubricJudge(r, a) {
		ok = false
	}
	if a, has := c.Attributes["pass"]; has && !l.rubricPass(r, a) {
		ok = false
	}
	if !ok {
		return nil
	}
	return r
}

// rubricJudge resolves judge = "TARGET": a target with a judge block.
func (l *loader) rubricJudge(r *RubricSpec, a *hcl.Attribute) bool {
	name := l.str(hcl.Attributes{"judge": a}, "judge", "")
	if name == "" {
		return false
	}
	var judges []string
	for _, t := range l.suite.Targets {
		if t.Judge != nil {
			judges = append(judges, t.Name)
		}
		if t.Name == name {
			r.Judge = t
		}
	}
	rng := a.Expr.Range().Ptr()
	switch {
	case r.Judge == nil && l.isBroken("target", name):
		return false // the target's own error is reported
	case r.Judge == nil:
		known := "The suite declares no target with a judge block."
		if len(judges) > 0 {
			known = "Targets with a judge block: " + quoteList(judges) + "."
		}
		l.errorf(rng, "Unknown judge", "judge names a target with a judge block; there is no target %q.%s %s", name, didYouMean(name, judges), known)
		return false
	case r.Judge.Judge == nil:
		l.errorf(rng, "Target is not a judge", "Target %q has no judge block, so it cannot judge replies: add judge {} to it (an openai target), or judge { verdict = response.label } (an http target: the expression reads the verdict from its response).", name)
		return false
	}
	return true
}

// rubricPass reads pass: a condition on score, written as a string
// ("score >= 4") or as an expression. It is tried on every score 1–5 at
// load, so a bad one is an error here, not in the middle of a run.
func (l *loader) rubricPass(r *RubricSpec, a *hcl.Attribute) bool {
	expr := a.Expr
	r.PassText = string(a.Expr.Range().SliceBytes(l.fileBytes(a.Expr.Range().Filename)))
	if te, ok := a.Expr.(*hclsyntax.TemplateExpr); ok && te.IsStringLiteral() {
		v, _ := te.Value(nil)
		src := v.AsString()
		parsed, diags := parseStringExpr(te)
		if diags.HasErrors() {
			l.errorf(a.Expr.Range().Ptr(), "Invalid pass condition", "pass is a condition on the judge's 1–5 score, such as \"score >= 4\"; %q does not parse: %s.", src, DiagText(diags))
			return false
		}
		expr, r.PassText = parsed, src
	}
	if !l.noSensitive(a.Expr) {
		return false
	}
	for _, tr := range expr.Variables() {
		rng := tr.SourceRange()
		switch root := tr.RootName(); {
		case root == "score" && len(tr) == 1:
		case root == "var":
			if !l.checkTraversal(tr, "rubric pass condition", nil) {
				return false
			}
		default:
			l.errorf(&rng, "Unknown name", "A rubric's pass condition reads the judge's 1–5 score as score (and variables as var.NAME), e.g. pass = \"score >= 4\"; %q is neither.", string(rng.SliceBytes(l.fileBytes(rng.Filename))))
			return false
		}
	}
	if !l.passScores(r, a, expr) {
		return false
	}
	r.Pass = expr
	return true
}

// passScores tries rubric r's pass condition expr on every score the
// judge can give, 1 to 5: one it fails on or that gives no bool is an
// error, and so is a condition no score meets (every judged reply would
// fail) or every score meets (no reply would fail it).
func (l *loader) passScores(r *RubricSpec, a *hcl.Attribute, expr hcl.Expression) bool {
	var passing []string
	for score := 1; score <= 5; score++ {
		ok, err := l.suite.rubricPasses(expr, score)
		if err != nil {
			l.errorf(a.Expr.Range().Ptr(), "Invalid pass condition", "pass is a condition on the judge's 1–5 score, such as \"score >= 4\"; with score = %d it %s.", score, err)
			return false
		}
		if ok {
			passing = append(passing, fmt.Sprint(score))
		}
	}
	switch len(passing) {
	case 0:
		l.errorf(a.Expr.Range().Ptr(), "Pass condition never met", "The judge scores a reply from 1 to 5, and pass = %q holds for none of them, so every judged reply would fail rubric %q. Pick the lowest score that passes within 1–5, e.g. pass = \"score >= 4\".", r.PassText, r.Name)
		return false
	case 5:
		l.errorf(a.Expr.Range().Ptr(), "Pass condition always met", "The judge scores a reply from 1 to 5, and pass = %q holds for every one of them, so no reply could fail rubric %q (only an unparseable answer would). Pick the lowest score that passes within 2–5, e.g. pass = \"score >= 4\". To gate on the scores' mean instead of each reply, keep such a pass and add a threshold on metrics.rubric[%q].mean_score: a suite's thresholds decide its verdict.", r.PassText, r.Name, r.Name)
		return false
	}
	return true
}

// fileBytes is the text of a loaded suite file (nil when unknown).
func (l *loader) fileBytes(name string) []byte {
	return l.suite.Sources[name]
}

// rubricPasses evaluates a pass condition on a score.
func (s *Suite) rubricPasses(e hcl.Expression, score int) (bool, error) {
	ctx := s.BaseContext().NewChild()
	ctx.Variables = map[string]cty.Value{"score": cty.NumberIntVal(int64(score))}
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return false, fmt.Errorf("fails: %s", DiagText(diags))
	}
	v = Unmark(v)
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
		return false, fmt.Errorf("gives %s, not true or false", v.Type().FriendlyName())
	}
	return v.True(), nil
}

// rubricWords are the words a pass/fail verdict may be given as (case and
// surrounding white space aside, one trailing full stop allowed).
var rubricWords = map[string]string{
	"pass": schema.RubricPass, "passed": schema.RubricPass, "通过": schema.RubricPass,
	"fail": schema.RubricFail, "failed": schema.RubricFail, "不通过": schema.RubricFail, "未通过": schema.RubricFail,
}

// trimAnswer strips white space and one trailing full stop.
func trimAnswer(s string) string {
	w := strings.TrimSpace(s)
	w = strings.TrimSuffix(strings.TrimSuffix(w, "."), "。")
	return strings.ToLower(strings.TrimSpace(w))
}

// ParseRubricVerdict reads a pass/fail judge's answer: one of pass,
// passed, fail, failed, 通过, 不通过, 未通过, alone.
func ParseRubricVerdict(s string) (verdict string, ok bool) {
	v, ok := rubricWords[trimAnswer(s)]
	return v, ok
}

// ParseRubricScore reads a scoring judge's answer: one digit from 1 to 5,
// alone.
func ParseRubricScore(s string) (score int, ok bool) {
	w := trimAnswer(s)
	if len(w) != 1 || w[0] < '1' || w[0] > '5' {
		return 0, false
	}
	return int(w[0] - '0'), true
}

// RubricsFor are the rubrics case c carries: its source's, its turn's in
// a conversation, a memory block's on its question turns only.
func (info *SourceInfo) RubricsFor(c *schema.Case) []*RubricSpec {
	if info.TurnRubrics != nil {
		if c.Turn >= 1 && c.Turn <= len(info.TurnRubrics) {
			return info.TurnRubrics[c.Turn-1]
		}
		return nil
	}
	if info.RubricQuestionsOnly && c.Fact == "" {
		return nil
	}
	return info.Rubrics
}

// RubricInput is what the judge of rubric r is sent about reply, the
// answer to case c, given the conversation before it.
func RubricInput(r *RubricSpec, c *schema.Case, reply string, history []schema.Message) *schema.JudgeInput {
	in := &schema.JudgeInput{Rubric: r.Name, Criteria: r.Criteria, Question: c.Text, Answer: reply, Scored: r.Scored()}
	if r.History {
		in.History = history
	}
	return in
}

// RubricNames lists the names of the suite's rubric blocks, in
// declaration order, once each.
func (s *Suite) RubricNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, src := range s.CaseSources {
		info := src.Info()
		all := info.Rubrics
		for _, t := range info.TurnRubrics {
			all = append(all[:len(all):len(all)], t...)
		}
		for _, r := range all {
			if !seen[r.Name] {
				seen[r.Name] = true
				out = append(out, r.Name)
			}
		}
	}
	return out
}
