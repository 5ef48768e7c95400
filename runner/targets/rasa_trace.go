package targets

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file keeps a turn's events when a rasa target has tracker_events
// = true: the tracker is read with include_events=AFTER_RESTART and the
// result's state gets "events", the events after the turn's user message
// (all of them on a bot-first turn), each cut to what says what the bot
// did — an action run (its name), a bot message's response
// (metadata.utter_action), a slot set, a form (active_loop) started or
// ended, a flow started, completed, interrupted, resumed or cancelled —
// and, for each update of Rasa Pro's dialogue stack (an event "stack"
// whose update is a JSON patch of the stack), the flow frames the stack
// then holds, as {"event": "stack", "frames": [{"flow_id", "step_id"}]}:
// the steps the flows passed through during the turn, which the tracker's
// stack after the turn does not show (metrics.coverage's flow steps,
// assert/coverage). Only the turn's events are kept, so a result's size
// does not grow with the conversation; the request does (the whole
// conversation's events, read and dropped each turn).

// turnEvents returns the turn's events, cut, as a JSON array.
func turnEvents(raw json.RawMessage) ([]byte, error) {
	var events []map[string]any
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &events); err != nil {
			return nil, fmt.Errorf("the tracker's events are not a list of objects")
		}
	}
	start := 0
	for i, e := range events {
		if e["event"] == "user" {
			start = i + 1
		}
	}
	var stack []map[string]any
	out := []map[string]any{}
	for i, e := range events {
		kind, _ := e["event"].(string)
		if kind == "stack" {
			update, _ := e["update"].(string)
			stack = applyStackPatch(stack, update)
			if i >= start {
				out = append(out, map[string]any{"event": "stack", "frames": flowFrames(stack)})
			}
			continue
		}
		if i < start {
			continue
		}
		if c := cutEvent(kind, e); c != nil {
			out = append(out, c)
		}
	}
	return json.Marshal(out)
}

// cutEvent keeps what an event says the bot did; nil for other events.
func cutEvent(kind string, e map[string]any) map[string]any {
	keep := func(keys ...string) map[string]any {
		c := map[string]any{"event": kind}
		for _, k := range keys {
			if v, ok := e[k]; ok {
				c[k] = v
			}
		}
		return c
	}
	switch kind {
	case "action", "active_loop":
		return keep("name")
	case "slot":
		return keep("name", "value")
	case "flow_started", "flow_completed", "flow_interrupted", "flow_resumed", "flow_cancelled":
		return keep("flow_id", "step_id")
	case "bot":
		md, _ := e["metadata"].(map[string]any)
		if u, ok := md["utter_action"].(string); ok {
			return map[string]any{"event": kind, "metadata": map[string]any{"utter_action": u}}
		}
		return map[string]any{"event": kind}
	}
	return nil
}

// flowFrames are the frames of a dialogue stack that run a flow, each cut
// to its flow_id and step_id, bottom first.
func flowFrames(stack []map[string]any) []map[string]any {
	out := []map[string]any{}
	for _, f := range stack {
		if id, ok := f["flow_id"].(string); ok && id != "" {
			out = append(out, map[string]any{"flow_id": id, "step_id": f["step_id"]})
		}
	}
	return out
}

// patchOp is one operation of a JSON patch (RFC 6902), as Rasa's
// DialogueStackUpdated events carry them (jsonpatch.make_patch of the
// stack's frames).
type patchOp struct {
	Op, Path, From string
	Value          any
}

// applyStackPatch applies a JSON patch to a stack of frames. Operations
// it cannot apply (a path outside the stack, deeper than a frame's
// member) are skipped: the frames are for reading, not for Rasa.
func applyStackPatch(stack []map[string]any, update string) []map[string]any {
	var ops []patchOp
	if json.Unmarshal([]byte(update), &ops) != nil {
		return stack
	}
	for _, op := range ops {
		switch op.Op {
		case "add", "replace":
			stack = setAt(stack, op.Path, op.Value, op.Op == "add")
		case "remove":
			stack, _ = removeAt(stack, op.Path)
		case "move", "copy":
			v, ok := valueAt(stack, op.From)
			if !ok {
				continue
			}
			if op.Op == "move" {
				stack, _ = removeAt(stack, op.From)
			} else if f, ok := v.(map[string]any); ok {
				v = maps.Clone(f)
			}
			stack = setAt(stack, op.Path, v, true)
		}
	}
	return stack
}

// pointer splits a JSON pointer into the stack: "" (the whole stack),
// "/i" (a frame; "-" past the end) or "/i/key" (a member of a frame).
func pointer(stack []map[string]any, p string, adding bool) (idx int, key string, whole, ok bool) {
	if p == "" {
		return 0, "", true, true
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if !strings.HasPrefix(p, "/") || len(parts) > 2 {
		return 0, "", false, false
	}
	if parts[0] == "-" && adding && len(parts) == 1 {
		return len(stack), "", false, true
	}
	i, err := strconv.Atoi(parts[0])
	limit := len(stack)
	if adding && len(parts) == 1 {
		limit++
	}
	if err != nil || i < 0 || i >= limit {
		return 0, "", false, false
	}
	if len(parts) == 2 {
		key = strings.ReplaceAll(strings.ReplaceAll(parts[1], "~1", "/"), "~0", "~")
	}
	return i, key, false, true
}

func setAt(stack []map[string]any, p string, v any, adding bool) []map[string]any {
	i, key, whole, ok := pointer(stack, p, adding)
	switch {
	case !ok:
	case whole:
		list, _ := v.([]any)
		stack = stack[:0:0]
		for _, x := range list {
			f, _ := x.(map[string]any)
			stack = append(stack, f)
		}
	case key != "":
		if stack[i] == nil {
			stack[i] = map[string]any{}
		}
		stack[i][key] = v
	default:
		f, _ := v.(map[string]any)
		if adding {
			stack = slices.Insert(stack, i, f)
		} else {
			stack[i] = f
		}
	}
	return stack
}

func removeAt(stack []map[string]any, p string) ([]map[string]any, bool) {
	i, key, whole, ok := pointer(stack, p, false)
	switch {
	case !ok:
		return stack, false
	case whole:
		return nil, true
	case key != "":
		delete(stack[i], key)
		return stack, true
	}
	return slices.Delete(stack, i, i+1), true
}

func valueAt(stack []map[string]any, p string) (any, bool) {
	i, key, whole, ok := pointer(stack, p, false)
	switch {
	case !ok || whole:
		return nil, false
	case key != "":
		v, ok := stack[i][key]
		return v, ok
	}
	return stack[i], true
}
