package coverage_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/botmodel"
)

// zhSuite is a Chinese restaurant bot's suite over the hand-written model
// of spec/botmodel/testdata/zh: a conversation whose turns check an
// intent, a slot, a response by contains and by matches, and a form by a
// condition; a template checking an intent and (in a condition) a slot
// the model lacks; a suite-level assert reading the slot 日期.
func zhSuite(t *testing.T) *spec.Suite {
	t.Helper()
	model, err := filepath.Abs("../../spec/botmodel/testdata/zh")
	if err != nil {
		t.Fatal(err)
	}
	src := `suite "订餐" {}
target "bot" {
  rasa {
    url     = "http://127.0.0.1:9"
    mode    = "webhook"
    tracker = true
  }
}
coverage {
  domain = "` + model + `/domain.yml"
  nlu    = "` + model + `/nlu.yml"
  flows  = ["` + model + `/flows.yml"]
}
assert {
  condition = try(state.slots["日期"], "x") != ""
}
conversation "订餐" {
  turn {
    user   = "你好"
    expect = { "state:$.latest_message.intent.name" = "问候" }
    reply {
      contains = ["您好！请问有什么可以帮您？"]
    }
  }
  turn {
    user   = "我想在北京订餐"
    expect = { "state:$.latest_message.intent.name" = "订餐", "state:$.slots.城市" = "北京" }
    reply {
      matches = "好的，.*已为您预订。"
    }
    assert {
      condition = state.active_loop.name == "订餐表单"
    }
  }
}
template "天气" {
  text   = "上海明天天气怎么样"
  expect = { "state:$.latest_message.intent.name" = "查询天气" }
  assert {
    condition = try(state.slots["天气"], null) == null
  }
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, extensions.Default().LoadOptions(spec.Options{AllowOutside: true}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// zhResults are five hand-made results: script A passes both turns, B
// fails turn 1 (the bot took 你好 for 告别) and errors on turn 2, the
// weather case fails (the bot took it for 问候).
func zhResults() []*schema.Result {
	turn := func(script string, n int, out schema.Outcome, text, reply, state string) *schema.Result {
		r := &schema.Result{Case: schema.Case{ID: script + string(rune('0'+n)), Text: text, Source: "订餐", SourceKind: "conversation", Script: script, Turn: n},
			Outcome: out, Reply: reply}
		if state != "" {
			r.State = json.RawMessage(state)
		}
		if n == 1 {
			r.Expect = schema.Expectations{{Path: "state:$.latest_message.intent.name", Value: "问候"}}
		} else {
			r.Expect = schema.Expectations{{Path: "state:$.latest_message.intent.name", Value: "订餐"}, {Path: "state:$.slots.城市", Value: "北京"}}
		}
		return r
	}
	b2 := turn("B", 2, schema.Error, "我想在北京订餐", "", "")
	b2.Error = &schema.CallError{Type: schema.ErrTimeout, Message: "timeout"}
	weather := &schema.Result{Case: schema.Case{ID: "W", Text: "上海明天天气怎么样", Template: "天气", Source: "天气", SourceKind: schema.KindTemplate,
		Expect: schema.Expectations{{Path: "state:$.latest_message.intent.name", Value: "查询天气"}}},
		Outcome: schema.Fail, Reply: "您好！请问有什么可以帮您？", State: json.RawMessage(`{"latest_message":{"intent":{"name":"问候"}},"slots":{"城市":null,"人数":2,"日期":null}}`)}
	return []*schema.Result{
		turn("A", 1, schema.Pass, "你好", "您好！请问有什么可以帮您？", `{"latest_message":{"intent":{"name":"问候"},"entities":[]},"slots":{"城市":null,"人数":2,"日期":null},"latest_action_name":"action_listen"}`),
		turn("A", 2, schema.Pass, "我想在北京订餐", "请问在哪个城市用餐？",
			`{"latest_message":{"intent":{"name":"订餐"},"entities":[{"entity":"城市","value":"北京"}]},"slots":{"城市":"北京","人数":2,"日期":null},"latest_action_name":"action_listen","active_loop":{"name":"订餐表单"},"stack":[{"frame_id":"x1","flow_id":"订餐","step_id":"订餐_1_collect_人数","frame_type":"regular","type":"flow"}]}`),
		weather,
		turn("B", 1, schema.Fail, "你好", "再见！", `{"latest_message":{"intent":{"name":"告别"}},"slots":{"城市":null,"人数":2,"日期":null}}`),
		b2,
	}
}

// The coverage of the hand-made results, hand-counted item by item (the
// comments say which cases exercised and showed each).
func TestCoverageHandCounted(t *testing.T) {
	s := zhSuite(t)
	col := assert.NewCollector(s, extensions.Default().Families)
	for _, r := range zhResults() {
		col.Add(r, nil)
	}
	c := schema.CoverageOf(&col.Metrics().Node)
	if c == nil {
		t.Fatal("no metrics.coverage")
	}
	type item = schema.CoverageItem
	want := map[string]map[string]item{
		"intents": {
			"问候":   {Passed: 1, Failed: 1, Seen: 2}, // A1, B1 check; A1 and W show it
			"订餐":   {Passed: 1, Failed: 1, Seen: 1}, // A2, B2 (errored)
			"查询天气": {Failed: 1},                     // W alone: failing only
			"告别":   {Seen: 1},                       // B1's answer, never checked
		},
		"entities": {"城市": {Seen: 1}, "人数": {}},
		"slots": {
			"城市": {Passed: 1, Failed: 1, Seen: 1},
			"人数": {},                     // 2 is its initial value: not shown
			"日期": {Passed: 2, Failed: 3}, // the suite-level assert: every case
		},
		"responses": {
			"utter_问候":   {Passed: 1, Failed: 1, Seen: 2}, // contains (A1, B1); replies of A1 and W
			"utter_询问城市": {Seen: 1},
			"utter_确认":   {Passed: 1, Failed: 1}, // matches, anchored on the template
			"utter_再见":   {Seen: 1},
			"utter_人数太多": {},
		},
		"actions":    {"action_查询天气": {}},
		"forms":      {"订餐表单": {Passed: 1, Failed: 1, Seen: 1}}, // the condition (A2, B2) and A2's active_loop
		"flows":      {"订餐": {Passed: 1, Seen: 1}, "查天气": {}, "选城市": {}},
		"flow_steps": {},
	}
	for _, st := range []string{"订餐/订餐_0_collect_城市", "订餐/订餐_2_utter_人数太多", "订餐/确认", "查天气/查天气_0_call_选城市", "查天气/查天气_1_action_查询天气",
		"查天气/查天气_2_link_订餐", "选城市/选城市_0_collect_城市", "选城市/选城市_1_set_slots", "选城市/选城市_2_noop"} {
		want["flow_steps"][st] = item{}
	}
	want["flow_steps"]["订餐/订餐_1_collect_人数"] = item{Passed: 1, Seen: 1} // A2's dialogue stack
	counts := map[string][4]int{                                        // items, passing, failing only, untested
		"intents": {4, 2, 1, 1}, "entities": {2, 0, 0, 2}, "slots": {3, 2, 0, 1}, "responses": {5, 2, 0, 3},
		"actions": {1, 0, 0, 1}, "forms": {1, 1, 0, 0}, "flows": {3, 1, 0, 2}, "flow_steps": {10, 1, 0, 9},
	}
	for _, k := range schema.CoverageKinds {
		ck := *c.Kind(k)
		if ck == nil {
			t.Errorf("no %s", k)
			continue
		}
		if len(ck.Item) != len(want[k]) {
			t.Errorf("%s: %d items, want %d: %v", k, len(ck.Item), len(want[k]), ck.Item)
		}
		for name, w := range want[k] {
			if got := ck.Item[name]; got != w {
				t.Errorf("%s %s = %+v, want %+v", k, name, got, w)
			}
		}
		n := counts[k]
		if got := [4]int{ck.Items, ck.Passing, ck.FailingOnly, ck.Untested}; got != n {
			t.Errorf("%s counts %v, want %v", k, got, n)
		}
	}
	if got := c.Slots.UndeclaredItem["天气"]; got != (item{Failed: 1}) || c.Slots.Undeclared != 1 {
		t.Errorf("undeclared slot 天气 = %+v (%d undeclared)", got, c.Slots.Undeclared)
	}
	if c.Items != 29 || c.Passing != 9 || c.FailingOnly != 1 || c.Untested != 19 || c.Ratio != schema.R(10, 29) {
		t.Errorf("totals %+v", c.CoverageCounts)
	}
}

// Shards merge to the whole run's figures: two forked collectors fed
// disjoint results, merged, give the coverage of one collector fed them
// all (whatever the split).
func TestCoverageMergesAcrossShards(t *testing.T) {
	s := zhSuite(t)
	fams := extensions.Default().Families
	results := zhResults()
	whole := assert.NewCollector(s, fams)
	for i, r := range results {
		whole.AddAt(r, nil, int64(i))
	}
	want, _ := json.Marshal(whole.Metrics())
	for _, shard := range [][]int{{0, 1, 2}, {3, 4}, {0, 4}, {}, {0, 1, 2, 3, 4}} {
		base := assert.NewCollector(s, fams)
		a, b := base.Fork(), base.Fork()
		in := map[int]bool{}
		for _, i := range shard {
			in[i] = true
		}
		for i, r := range results {
			if in[i] {
				a.AddAt(r, nil, int64(i))
			} else {
				b.AddAt(r, nil, int64(i))
			}
		}
		base.Merge(a)
		base.Merge(b)
		got, _ := json.Marshal(base.Metrics())
		if string(got) != string(want) {
			t.Errorf("shard %v: merged metrics differ from the whole run's\n%s\nwant\n%s", shard, got, want)
		}
	}
	if c := schema.CoverageOf(&whole.Metrics().Node); c == nil || c.Intents.Item["查询天气"] != (schema.CoverageItem{Failed: 1}) {
		t.Fatalf("the whole run's coverage: %+v", c)
	}
}

// The model's kinds are the tree's, in the same order.
func TestKindsMatchTheTree(t *testing.T) {
	if got := botmodel.KindNames(); !slices.Equal(got, schema.CoverageKinds) {
		t.Errorf("botmodel kinds %q, schema %q", got, schema.CoverageKinds)
	}
}

// The turn's events a rasa target with tracker_events records: an action
// run, the dialogue stack's flow frames during the turn (one step id in
// the pre-3.8 form), a bot message's response, a flow started and a form
// — the trace items are exercised by the passing case, the response only
// seen.
func TestCoverageFromTurnEvents(t *testing.T) {
	s := zhSuite(t)
	col := assert.NewCollector(s, extensions.Default().Families)
	col.Add(&schema.Result{Case: schema.Case{ID: "W", Text: "上海天气", Template: "天气", Source: "天气", SourceKind: schema.KindTemplate},
		Outcome: schema.Pass, State: json.RawMessage(`{"events":[{"event":"action","name":"action_查询天气"},` +
			`{"event":"stack","frames":[{"flow_id":"查天气","step_id":"查天气_0_call_选城市"},{"flow_id":"选城市","step_id":"0_collect_城市"}]},` +
			`{"event":"stack","frames":[{"flow_id":"pattern_collect_information","step_id":"START"}]},` +
			`{"event":"bot","metadata":{"utter_action":"utter_询问城市"}},{"event":"flow_started","flow_id":"查天气"},` +
			`{"event":"active_loop","name":"订餐表单"},{"event":"action","name":"action_listen"}]}`)}, nil)
	c := schema.CoverageOf(&col.Metrics().Node)
	ran := schema.CoverageItem{Passed: 1, Seen: 1}
	for _, x := range []struct {
		kind, name string
		want       schema.CoverageItem
	}{
		{"actions", "action_查询天气", ran},
		{"flows", "查天气", ran},
		{"flows", "选城市", ran},
		{"flows", "订餐", schema.CoverageItem{}},
		{"flow_steps", "查天气/查天气_0_call_选城市", ran},
		{"flow_steps", "选城市/选城市_0_collect_城市", ran},
		{"flow_steps", "查天气/查天气_1_action_查询天气", schema.CoverageItem{}},
		{"forms", "订餐表单", ran},
		{"responses", "utter_询问城市", schema.CoverageItem{Seen: 1}},
	} {
		if got := (*c.Kind(x.kind)).Item[x.name]; got != x.want {
			t.Errorf("%s %s = %+v, want %+v", x.kind, x.name, got, x.want)
		}
	}
	if c.Actions.Undeclared != 0 || c.Flows.Undeclared != 0 {
		t.Errorf("what the bot ran but the model lacks is no undeclared item: %+v %+v", c.Actions.CoverageCounts, c.Flows.CoverageCounts)
	}
}
