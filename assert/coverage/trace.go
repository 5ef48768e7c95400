package coverage

import (
	"encoding/json"
	"reflect"

	"github.com/nlutest/nlutest/spec/botmodel"
)

// This file reads what a case's recorded dialogue state shows: Rasa's
// tracker as the rasa target records it (runner/targets/rasa_tracker.go:
// slots, latest_message, latest_action_name, active_loop, the dialogue
// stack of Rasa Pro, and the turn's events when tracker_events is on).

// state records what a recorded tracker shows.
func (ix *index) state(a *analysis, st map[string]any) {
	if lm, ok := st["latest_message"].(map[string]any); ok {
		if in, ok := lm["intent"].(map[string]any); ok {
			if s, ok := in["name"].(string); ok {
				a.show(ix.item(botmodel.Intent, s))
			}
		}
		ents, _ := lm["entities"].([]any)
		for _, e := range ents {
			if obj, ok := e.(map[string]any); ok {
				if s, ok := obj["entity"].(string); ok {
					a.show(ix.item(botmodel.Entity, s))
				}
			}
		}
	}
	if slots, ok := st["slots"].(map[string]any); ok {
		for name, v := range slots {
			i, ok := ix.m.Lookup(botmodel.Slot, name)
			if !ok || v == nil {
				continue
			}
			if it := &ix.m.Items[i]; it.HasInitial && sameValue(v, it.Initial) {
				continue
			}
			a.show(ref{i: int32(i)})
		}
	}
	if s, ok := st["latest_action_name"].(string); ok {
		a.show(ix.action(s))
	}
	if al, ok := st["active_loop"].(map[string]any); ok {
		if s, ok := al["name"].(string); ok {
			a.show(ix.item(botmodel.Form, s))
		}
	}
	frames, _ := st["stack"].([]any)
	for _, f := range frames {
		if obj, ok := f.(map[string]any); ok {
			ix.frame(a, obj)
		}
	}
	events, _ := st["events"].([]any)
	for _, e := range events {
		if obj, ok := e.(map[string]any); ok {
			ix.event(a, obj)
		}
	}
}

// frame records a dialogue stack frame's flow and step.
func (ix *index) frame(a *analysis, f map[string]any) {
	flow, _ := f["flow_id"].(string)
	if flow == "" {
		return
	}
	a.show(ix.item(botmodel.Flow, flow))
	if step, _ := f["step_id"].(string); step != "" {
		if i, ok := ix.m.LookupStep(flow, step); ok {
			a.show(ref{i: int32(i)})
		}
	}
}

// event records one of the turn's tracker events: an action run (an
// utter_ action is a response), a bot message's response
// (metadata.utter_action), a flow started, and the steps the dialogue
// stack passed through (the rasa target resolves the stack's patches
// into frames: {"event": "stack", "frames": […]}).
func (ix *index) event(a *analysis, e map[string]any) {
	switch e["event"] {
	case "action":
		if s, ok := e["name"].(string); ok {
			a.show(ix.action(s))
		}
	case "bot":
		if md, ok := e["metadata"].(map[string]any); ok {
			if s, ok := md["utter_action"].(string); ok {
				a.show(ix.item(botmodel.Response, s))
			}
		}
	case "flow_started", "flow_completed", "flow_resumed", "flow_interrupted", "flow_cancelled":
		if s, ok := e["flow_id"].(string); ok {
			a.show(ix.item(botmodel.Flow, s))
		}
	case "active_loop":
		if s, ok := e["name"].(string); ok {
			a.show(ix.item(botmodel.Form, s))
		}
	case "stack":
		frames, _ := e["frames"].([]any)
		for _, f := range frames {
			if obj, ok := f.(map[string]any); ok {
				ix.frame(a, obj)
			}
		}
	}
}

// sameValue compares a tracker value (JSON: int64, float64 …) with a
// domain's initial value (YAML: int, float64 …) as JSON values.
func sameValue(x, y any) bool {
	bx, err1 := json.Marshal(x)
	by, err2 := json.Marshal(y)
	if err1 != nil || err2 != nil {
		return false
	}
	var vx, vy any
	if json.Unmarshal(bx, &vx) != nil || json.Unmarshal(by, &vy) != nil {
		return false
	}
	return reflect.DeepEqual(vx, vy)
}
