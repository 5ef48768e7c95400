package rubric

import (
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// verdictWords are the words a memory verdict may be given as (case and
// surrounding white space aside, one trailing full stop allowed): NLI
// labels, nlutest's verdict names, and their Chinese names.
var verdictWords = map[string]string{
	"entailment": schema.Entailed, "entailed": schema.Entailed, "entails": schema.Entailed, "蕴含": schema.Entailed,
	"neutral": schema.Neutral, "中立": schema.Neutral, "中性": schema.Neutral,
	"contradiction": schema.Contradicted, "contradicted": schema.Contradicted, "contradicts": schema.Contradicted, "矛盾": schema.Contradicted,
}

// ParseNLI reads a judge's verdict on a memory answer (entailed, neutral
// or contradicted): one of the words of verdictWords, alone. Anything
// else — a sentence around the word, two words, an empty answer — is not
// a verdict (ok false).
func ParseNLI(s string) (verdict string, ok bool) {
	v, ok := verdictWords[trimAnswer(s)]
	return v, ok
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

// ParseVerdict reads a pass/fail judge's answer: one of pass, passed,
// fail, failed, 通过, 不通过, 未通过, alone.
func ParseVerdict(s string) (verdict string, ok bool) {
	v, ok := rubricWords[trimAnswer(s)]
	return v, ok
}

// ParseScore reads a scoring judge's answer: one digit from 1 to 5,
// alone.
func ParseScore(s string) (score int, ok bool) {
	w := trimAnswer(s)
	if len(w) != 1 || w[0] < '1' || w[0] > '5' {
		return 0, false
	}
	return int(w[0] - '0'), true
}
