package memory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const judgeTestSuite = `
target "bot" {
  http {
    url = "http://127.0.0.1:1"
  }
}
target "nli" {
  http {
    url = "http://127.0.0.1:2"
  }
  judge {
    verdict = response.scores.entail > 0.5 ? "entailment" : (response.scores.contra > 0.5 ? "contradiction" : "neutral")
  }
}
target "llm" {
  http {
    url = "http://127.0.0.1:3"
  }
  judge {}
}
materials "x" {
  values = ["甲"]
}
memory "m" {
  fact {
    say    = "我叫{x}。"
    ask    = "我叫什么？"
    expect = "{x}"
  }
  judge = "nli"
}
`

// judgeVerdict reads a recorded judgement with the judge block's verdict
// expression (over response, reply, judge), or the reply without one; a
// failed judge call, a failing expression or a value that is no verdict
// is unparseable, with the reason.
func TestJudgeVerdict(t *testing.T) {
	s := loadSuite(t, judgeTestSuite)
	nli, llm := s.Target("nli"), s.Target("llm")
	in := &schema.JudgeInput{Fact: "我叫甲。", Question: "我叫什么？", Answer: "你叫甲。", Expect: "甲"}
	resp := func(s string) *schema.Judgement {
		return &schema.Judgement{Target: "nli", Response: json.RawMessage(s)}
	}
	for _, tc := range []struct {
		name       string
		t          *spec.Target
		j          *schema.Judgement
		want, says string
	}{
		{"entailed", nli, resp(`{"scores":{"entail":0.9,"contra":0.05}}`), schema.Entailed, `said "entailment"`},
		{"contradicted", nli, resp(`{"scores":{"entail":0.1,"contra":0.8}}`), schema.Contradicted, `said "contradiction"`},
		{"neutral", nli, resp(`{"scores":{"entail":0.3,"contra":0.3}}`), schema.Neutral, ""},
		{"missing member", nli, resp(`{"label":"entailment"}`), schema.Unparseable, "verdict:"},
		{"call failed", nli, &schema.Judgement{Target: "nli", Error: &schema.CallError{Type: schema.ErrTimeout, Message: "slow"}}, schema.Unparseable, "Timeout: slow"},
		{"not recorded", nli, nil, schema.Unparseable, "run the suite again"},
		{"reply", llm, &schema.Judgement{Target: "llm", Reply: "Neutral."}, schema.Neutral, ""},
		{"chatty reply", llm, &schema.Judgement{Target: "llm", Reply: "The answer is entailed."}, schema.Unparseable, "which is not a verdict"},
	} {
		got, detail := judgeVerdict(s, tc.t, in, tc.j)
		if got != tc.want || !strings.Contains(detail, tc.says) {
			t.Errorf("%s: %q (%s), want %q with %q", tc.name, got, detail, tc.want, tc.says)
		}
	}
	// The memory source judged by nli reads r.Judge; an empty reply is
	// unanswered without a judgement.
	judge := s.SourceByKind(spec.KindMemory, "m").Info().Judge
	r := &schema.Result{Case: schema.Case{Turn: 2, Fact: "我叫甲。", Text: "我叫什么？", Expected: "甲"}, Judge: resp(`{"scores":{"entail":1,"contra":0}}`)}
	if v, _ := judge(r, "你叫甲。"); v != schema.Entailed {
		t.Errorf("memory source with a judge target: %q", v)
	}
	if v, _ := judge(r, " "); v != schema.Unanswered {
		t.Errorf("empty reply: %q", v)
	}
}

// Naming a judge that is neither built in nor a target with a judge block
// is a diagnostic at the attribute, with the targets that can judge among
// the suggestions.
func TestMemoryJudgeTargetDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		judge, want string
	}{
		{`"bot"`, `Target "bot" has no judge block`},
		{`"nlj"`, `Did you mean "nli"?`},
		{`"nope"`, `"contains", "regex" or the name of a target with a judge block`},
	} {
		src := strings.Replace(judgeTestSuite, `judge = "nli"`, "judge = "+tc.judge, 1)
		dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": src})
		_, diags := load(dir)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) || !strings.Contains(diags.Error(), "s.nlutest.hcl:30,") {
			t.Errorf("judge = %s: %v", tc.judge, diags)
		}
	}
	dup := strings.Replace(judgeTestSuite, "  judge {}\n", "  judge {}\n  judge {}\n", 1)
	_, diags := load(kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": dup}))
	if !strings.Contains(diags.Error(), "Duplicate judge block") {
		t.Errorf("two judge blocks: %v", diags)
	}
}
