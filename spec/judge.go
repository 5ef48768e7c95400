package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// This file reads a judge target's verdicts (SPEC §13): a target with a
// judge block judges memory answers (sources/memory) and rubrics
// (assert); its judge block's verdict expression (default: the reply)
// gives the text (Suite.JudgeText), and ParseVerdict reads a memory
// verdict from it strictly. A judgement that does not name a verdict is
// unparseable: counted apart, never guessed.

// verdictWords are the words a verdict may be given as (case and
// surrounding white space aside, one trailing full stop allowed): NLI
// labels, nlutest's verdict names, and their Chinese names.
var verdictWords = map[string]string{
	"entailment": schema.Entailed, "entailed": schema.Entailed, "entails": schema.Entailed, "蕴含": schema.Entailed,
	"neutral": schema.Neutral, "中立": schema.Neutral, "中性": schema.Neutral,
	"contradiction": schema.Contradicted, "contradicted": schema.Contradicted, "contradicts": schema.Contradicted, "矛盾": schema.Contradicted,
}

// ParseVerdict reads a judge's verdict: one of the words of verdictWords,
// alone. Anything else — a sentence around the word, two words, an empty
// answer — is not a verdict (ok false).
func ParseVerdict(s string) (verdict string, ok bool) {
	w := strings.TrimSpace(s)
	w = strings.TrimSuffix(strings.TrimSuffix(w, "."), "。")
	v, ok := verdictWords[strings.ToLower(strings.TrimSpace(w))]
	return v, ok
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

// DiagText is the errors among diags on one line: each summary and
// detail, joined by "; " — for messages recorded in results, where a
// source snippet cannot go.
func DiagText(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			s := d.Summary
			if d.Detail != "" {
				s += ": " + d.Detail
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}
