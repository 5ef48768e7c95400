package scenario

import (
	"os"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const llmScenarioSuite = `
target "bot" {
  http { url = "http://127.0.0.1:1/" }
}
target "llm-user" {
  openai {
    url   = "http://127.0.0.1:2/v1"
    model = "m"
  }
  simulator { persona = "一位说话简短的乘客" }
}
materials "城市" { values = ["上海"] }
scenario "订机票" {
  goal {
    inform  = { city = "{城市}" }
    request = ["订单号"]
  }
  user      = "llm-user"
  opening   = ["我想订机票"]
  max_turns = 3
  success {
    condition = strcontains(reply, "订单号")
  }
}
`

// An LLM-simulated scenario's turns carry the simulator request (the goal
// and persona in the system prompt); Next reads the next turn from the
// recorded simulator call: its answer (reason llm), nothing on the stop
// word, an error or no call, and nothing on success or at max_turns.
func TestScenarioLLMNext(t *testing.T) {
	s := loadAnnotSuite(t, llmScenarioSuite)
	if d := s.Target(""); d == nil || d.Name != "bot" {
		t.Fatalf("default target %v, want bot (a simulator target is never the default)", d)
	}
	var scripts []*schema.Script
	if err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error { scripts = append(scripts, sc); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 1 {
		t.Fatalf("%d instances, want 1", len(scripts))
	}
	sc := scripts[0]
	first := sc.Turns[0]
	us := first.UserSim
	if us == nil || us.Target != "llm-user" || first.Reason != "opened" {
		t.Fatalf("first turn %+v", first)
	}
	wantSys := strings.NewReplacer("{goal}", "- tell the city: \"上海\"\n- ask for the 订单号", "{persona}", "Your persona: 一位说话简短的乘客\n").Replace(spec.SimulatorSystemPrompt)
	if us.System != wantSys {
		t.Fatalf("system prompt:\n%s\nwant:\n%s", us.System, wantSys)
	}
	if info := s.SourceByKind(spec.KindScenario, "订机票").Info(); info.Simulator != "llm-user" {
		t.Fatalf("info.Simulator %q", info.Simulator)
	}
	res := func(turn *schema.Case, reply string, sim *schema.Judgement) *schema.Result {
		return &schema.Result{Case: *turn, Reply: reply, Simulator: sim}
	}
	next := sc.Next(0, res(first, "去哪个城市？", &schema.Judgement{Reply: "  上海  "}))
	if next == nil || next.Text != "上海" || next.Reason != spec.ReasonLLM || next.Turn != 2 || next.UserSim != us {
		t.Fatalf("turn 2: %+v", next)
	}
	for name, sim := range map[string]*schema.Judgement{
		"stop word": {Reply: spec.StopWord}, "stop word in text": {Reply: "好的 " + spec.StopWord}, "empty": {Reply: " "},
		"error": {Reply: "上海", Error: &schema.CallError{Type: schema.ErrHTTP}}, "no call": nil,
	} {
		if n := sc.Next(1, res(next, "哪天？", sim)); n != nil {
			t.Errorf("%s: a turn after it: %+v", name, n)
		}
	}
	if us.Done(res(next, "您的订单号是 AB1", nil)) != true || us.Done(res(next, "哪天？", nil)) {
		t.Errorf("Done: success must end the scenario, a question not")
	}
	last := *next
	last.Turn = 3
	if !us.Done(res(&last, "哪天？", nil)) || sc.Next(2, res(&last, "哪天？", &schema.Judgement{Reply: "明天"})) != nil {
		t.Errorf("max_turns 3 must end the scenario")
	}
	// eval rebuilds a recorded turn without a simulator request.
	rec := *next
	rec.Conversation = "s-1"
	got, ok := s.NewRebuilder().Rebuild(&rec)
	if !ok || got.Text != "上海" || got.UserSim != nil || got.Agenda != nil {
		t.Fatalf("rebuild: %+v %v", got, ok)
	}
}

// user naming a target that cannot play the user is a located error.
func TestScenarioLLMUserErrors(t *testing.T) {
	for _, tc := range []struct {
		targets, user, summary, detail, at string
	}{
		{`target "j" {
  openai {
    url   = "http://127.0.0.1:2/v1"
    model = "m"
  }
}`, "j", "Target is not a simulator", "add simulator {}", "s.nlutest.hcl:11,10"},
		{`target "h" {
  http { url = "http://127.0.0.1:1/" }
  simulator {}
}`, "h", "Simulator is not an openai target", "is of kind http", "s.nlutest.hcl:9,10"},
		{`target "llm-user" {
  http { url = "http://127.0.0.1:1/" }
  simulator {}
}`, "llm-usr", "Unknown user simulator", `Did you mean "llm-user"?`, "s.nlutest.hcl:9,10"},
		{`target "u" {
  openai {
    url   = "http://127.0.0.1:2/v1"
    model = "m"
  }
  simulator {}
  simulator {}
}`, "u", "Duplicate simulator block", "at most one simulator block", "s.nlutest.hcl:7,3"},
	} {
		dir := kindtest.WriteSuite(t, tc.targets+`
materials "城市" { values = ["北京"] }
scenario "s" {
  goal { inform = { city = "{城市}" } }
  opening = ["你好"]
  user = "`+tc.user+`"
  success { condition = true }
}
`)
		_, diags := load(dir)
		if !diags.HasErrors() {
			t.Errorf("%s: loaded without errors", tc.user)
			continue
		}
		if diags[0].Summary != tc.summary || !strings.Contains(diags[0].Detail, tc.detail) || !strings.Contains(diags.Error(), tc.at) {
			t.Errorf("%s: %v; want %q (%q) at %s", tc.user, diags, tc.summary, tc.detail, tc.at)
		}
	}
}

// docs/language.md prints the simulator's default prompt as sent.
func TestSimulatorPromptDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```text\n"+spec.SimulatorSystemPrompt+"\n```") || !strings.Contains(string(doc), "`"+spec.StopWord+"`") {
		t.Errorf("docs/language.md does not print the simulator prompt as sent:\n%s", spec.SimulatorSystemPrompt)
	}
}

// A simulator block's max_tokens: 256 unless set, 0 allowed (none is
// sent), a negative or fractional one a located error.
func TestSimulatorMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		attr    string
		want    int
		summary string
	}{
		{"", spec.DefaultSimulatorMaxTokens, ""}, {"max_tokens = 64", 64, ""}, {"max_tokens = 0", 0, ""},
		{"max_tokens = -1", 0, "Value out of range"}, {"max_tokens = 1.5", 0, "Whole number required"},
	} {
		src := strings.Replace(llmScenarioSuite, `simulator { persona = "一位说话简短的乘客" }`, "simulator {\n    "+tc.attr+"\n  }", 1)
		dir := kindtest.WriteSuite(t, src)
		s, diags := load(dir)
		if tc.summary != "" {
			if !diags.HasErrors() || diags[0].Summary != tc.summary || !strings.Contains(diags.Error(), "s.nlutest.hcl:11,18") {
				t.Errorf("%s: %v, want %q at s.nlutest.hcl:11,18", tc.attr, diags, tc.summary)
			}
			continue
		}
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.attr, diags)
		}
		if got := s.Target("llm-user").Simulator.MaxTokens; got != tc.want {
			t.Errorf("%q: max_tokens %d, want %d", tc.attr, got, tc.want)
		}
	}
}
