package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/diagfmt"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// This file is the loader's glue to package rubric: the rubric block
// (SPEC §14.5) decoded against the suite's targets and variables, its
// pass condition evaluated, and a judge target's verdict expression
// (SPEC §13) evaluated on a judgement (Suite.JudgeText) for
// rubric.ParseVerdict, rubric.ParseScore and rubric.ParseNLI to read.

// RubricBlock decodes a rubric block of any source kind; nil when it has
// errors. seen holds the names of the rubrics already on the same case (a
// name appears once per case).
func (d *Decoder) RubricBlock(b *hcl.Block, seen map[string]hcl.Range) *rubric.Spec {
	return d.l.decodeRubric(b, seen)
}

// decodeRubric reads a rubric block; nil when it has errors, each
// reported.
func (l *loader) decodeRubric(b *hcl.Block, seen map[string]hcl.Range) *rubric.Spec {
	// Every attribute is checked, whatever the others' mistakes (ok false:
	// a missing argument, a mistake below); a rubric with one is nil.
	c, ok := l.content(b.Body, rubric.Schema)
	ok = l.checkLabel(b) && ok
	r := &rubric.Spec{Name: label(b), DeclRange: b.DefRange}
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
func (l *loader) rubricJudge(r *rubric.Spec, a *hcl.Attribute) bool {
	name := l.str(hcl.Attributes{"judge": a}, "judge", "")
	if name == "" {
		return false
	}
	var judges []string
	var judge *Target
	for _, t := range l.suite.Targets {
		if t.Judge != nil {
			judges = append(judges, t.Name)
		}
		if t.Name == name {
			judge = t
		}
	}
	rng := a.Expr.Range().Ptr()
	switch {
	case judge == nil && l.isBroken("target", name):
		return false // the target's own error is reported
	case judge == nil:
		known := "The suite declares no target with a judge block."
		if len(judges) > 0 {
			known = "Targets with a judge block: " + quoteList(judges) + "."
		}
		l.errorf(rng, "Unknown judge", "judge names a target with a judge block; there is no target %q.%s %s", name, didYouMean(name, judges), known)
		return false
	case judge.Judge == nil:
		l.errorf(rng, "Target is not a judge", "Target %q has no judge block, so it cannot judge replies: add judge {} to it (an openai target), or judge { verdict = response.label } (an http target: the expression reads the verdict from its response).", name)
		return false
	}
	r.Judge = name
	return true
}

// rubricPass reads pass: a condition on score, written as a string
// ("score >= 4") or as an expression. It is tried on every score 1–5 at
// load, so a bad one is an error here, not in the middle of a run.
func (l *loader) rubricPass(r *rubric.Spec, a *hcl.Attribute) bool {
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
	diags := r.CheckPass(a.Expr.Range(), func(score int) (bool, error) { return l.suite.rubricPasses(expr, score) })
	if diags.HasErrors() {
		l.diags = append(l.diags, diags...)
		return false
	}
	r.Pass = expr
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

// RubricsFor are the rubrics case c carries: its source's, its turn's in
// a conversation, a memory block's on its question turns only.
func (info *SourceInfo) RubricsFor(c *schema.Case) []*rubric.Spec {
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

// evalVerdict evaluates the verdict expression on judgement j.
func (s *Suite) evalVerdict(e hcl.Expression, in *schema.JudgeInput, j *schema.Judgement) (string, error) {
	resp := cty.NullVal(cty.DynamicPseudoType)
	if len(j.Response) > 0 {
		v, err := JSONToCty(j.Response)
		if err != nil {
			return "", fmt.Errorf("its response is not JSON: %v", err)
		}
		resp = v
	}
	ctx := s.BaseContext().NewChild()
	ctx.Variables = map[string]cty.Value{"response": resp, "reply": cty.StringVal(j.Reply), "judge": JudgeValue(in)}
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return "", fmt.Errorf("verdict: %s", DiagText(diags))
	}
	if v.IsNull() || !v.IsKnown() {
		return "", fmt.Errorf("verdict is null")
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", fmt.Errorf("verdict gives %s, not a string", v.Type().FriendlyName())
	}
	return sv.AsString(), nil
}

// DiagText is the errors among diags on one line (diagfmt.Text), for the
// targets and kinds that record an evaluation's failure as a message.
func DiagText(diags hcl.Diagnostics) string { return diagfmt.Text(diags) }
