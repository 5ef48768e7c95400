package spec

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/tools"
)

const mockSuite = `
suite "s" {}
variable "prefix" { default = "B-" }
tool "book_flight" {
  description = "预订航班"
  parameters  = { type = "object", properties = { city = { type = "string" } } }
  case {
    when   = { "$.city" = "拉萨", "$.seats" = 2 }
    result = { error = "no seats" }
  }
  case {
    when   = { "$.city" = "拉萨" }
    result = { order = "${var.prefix}拉萨" }
    effect {
      set   = "last"
      value = args.city
    }
  }
  result = { order = "${var.prefix}${args.city}", earlier = length(try(mocks.bookings, [])) }
  effect {
    append = "bookings"
    value  = args
  }
}
tool "no_default" {
  case {
    when   = { "$.x" = 1 }
    result = { ok = true }
  }
}
template "t" { text = "x" }
`

// A mock tool answers with the first case whose when holds (numbers as
// numbers, strings in NFC), else its default result; only the answering
// branch's effects apply, to the conversation's mock state; no answer is
// an error, and the state is then unchanged.
func TestMockToolAnswers(t *testing.T) {
	s, sums, out := loadText(t, mockSuite)
	if sums != "" {
		t.Fatalf("%s", out)
	}
	book := s.Tools["book_flight"]
	state := tools.MockState{}
	for _, tc := range []struct{ args, want, state string }{
		{`{"city":"上海"}`, `{"earlier":0,"order":"B-上海"}`, `{"bookings":[{"city":"上海"}]}`},
		{`{"city":"拉萨","seats":2.0}`, `{"error":"no seats"}`, `{"bookings":[{"city":"上海"}]}`},
		{`{"city":"拉萨"}`, `{"order":"B-拉萨"}`, `{"bookings":[{"city":"上海"}],"last":"拉萨"}`},
		{`{"city":"北京","date":"明天"}`, `{"earlier":1,"order":"B-北京"}`, `{"bookings":[{"city":"上海"},{"city":"北京","date":"明天"}],"last":"拉萨"}`},
	} {
		got, err := book.Answer(s.BaseContext(), []byte(tc.args), state)
		if err != nil || string(got) != tc.want || string(state.JSON()) != tc.state {
			t.Errorf("%s: %s, %v, state %s; want %s, state %s", tc.args, got, err, state.JSON(), tc.want, tc.state)
		}
	}
	if _, err := s.Tools["no_default"].Answer(s.BaseContext(), []byte(`{"x":2}`), state); err == nil || !strings.Contains(err.Error(), "no case for these arguments and no default result") {
		t.Errorf("no answer: %v", err)
	}
	if _, err := book.Answer(s.BaseContext(), []byte(`{"city":`), state); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("arguments not JSON: %v", err)
	}
	defs := string(tools.Defs(s.Tools, s.ToolOrder))
	if defs != `[{"type":"function","function":{"name":"book_flight","description":"预订航班","parameters":{"properties":{"city":{"type":"string"}},"type":"object"}}},{"type":"function","function":{"name":"no_default","parameters":{"type":"object","properties":{}}}}]` {
		t.Errorf("tool definitions %s", defs)
	}
}

// Mistakes in tool and final_state blocks are diagnostics at their place.
func TestToolAndFinalStateDiagnostics(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`tool "查航班" { result = {} }`, "Invalid tool name"},
		{`tool "t" { parameters = "x" }`, "Invalid parameters"},
		{`tool "t" {
  effect {
    value = args
  }
}`, "Invalid effect"},
		{`tool "t" { result = { r = case.text } }`, "Name not available here"},
		{`variable "k" { sensitive = true }
tool "t" { result = { r = var.k } }`, "Sensitive variable outside a target"},
		{`conversation "c" {
  turn { user = "x" }
  final_state {
    expect = { "$.a" = 1 }
  }
}`, "Where is the final state?"},
		{`conversation "c" {
  turn { user = "x" }
  final_state {
    from   = "mock"
    expect = { "$.a" = 1 }
  }
}`, "Unknown final state source"},
		{`conversation "c" {
  turn { user = "x" }
  final_state {
    url    = "http://x/${response.id}"
    expect = { "$.a" = 1 }
  }
}`, "Name not available here"},
		{`conversation "c" {
  turn { user = "x" }
  final_state {
    from   = "mocks"
    expect = { "state:$.a" = 1 }
  }
}`, "State path in final_state"},
		{`template "t" {
  text = "x"
  tools { called = ["book"] }
}
tool "book_flight" {}`, "Unknown tool"},
	} {
		_, sums, out := loadText(t, tc.src)
		if !strings.Contains(sums, tc.want) {
			t.Errorf("%s\n→ %s\nwant %q", tc.src, out, tc.want)
		}
	}
}

// A conversation's final_state expectations join its last turn's, keyed
// final:, with placeholders resolved; its scripts carry the query. Reading
// the mocks of a suite without tool blocks is a warning.
func TestFinalStateOnLastTurn(t *testing.T) {
	s, sums, out := loadText(t, `
materials "城市" { values = ["上海"] }
conversation "c" {
  turn { user = "订{城市}" }
  turn {
    user   = "确认"
    expect = { "$.ok" = true }
  }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }
}`)
	if sums != "No mock tools" { // a warning: the suite declares no tool block
		t.Fatalf("%s", out)
	}
	var sc *schema.Script
	_ = s.GenerateScripts(GenOptions{}, func(x *schema.Script) error { sc = x; return nil })
	if sc == nil || sc.FinalState == nil || !sc.FinalState.Mocks || len(sc.Turns[0].Expect) != 0 ||
		len(sc.Turns[1].Expect) != 2 || sc.Turns[1].Expect[1].Path != "final:$.bookings[0].city" || sc.Turns[1].Expect[1].Value != "上海" {
		t.Errorf("script %+v, last turn's expect %+v", sc, sc.Turns[1].Expect)
	}
}
