package spec

import (
	"strings"
	"testing"
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

// The default target is the first that is not a judge, wherever the judge
// is declared.
func TestDefaultTargetIsNotAJudge(t *testing.T) {
	src := strings.Replace(judgeTestSuite, `target "bot" {
  http {
    url = "http://127.0.0.1:1"
  }
}
`, "", 1) + `
target "bot" {
  http {
    url = "http://127.0.0.1:1"
  }
}
`
	s := genSuite(t, src)
	if s.Targets[0].Name != "nli" {
		t.Fatalf("the fixture should declare the judge first, got %q", s.Targets[0].Name)
	}
	if got := s.Target(""); got == nil || got.Name != "bot" {
		t.Errorf("default target %v, want bot", got)
	}
	if got := s.Target("nli"); got == nil || got.Name != "nli" {
		t.Errorf("Target(\"nli\") = %v", got)
	}
}
