package scenario

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const scenarioTestSuite = `
materials "城市" { values = ["上海", "北京"] }
materials "日期" { values = ["明天", "后天"] }
scenario "订机票" {
  scene = ["出行", "订票"]
  goal {
    inform  = { city = "{城市}", date = "{日期}" }
    request = ["order_id"]
  }
  opening   = ["我想订机票", "帮我订张机票"]
  asks      = { city = ["哪个城市", "去哪"], date = ["哪天", "什么时候"] }
  answer    = { city = ["去{城市}"] }
  confirm   = ["确认吗", "对吗"]
  affirm    = ["确认"]
  max_turns = 6
  success {
    condition = strcontains(reply, "订单号")
  }
}
`

// The agenda simulator answers the ask it finds first in the reply,
// affirms a confirmation, volunteers the next slot when it does not
// understand, requests when everything was given, and stops on success
// or at max_turns; the same replies give the same turns.
func TestScenarioAgenda(t *testing.T) {
	s := loadAnnotSuite(t, scenarioTestSuite)
	var scripts []*schema.Script
	if err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error { scripts = append(scripts, sc); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 2 {
		t.Fatalf("%d scenario instances, want 2 (uniq over 2×2 values)", len(scripts))
	}
	play := func(sc *schema.Script, replies []string) (texts, reasons []string) {
		turn := sc.Turns[0]
		for i := 0; turn != nil; i++ {
			texts, reasons = append(texts, turn.Text), append(reasons, turn.Reason)
			reply := "？"
			if i < len(replies) {
				reply = replies[i]
			}
			turn = sc.Next(i, &schema.Result{Case: *turn, Reply: reply})
		}
		return texts, reasons
	}
	sc := scripts[0]
	city, date := sc.Turns[0].Slots["城市"].Value, sc.Turns[0].Slots["日期"].Value
	texts, reasons := play(sc, []string{"天气不错", "好的，您什么时候出发？去哪个城市？", "请问去哪？", "确认吗？", "好的", "您的订单号是 AB12345"})
	wantReasons := []string{"opened", `volunteered "city"`, `answered ask "date"`, `answered ask "city"`, "affirmed", `requested "order_id"`}
	if strings.Join(reasons, "|") != strings.Join(wantReasons, "|") {
		t.Fatalf("reasons %q, want %q", reasons, wantReasons)
	}
	wantTexts := []string{texts[0], "去" + city, date, "去" + city, "确认", "order_id是多少？"}
	if strings.Join(texts, "|") != strings.Join(wantTexts, "|") {
		t.Fatalf("turns %q, want %q", texts, wantTexts)
	}
	again, _ := play(sc, []string{"天气不错", "好的，您什么时候出发？去哪个城市？", "请问去哪？", "确认吗？", "好的", "您的订单号是 AB12345"})
	if strings.Join(again, "|") != strings.Join(texts, "|") {
		t.Fatalf("a second play gave %q, the first %q", again, texts)
	}
	// A bot that never understands: max_turns ends it.
	stuck, _ := play(sc, []string{"去哪个城市？", "去哪个城市？", "去哪个城市？", "去哪个城市？", "去哪个城市？", "去哪个城市？", "去哪个城市？"})
	if len(stuck) != 6 {
		t.Fatalf("%d turns against a bot that never understands, want max_turns 6", len(stuck))
	}
	info := s.SourceByKind(spec.KindScenario, "订机票").Info()
	if g := info.Goal(sc.Turns[0]); g != `inform { city = "`+city+`", date = "`+date+`" } request [order_id]` {
		t.Fatalf("goal %q", g)
	}
	// Rebuild keeps a recorded turn's text; a foreign opening is not the scenario's.
	rb := s.NewRebuilder()
	rec := *sc.Turns[0]
	rec.Turn, rec.ID, rec.Text, rec.Conversation, rec.Reason = 3, sc.ID+"/3", "去"+city, "s-1", `answered ask "city"`
	got, ok := rb.Rebuild(&rec)
	if !ok || got.Text != "去"+city || got.Reason != `answered ask "city"` || got.Turn != 3 || got.ID != sc.ID+"/3" {
		t.Fatalf("rebuild of turn 3: %+v %v", got, ok)
	}
	rec.Turn, rec.ID, rec.Text = 1, sc.ID+"/1", "随便说说"
	if _, ok := rb.Rebuild(&rec); ok {
		t.Fatalf("an opening the scenario does not have was rebuilt")
	}
}

// The success condition is evaluated once per live turn: the simulator's
// verdict is memoised on the result and the evaluator's Success reuses
// it, while a turn read back from its record (eval, --resume) is checked
// again from what was recorded, and a turn that errored never succeeds.
func TestScenarioSuccessMemo(t *testing.T) {
	s := loadAnnotSuite(t, scenarioTestSuite)
	var sc *schema.Script
	if err := s.GenerateScripts(spec.GenOptions{}, func(x *schema.Script) error { sc = x; return nil }); err != nil {
		t.Fatal(err)
	}
	info := s.SourceByKind(spec.KindScenario, "订机票").Info()
	r := &schema.Result{Case: *sc.Turns[0], Reply: "您的订单号是 AB12345", Outcome: schema.Pass}
	if next := sc.Next(0, r); next != nil {
		t.Fatalf("the simulator went on after the success condition held: %q", next.Text)
	}
	line, err := schema.EncodeLine(r)
	if err != nil {
		t.Fatal(err)
	}
	// A reply that no longer satisfies the condition shows which check
	// answers: the live result keeps the simulator's verdict.
	r.Reply = "请问去哪个城市？"
	if !info.Success(r) {
		t.Fatalf("Success evaluated the condition again on a turn the simulator already checked")
	}
	var rec schema.Result
	if err := rec.UnmarshalJSON(line); err != nil {
		t.Fatal(err)
	}
	if !info.Success(&rec) {
		t.Fatalf("the recorded turn with reply %q did not succeed when checked again", rec.Reply)
	}
	var other schema.Result
	if err := other.UnmarshalJSON(line); err != nil {
		t.Fatal(err)
	}
	other.Reply = "请问去哪个城市？"
	if info.Success(&other) {
		t.Fatalf("a recorded turn with reply %q succeeded: eval must check the recorded turn itself", other.Reply)
	}
	r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: "response is not JSON"}
	if info.Success(r) {
		t.Fatalf("a turn evaluation marked as errored still succeeded")
	}
}

// A scenario's mistakes are located diagnostics.
func TestScenarioErrors(t *testing.T) {
	for _, tc := range []struct {
		body, summary, detail, at string
	}{
		{`goal { inform = { city = "{城市}" } }
  opening = ["你好"]`, "Scenario without success", "success {", "s.nlutest.hcl:3,1"},
		{`opening = ["你好"]
  success { condition = true }`, "Scenario without goal", "goal {", "s.nlutest.hcl:3,1"},
		{`goal { inform = { city = "{城市}" } }
  success { condition = true }`, "Scenario without opening", "opening = [", "s.nlutest.hcl:3,1"},
		{`goal { inform = { city = "{城市}" } }
  opening = ["你好"]
  asks = { cty = ["哪"] }
  success { condition = true }`, "Unknown slot", `Did you mean "city"?`, "s.nlutest.hcl:6,10"},
		{`goal { inform = { city = "{城}" } }
  opening = ["你好"]
  success { condition = true }`, "Unknown materials", "{城}", "s.nlutest.hcl:4,29"},
		{`goal { inform = { city = "{城市}" } }
  opening = ["你好"]
  user = "llm"
  success { condition = true }`, "Unknown user simulator", `user = "agenda"`, "s.nlutest.hcl:6,10"},
		{`goal { inform = { city = "{城市}" } }
  opening = ["你好"]
  max_turns = 0
  success { condition = true }`, "Value out of range", "at least 1", "s.nlutest.hcl:6,15"},
		{`goal { inform = { city = "{城市}" } }
  opening = ["你好"]
  success { condition = strcontains(rely, "好") }`, "", "rely", "s.nlutest.hcl:"},
	} {
		dir := kindtest.WriteSuite(t, `
materials "城市" { values = ["北京", "上海"] }
scenario "s" {
  `+tc.body+`
}
`)
		_, diags := load(dir)
		if !diags.HasErrors() {
			t.Errorf("%s: loaded without errors", tc.body)
			continue
		}
		if (tc.summary != "" && diags[0].Summary != tc.summary) || !strings.Contains(diags[0].Detail, tc.detail) || !strings.Contains(diags.Error(), tc.at) {
			t.Errorf("%s: %v; want %q (%q) at %s", tc.body, diags, tc.summary, tc.detail, tc.at)
		}
	}
}
