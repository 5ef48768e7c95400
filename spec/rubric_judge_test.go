package spec

import (
	"encoding/json"
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

// RubricVerdict reads the recorded judgement through the judge block's
// verdict expression: pass/fail words, or a score the pass condition
// decides; a failed call, a missing judgement or another answer is
// unparseable with the reason.
func TestRubricVerdict(t *testing.T) {
	s := loadAnnotSuite(t, rubricTestSuite)
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
		r     *RubricSpec
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
		v := s.RubricVerdict(tc.r, in, tc.j)
		if v.Verdict != tc.want || v.Score != tc.score || !strings.Contains(v.Detail, tc.says) || v.Name != tc.r.Name {
			t.Errorf("%s: %+v, want %q score %d with %q", tc.name, v, tc.want, tc.score, tc.says)
		}
	}
}

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
	if v := s.RubricVerdict(r, &schema.JudgeInput{}, &schema.Judgement{Response: json.RawMessage(`{"verdict":3}`)}); v.Verdict != schema.RubricPass {
		t.Errorf("pass = score >= var.min (3) on 3: %+v", v)
	}
}
