package targets

import (
	"encoding/json"
	"testing"
)

// A Rasa Pro tracker of a conversation's second turn (events as Rasa's
// tracker endpoint lists them with include_events=AFTER_RESTART): the
// state keeps the dialogue stack, and its events are the turn's alone —
// actions, the response of a bot message, the slot set — with each stack
// patch resolved into the flow frames the stack then held, the first
// turn's stack patches applied but not listed.
func TestTrackerTurnEvents(t *testing.T) {
	tracker := `{"sender_id":"s1","slots":{"城市":"北京","人数":null},
	"latest_message":{"text":"北京","intent":{"name":"inform"},"entities":[]},
	"latest_action_name":"action_listen","active_loop":{},
	"stack":[{"frame_id":"a","flow_id":"订餐","step_id":"订餐_1_collect_人数","frame_type":"regular","type":"flow"}],
	"events":[
	 {"event":"action","name":"action_session_start","timestamp":1},
	 {"event":"session_started","timestamp":2},
	 {"event":"action","name":"action_listen","timestamp":3},
	 {"event":"user","text":"我想订餐","parse_data":{"intent":{"name":"订餐"}}},
	 {"event":"stack","update":"[{\"op\": \"add\", \"path\": \"/0\", \"value\": {\"frame_id\": \"a\", \"flow_id\": \"订餐\", \"step_id\": \"START\", \"frame_type\": \"regular\", \"type\": \"flow\"}}]"},
	 {"event":"flow_started","flow_id":"订餐","metadata":{}},
	 {"event":"stack","update":"[{\"op\": \"replace\", \"path\": \"/0/step_id\", \"value\": \"订餐_0_collect_城市\"}]"},
	 {"event":"bot","text":"请问在哪个城市用餐？","metadata":{"utter_action":"utter_ask_城市"}},
	 {"event":"action","name":"action_listen"},
	 {"event":"user","text":"北京","parse_data":{"intent":{"name":"inform"}}},
	 {"event":"slot","name":"城市","value":"北京","timestamp":9},
	 {"event":"stack","update":"[{\"op\": \"replace\", \"path\": \"/0/step_id\", \"value\": \"订餐_1_collect_人数\"}]"},
	 {"event":"stack","update":"[{\"op\": \"add\", \"path\": \"/1\", \"value\": {\"frame_id\": \"b\", \"flow_id\": \"pattern_collect_information\", \"step_id\": \"START\", \"type\": \"pattern_collect_information\"}}]"},
	 {"event":"action","name":"action_run_slot_rejections"},
	 {"event":"bot","text":"几位？","data":{"buttons":null},"metadata":{"utter_action":"utter_ask_人数"}},
	 {"event":"stack","update":"[{\"op\": \"remove\", \"path\": \"/1\"}]"},
	 {"event":"action","name":"action_listen"}
	],"paused":false,"latest_event_time":10}`
	got, err := trackerState([]byte(tracker), true)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Stack  []map[string]any `json:"stack"`
		Events []map[string]any `json:"events"`
		Paused *bool            `json:"paused"`
	}
	if err := json.Unmarshal(got, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Stack) != 1 || st.Stack[0]["step_id"] != "订餐_1_collect_人数" || st.Paused != nil {
		t.Errorf("state %s", got)
	}
	ev, _ := json.Marshal(st.Events)
	want := `[{"event":"slot","name":"城市","value":"北京"},` +
		`{"event":"stack","frames":[{"flow_id":"订餐","step_id":"订餐_1_collect_人数"}]},` +
		`{"event":"stack","frames":[{"flow_id":"订餐","step_id":"订餐_1_collect_人数"},{"flow_id":"pattern_collect_information","step_id":"START"}]},` +
		`{"event":"action","name":"action_run_slot_rejections"},` +
		`{"event":"bot","metadata":{"utter_action":"utter_ask_人数"}},` +
		`{"event":"stack","frames":[{"flow_id":"订餐","step_id":"订餐_1_collect_人数"}]},` +
		`{"event":"action","name":"action_listen"}]`
	if string(ev) != want {
		t.Errorf("events\n%s\nwant\n%s", ev, want)
	}
	plain, err := trackerState([]byte(tracker), false)
	st.Events = nil
	if err != nil || json.Unmarshal(plain, &st) != nil || st.Events != nil {
		t.Errorf("without tracker_events the state has no events: %s", plain)
	}
	if _, err := trackerState([]byte(`{"events":{"a":1}}`), true); err == nil {
		t.Errorf("events that are no list are an error")
	}
}

// JSON patches of the stack as jsonpatch writes them: add at the end
// ("-"), move, copy, replace of a whole frame and of the whole stack;
// operations outside the stack are skipped.
func TestApplyStackPatch(t *testing.T) {
	var stack []map[string]any
	for _, u := range []string{
		`[{"op":"add","path":"/-","value":{"flow_id":"a","step_id":"1"}}]`,
		`[{"op":"add","path":"/0","value":{"flow_id":"b","step_id":"START"}}]`,
		`[{"op":"move","from":"/0","path":"/1"}]`,
		`[{"op":"copy","from":"/1","path":"/2"},{"op":"replace","path":"/2/flow_id","value":"c"}]`,
		`[{"op":"remove","path":"/7"},{"op":"replace","path":"/0","value":{"flow_id":"d","step_id":"x"}},{"op":"add","path":"/0/a/b","value":1}]`,
		`not json`,
	} {
		stack = applyStackPatch(stack, u)
	}
	got, _ := json.Marshal(flowFrames(stack))
	if string(got) != `[{"flow_id":"d","step_id":"x"},{"flow_id":"b","step_id":"START"},{"flow_id":"c","step_id":"START"}]` {
		t.Errorf("stack %s", got)
	}
	stack = applyStackPatch(stack, `[{"op":"replace","path":"","value":[{"flow_id":"e","step_id":"y"}]}]`)
	if got, _ := json.Marshal(flowFrames(stack)); string(got) != `[{"flow_id":"e","step_id":"y"}]` {
		t.Errorf("whole stack replaced: %s", got)
	}
}
