package rubric

import (
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// A verdict is one word, alone (case, white space and one full stop
// aside): NLI labels, nlutest's verdict names or their Chinese names.
// Anything more is not guessed at.
func TestParseNLI(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"entailment", schema.Entailed, true},
		{" ENTAILMENT\n", schema.Entailed, true},
		{"Entailed.", schema.Entailed, true},
		{"neutral", schema.Neutral, true},
		{"Contradiction", schema.Contradicted, true},
		{"矛盾。", schema.Contradicted, true},
		{"蕴含", schema.Entailed, true},
		{"中立", schema.Neutral, true},
		{"", "", false},
		{"I think it is entailment", "", false},
		{"entailment or neutral", "", false},
		{"entailment..", "", false},
		{"unanswered", "", false},
		{"LABEL_0", "", false},
	} {
		got, ok := ParseNLI(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseNLI(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// A pass/fail verdict is one word alone (pass, fail, 通过, 不通过…), a
// score one digit 1–5 alone; anything else is not guessed at.
func TestParseRubricAnswers(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"pass", schema.RubricPass, true}, {" PASS.\n", schema.RubricPass, true}, {"通过。", schema.RubricPass, true},
		{"Fail", schema.RubricFail, true}, {"不通过", schema.RubricFail, true}, {"未通过", schema.RubricFail, true},
		{"", "", false}, {"pass or fail", "", false}, {"It passes.", "", false}, {"5", "", false},
	} {
		if got, ok := ParseVerdict(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseVerdict(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"1", 1}, {" 5\n", 5}, {"4.", 4}, {"0", 0}, {"6", 0}, {"4/5", 0}, {"Score: 4", 0}, {"四", 0}, {"45", 0}, {"", 0},
	} {
		if got, ok := ParseScore(tc.in); got != tc.want || ok != (tc.want > 0) {
			t.Errorf("ParseScore(%q) = %d, %v; want %d", tc.in, got, ok, tc.want)
		}
	}
}
