package assert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Each sequence mode on the lists it is defined by (docs/language.md,
// tools), agentevals' strict, unordered, subset and superset matching
// for exact, any_order, subset and superset.
func TestSequenceMatches(t *testing.T) {
	s, b, w := "search_flights", "book_flight", "get_weather"
	for _, tc := range []struct {
		mode      string
		want, got []string
		ok        bool
	}{
		{schema.ModeExact, []string{s, b}, []string{s, b}, true},
		{schema.ModeExact, []string{s, b}, []string{b, s}, false},
		{schema.ModeExact, []string{s, b}, []string{s, s, b}, false},
		{schema.ModeExact, nil, nil, true},
		{schema.ModeInOrder, []string{s, b}, []string{w, s, w, b, w}, true},
		{schema.ModeInOrder, []string{s, b}, []string{b, s}, false},
		{schema.ModeInOrder, []string{s, b}, []string{s}, false},
		{schema.ModeInOrder, []string{s, s}, []string{s, b}, false},
		{schema.ModeAnyOrder, []string{s, b}, []string{b, s}, true},
		{schema.ModeAnyOrder, []string{s, b}, []string{b, s, s}, false},
		{schema.ModeAnyOrder, []string{s, s}, []string{s, b}, false},
		{schema.ModeSubset, []string{s, b, w}, []string{b, s}, true},
		{schema.ModeSubset, []string{s, b}, []string{s, s}, false},
		{schema.ModeSubset, []string{s, b}, nil, true},
		{schema.ModeSubset, []string{s}, []string{s, w}, false},
		{schema.ModeSuperset, []string{s, b}, []string{w, b, s, w}, true},
		{schema.ModeSuperset, []string{s, s}, []string{s, b}, false},
		{schema.ModeSuperset, nil, []string{w}, true},
		{"nonsense", []string{s}, []string{s}, false},
	} {
		if got := SequenceMatches(tc.mode, tc.want, tc.got); got != tc.ok {
			t.Errorf("%s %v against %v = %v, want %v", tc.mode, tc.want, tc.got, got, tc.ok)
		}
	}
}

const toolsSuite = `
materials "城市" { values = ["上海", "广州"] }
materials "日期" { values = ["明天"] }

template "查航班" {
  text = "查一下{日期}去{城市}的航班"
  tools {
    called     = ["search_flights"]
    not_called = ["book_flight"]
    args       = { "search_flights" = { "$.city" = "{城市}", "$.date" = "{日期}" } }
  }
}

conversation "订票" {
  turn {
    user = "我想订{日期}去{城市}的机票"
    tools {
      called   = ["search_flights", "book_flight"]
      sequence = ["search_flights", "book_flight"]
      args     = { "book_flight" = { "$.city" = "{城市}" } }
    }
  }
  turn {
    user = "{城市}天气怎么样"
    tools { called = ["get_weather"] }
  }
  tools {
    sequence = ["search_flights", "book_flight", "get_weather"]
    mode     = "in_order"
  }
}
`

// call is a tool call with JSON arguments.
func call(name, args string) schema.ToolCall {
	return schema.ToolCall{Step: 1, Name: name, Arguments: json.RawMessage(args)}
}

// toolResults generates the suite's cases and gives each the calls the
// test says, keyed by case id's source and city.
func toolResults(t *testing.T, s *spec.Suite) []*schema.Result {
	t.Helper()
	var out []*schema.Result
	err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
		for _, c := range sc.Turns {
			r := &schema.Result{Case: *c, Response: json.RawMessage(`{}`), Outcome: schema.Pass}
			if c.Turn > 0 {
				r.ScriptTurns = len(sc.Turns)
			}
			city := c.Slots["城市"].Value
			switch key := c.Source + "/" + city + "/" + string(rune('0'+c.Turn)); key {
			case "查航班/上海/0":
				r.ToolCalls = []schema.ToolCall{call("search_flights", `{"city":"上海","date":"明天"}`)}
			case "查航班/广州/0": // the date dropped
				r.ToolCalls = []schema.ToolCall{call("search_flights", `{"city":"广州"}`)}
			case "订票/上海/1":
				r.ToolCalls = []schema.ToolCall{call("search_flights", `{"city":"上海","date":"明天"}`), call("book_flight", `{"city":"上海","flight_id":"MU5101"}`)}
			case "订票/上海/2":
				r.ToolCalls = []schema.ToolCall{call("get_weather", `{"city":"上海"}`)}
				r.EarlierTools = []string{"search_flights", "book_flight"}
			case "订票/广州/1": // searched twice
				r.ToolCalls = []schema.ToolCall{call("search_flights", `{"city":"广州"}`), call("search_flights", `{"city":"广州"}`), call("book_flight", `{"city":"广州"}`)}
			case "订票/广州/2": // the wrong tool
				r.ToolCalls = []schema.ToolCall{call("flight_status", `{"flight_no":"CA1234"}`)}
				r.EarlierTools = []string{"search_flights", "search_flights", "book_flight"}
			default:
				t.Fatalf("unexpected case %s", key)
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil || len(out) != 6 {
		t.Fatalf("%d results, %v", len(out), err)
	}
	return out
}

// The tools blocks' checks and metrics.tools, counted by hand:
//
//	case            calls                          expected (called)     correct  args           sequences
//	查航班 上海      search                         search                1        search ✓
//	查航班 广州      search (no date)               search                1        search ✗ $.date
//	订票 上海 1      search, book                   search, book          2        book ✓         exact ✓
//	订票 上海 2      get_weather                    get_weather           1                       in_order ✓ (conversation)
//	订票 广州 1      search, search, book           search, book          2        book ✓         exact ✗
//	订票 广州 2      flight_status                  get_weather           0                       in_order ✗ (conversation)
//
// scored calls 1+1+2+1+3+1 = 9, expected 1+1+2+1+2+1 = 8, correct 7:
// precision 7/9, recall 7/8, F1 2·7/(9+8) = 14/17; arguments 3 of 4;
// exact 1 of 2, in_order 1 of 2. Per tool: search_flights 5 calls, 4
// expected, 4 correct; book_flight 2, 2, 2; get_weather 1, 2, 1;
// flight_status 1, 0, 0.
func TestToolChecksAndMetrics(t *testing.T) {
	s := loadSuite(t, toolsSuite)
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	failures := map[string][]string{}
	for _, r := range toolResults(t, s) {
		col.Add(r, ev.Evaluate(r))
		key := r.Source + "/" + r.Slots["城市"].Value + "/" + string(rune('0'+r.Turn))
		for _, f := range r.Failures {
			failures[key] = append(failures[key], f.Kind+": "+f.Message)
		}
	}
	want := map[string][]string{
		"查航班/广州/0": {`tools: args "search_flights" $.date: expected "明天", missing in the arguments {"city":"广州"}`},
		"订票/广州/1":  {`tools: sequence exact ["search_flights", "book_flight"]: the calls were ["search_flights", "search_flights", "book_flight"]`},
		"订票/广州/2": {`tools: called "get_weather": not called (calls: ["flight_status"])`,
			`tools: sequence in_order ["search_flights", "book_flight", "get_weather"]: the calls over the conversation's calls were ["search_flights", "search_flights", "book_flight", "flight_status"]`},
	}
	for k, w := range want {
		if !slices.Equal(failures[k], w) {
			t.Errorf("%s: failures\n%q\nwant\n%q", k, failures[k], w)
		}
	}
	for k, f := range failures {
		if want[k] == nil {
			t.Errorf("%s: unexpected failures %q", k, f)
		}
	}
	v, _ := col.Metrics().Node.Families["tools"].(*schema.Tools)
	if v == nil {
		t.Fatal("no metrics.tools")
	}
	if v.Calls != 9 || v.ScoredCalls != 9 || v.Expected != 8 || v.Correct != 7 || v.Precision != schema.R(7, 9) || v.Recall != schema.R(7, 8) || v.F1 != schema.R(14, 17) {
		t.Errorf("calls %d scored %d expected %d correct %d P %v R %v F1 %v; want 9 9 8 7, 7/9, 7/8, 14/17", v.Calls, v.ScoredCalls, v.Expected, v.Correct, v.Precision, v.Recall, v.F1)
	}
	if v.ArgsChecked != 4 || v.ArgsPassed != 3 || v.ArgumentAccuracy != schema.R(3, 4) {
		t.Errorf("arguments %d of %d, want 3 of 4", v.ArgsPassed, v.ArgsChecked)
	}
	if m := v.Mode; v.Sequences != 4 || v.SequencesPassed != 2 || m["exact"] == nil || *m["exact"] != (schema.ModeFigures{Checked: 2, Passed: 1, PassRate: schema.R(1, 2)}) ||
		m["in_order"] == nil || m["in_order"].Checked != 2 || m["in_order"].Passed != 1 {
		t.Errorf("sequences %d/%d, modes %v", v.SequencesPassed, v.Sequences, m)
	}
	for name, w := range map[string][3]int{"search_flights": {5, 4, 4}, "book_flight": {2, 2, 2}, "get_weather": {1, 2, 1}, "flight_status": {1, 0, 0}} {
		f := v.Tool[name]
		if f == nil || f.Calls != w[0] || f.Expected != w[1] || f.Correct != w[2] {
			t.Errorf("tool %s: %+v, want calls %d expected %d correct %d", name, f, w[0], w[1], w[2])
		}
	}
	if a := v.Tool["search_flights"]; a.ArgsChecked != 2 || a.ArgsPassed != 1 {
		t.Errorf("search_flights arguments %d of %d, want 1 of 2", a.ArgsPassed, a.ArgsChecked)
	}
}

// Arguments that are not JSON fail the args check with what was sent,
// are counted, and never panic; a tool not called fails its args as
// missing; a turn without tool checks or calls has no tool outcome.
func TestToolArgsUnreadable(t *testing.T) {
	s := loadSuite(t, toolsSuite)
	ev := NewEvaluator(s)
	var c *schema.Case
	_ = s.Generate(spec.GenOptions{}, func(x *schema.Case) error {
		if c == nil {
			c = x
		}
		return nil
	})
	r := &schema.Result{Case: *c, Response: json.RawMessage(`{}`), ToolCalls: []schema.ToolCall{
		{Step: 1, Name: "search_flights", ArgumentsText: `{"city":`, Error: "the arguments are not JSON: unexpected end of JSON input"}}}
	ev.Evaluate(r)
	if r.Outcome != schema.Fail || len(r.Failures) != 2 || !strings.Contains(r.Failures[0].Message, `but the arguments are not JSON: unexpected end of JSON input: "{\"city\":"`) {
		t.Errorf("unreadable arguments: %v %+v", r.Outcome, r.Failures)
	}
	if r.Tools == nil || r.Tools.InvalidArgs != 1 {
		t.Errorf("invalid arguments not counted: %+v", r.Tools)
	}
	r = &schema.Result{Case: *c, Response: json.RawMessage(`{}`)}
	ev.Evaluate(r)
	if len(r.Failures) != 2 || !strings.Contains(r.Failures[0].Message, `called "search_flights": not called (calls: [])`) ||
		!strings.Contains(r.Failures[1].Message, `args "search_flights": the tool was not called`) || !r.Failures[1].Missing {
		t.Errorf("no calls: %+v", r.Failures)
	}
}

// A tools block that cannot hold, a mode without sequence, args over a
// whole conversation and a reserved expect key are load errors at their
// attribute.
func TestToolsBlockDiagnostics(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`template "t" {
  text = "x"
  tools {
    called     = ["a"]
    not_called = ["a"]
  }
}`, "Contradictory tool checks"},
		{`template "t" {
  text = "x"
  tools { mode = "in_order" }
}`, "Mode without sequence"},
		{`template "t" {
  text = "x"
  tools {
    sequence = ["a"]
    mode     = "inorder"
  }
}`, `Did you mean "in_order"?`},
		{`conversation "c" {
  turn { user = "x" }
  tools { args = { a = { "$.x" = 1 } } }
}`, "Arguments checked over several turns"},
		{`template "t" {
  text   = "x"
  expect = { "tool:a:$.x" = 1 }
}`, "Reserved expect key"},
		{`template "t" {
  text = "x"
  tools { called = ["a:b"] }
}`, "Invalid tool name"},
		{`template "t" {
  text = "x"
  tools { args = { a = { "$.x" = "{城市}" } } }
}`, "Unknown placeholder in expect"},
	} {
		diags := loadDiags(t, tc.src)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("%s\n→ %v, want %q", tc.src, diags, tc.want)
		}
	}
}

// loadDiags loads src as a suite and returns its diagnostics.
func loadDiags(t *testing.T, src string) interface {
	HasErrors() bool
	Error() string
} {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
	return diags
}
