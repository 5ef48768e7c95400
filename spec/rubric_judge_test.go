package spec

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

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
