package assert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/rubric"
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

// rubricVerdict reads the recorded judgement through the judge block's
// verdict expression: pass/fail words, or a score the pass condition
// decides; a failed call, a missing judgement or another answer is
// unparseable with the reason.
func TestRubricVerdict(t *testing.T) {
	s := loadSuite(t, rubricTestSuite)
	info := s.SourceByKind(schema.KindTemplate, "天气").Info()
	rs := info.RubricsFor(&schema.Case{})
	if len(rs) != 2 || rs[0].Name != "礼貌" || rs[0].Scored() || !rs[1].Scored() || rs[1].PassText != "score >= 4" {
		t.Fatalf("rubrics %+v", rs)
	}
	resp := func(s string) *schema.Judgement {
		return &schema.Judgement{Target: "nli", Response: json.RawMessage(s)}
	}
	in := &schema.JudgeInput{Rubric: "x", Answer: "北京晴。"}
	for _, tc := range []struct {
		name  string
		r     *rubric.Spec
		j     *schema.Judgement
		want  string
		score int
		says  string
	}{
		{"通过", rs[0], resp(`{"verdict":"通过"}`), schema.RubricPass, 0, `said "通过"`},
		{"fail", rs[0], resp(`{"verdict":"fail"}`), schema.RubricFail, 0, ""},
		{"a score for pass/fail", rs[0], resp(`{"verdict":4}`), schema.Unparseable, 0, "not a verdict (pass or fail)"},
		{"score 4", rs[1], resp(`{"verdict":4}`), schema.RubricPass, 4, `gave 4 (pass = "score >= 4")`},
		{"score 3", rs[1], resp(`{"verdict":"3"}`), schema.RubricFail, 3, ""},
		{"words for a score", rs[1], resp(`{"verdict":"pass"}`), schema.Unparseable, 0, "not a score (one digit from 1 to 5)"},
		{"no member", rs[1], resp(`{}`), schema.Unparseable, 0, "verdict:"},
		{"failed call", rs[1], &schema.Judgement{Error: &schema.CallError{Type: schema.ErrHTTP, Message: "HTTP 500"}}, schema.Unparseable, 0, "HTTP 500"},
		{"not recorded", rs[1], nil, schema.Unparseable, 0, "run the suite again"},
	} {
		v := rubricVerdict(s, tc.r, in, tc.j)
		if v.Verdict != tc.want || v.Score != tc.score || !strings.Contains(v.Detail, tc.says) || v.Name != tc.r.Name {
			t.Errorf("%s: %+v, want %q score %d with %q", tc.name, v, tc.want, tc.score, tc.says)
		}
	}
}

// A pass condition that reads variables decides the verdict with their
// values: pass = score >= var.min (3) passes a 3.
func TestRubricVerdictPassReadsVariables(t *testing.T) {
	src := strings.Replace(rubricTestSuite, `pass     = "score >= 4"`, `pass     = score >= var.min`, 1) + "variable \"min\" {\n  default = 3\n}\n"
	s := loadSuite(t, src)
	r := s.SourceByKind(schema.KindTemplate, "天气").Info().Rubrics[1]
	for verdict, want := range map[string]string{`{"verdict":3}`: schema.RubricPass, `{"verdict":2}`: schema.RubricFail} {
		if v := rubricVerdict(s, r, &schema.JudgeInput{}, &schema.Judgement{Response: json.RawMessage(verdict)}); v.Verdict != want {
			t.Errorf("pass = score >= var.min (3) on %s: %+v, want %s", verdict, v, want)
		}
	}
}
