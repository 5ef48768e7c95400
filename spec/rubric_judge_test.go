package spec

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

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
		if got, ok := ParseRubricVerdict(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseRubricVerdict(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"1", 1}, {" 5\n", 5}, {"4.", 4}, {"0", 0}, {"6", 0}, {"4/5", 0}, {"Score: 4", 0}, {"四", 0}, {"45", 0}, {"", 0},
	} {
		if got, ok := ParseRubricScore(tc.in); got != tc.want || ok != (tc.want > 0) {
			t.Errorf("ParseRubricScore(%q) = %d, %v; want %d", tc.in, got, ok, tc.want)
		}
	}
}

const rubricTestSuite = `
target "bot" {
  http {
    url = "http://127.0.0.1:1"
  }
}
target "nli" {
  http {
    url  = "http://127.0.0.1:2"
    body = { reply = judge.answer, criteria = judge.criteria, rubric = judge.rubric, history = judge.history, scored = judge.scored }
  }
  judge {
    verdict = response.verdict
  }
}
materials "城市" {
  values = ["北京"]
}
template "天气" {
  text = "{城市}天气怎么样？"
  rubric "礼貌" {
    judge    = "nli"
    criteria = "回复礼貌。"
  }
  rubric "有用" {
    judge    = "nli"
    criteria = "回复给出天气。"
    pass     = "score >= 4"
  }
}
`

// Bad rubric blocks are located diagnostics saying what to write.
func TestRubricDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"not a judge", `judge    = "nli"
    criteria = "回复礼貌。"`, `judge    = "bot"
    criteria = "回复礼貌。"`, `Target "bot" has no judge block`},
		{"unknown judge", `judge    = "nli"
    criteria = "回复礼貌。"`, `judge    = "nlj"
    criteria = "回复礼貌。"`, `Did you mean "nli"?`},
		{"empty criteria", `criteria = "回复礼貌。"`, `criteria = " "`, "Empty criteria"},
		{"pass not a condition", `"score >= 4"`, `"score + 1"`, "gives number, not true or false"},
		{"pass on another name", `"score >= 4"`, `"grade >= 4"`, `"grade" is neither`},
		{"pass does not parse", `"score >= 4"`, `"score >="`, "does not parse"},
		{"duplicate", `rubric "有用"`, `rubric "礼貌"`, `Duplicate rubric`},
		{"no criteria", `criteria = "回复礼貌。"`, ``, `"criteria" is required`},
	} {
		src := strings.Replace(rubricTestSuite, tc.from, tc.to, 1)
		_, diags := testLoad(writeFiles(t, map[string]string{"s.nlutest.hcl": src}), Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) || !strings.Contains(diags.Error(), "s.nlutest.hcl:") {
			t.Errorf("%s: %v", tc.name, diags)
		}
	}
	// A pass condition may be an expression, and may read variables.
	src := strings.Replace(rubricTestSuite, `pass     = "score >= 4"`, `pass     = score >= var.min`, 1) + "variable \"min\" {\n  default = 3\n}\n"
	s := loadAnnotSuite(t, src)
	r := s.SourceByKind(schema.KindTemplate, "天气").Info().Rubrics[1]
	for score, want := range map[int]bool{2: false, 3: true} {
		if pass, err := s.RubricPasses(r, score); pass != want || err != nil {
			t.Errorf("pass = score >= var.min (3) on %d: %v, %v", score, pass, err)
		}
	}
}
