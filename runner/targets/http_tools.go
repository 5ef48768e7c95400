package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
)

// This file maps an http target's own list of tool calls into the
// result's tool_calls (issue 37): an agent behind an HTTP API runs its
// tools itself and reports what it called, so the tools blocks check it
// as they check an openai agent's calls.
//
//	http {
//	  url        = var.agent_url
//	  tool_calls = { path = "$.actions", name = "$.tool", arguments = "$.input", result = "$.output" }
//	}
//
// path selects the calls in the answer (a list, or its elements); name,
// arguments, result and id are JSONPaths inside each call. Arguments that
// are a JSON string holding JSON (OpenAI's form) are read as that JSON.

// toolCallMap is an http target's tool_calls attribute, compiled.
type toolCallMap struct {
	path, name, args, result, id jp.Expr
}

// toolMapKeys are the members of tool_calls; path and name are required.
var toolMapKeys = []string{"path", "name", "arguments", "result", "id"}

// decodeToolMap reads an http block's tool_calls attribute (nil without).
func decodeToolMap(d *spec.TargetDecoder, attrs hcl.Attributes) (*toolCallMap, bool) {
	a, ok := attrs["tool_calls"]
	if !ok {
		return nil, true
	}
	m := d.StringMap(attrs, "tool_calls")
	bad := func(detail string, args ...any) (*toolCallMap, bool) {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid tool_calls", detail, args...)
		return nil, false
	}
	if m["path"] == "" || m["name"] == "" {
		return bad("tool_calls maps the answer's own list of tool calls: { path = \"$.actions\", name = \"$.name\", arguments = \"$.args\" } (path and name required; result and id optional).")
	}
	out := &toolCallMap{}
	dst := map[string]*jp.Expr{"path": &out.path, "name": &out.name, "arguments": &out.args, "result": &out.result, "id": &out.id}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := dst[k]
		if !ok {
			return bad("tool_calls has no member %q; its members are %q.%s", k, toolMapKeys, didYouMeanTool(k, toolMapKeys))
		}
		x, _, err := jsonpath.Compile(m[k])
		if err != nil {
			return bad("tool_calls' %s is not a JSONPath: %v.", k, err)
		}
		*p = x
	}
	return out, true
}

// then is dec followed by the mapping of the answer's tool calls (dec nil:
// the reply is the response when it is a JSON string).
func (m *toolCallMap) then(dec func(*schema.Result, *hcl.EvalContext) error, red interface {
	String(string) string
	JSON([]byte) []byte
}) func(*schema.Result, *hcl.EvalContext) error {
	return func(r *schema.Result, ctx *hcl.EvalContext) error {
		if dec == nil {
			r.Reply = schema.ReplyOf(r.Response)
		} else if err := dec(r, ctx); err != nil {
			return err
		}
		m.apply(r, red)
		return nil
	}
}

// apply records the calls the answer lists (at most MaxToolCallsPerTurn).
func (m *toolCallMap) apply(r *schema.Result, red interface{ JSON([]byte) []byte }) {
	doc, err := oj.Parse(r.Response)
	if err != nil {
		return
	}
	items := m.path.Get(doc)
	if len(items) == 1 {
		if list, ok := items[0].([]any); ok {
			items = list
		}
	}
	for _, it := range items {
		if len(r.ToolCalls) >= schema.MaxToolCallsPerTurn {
			return
		}
		tc := schema.ToolCall{Step: 1}
		if s, ok := first(m.name, it).(string); ok {
			tc.Name = s
		} else {
			tc.Error = fmt.Sprintf("the call has no name at %s", m.name)
		}
		if m.id != nil {
			tc.ID, _ = first(m.id, it).(string)
		}
		if m.args != nil {
			setArgs(&tc, first(m.args, it), red)
		}
		if got := m.get(m.result, it); len(got) > 0 {
			if b, err := json.Marshal(got[0]); err == nil {
				if len(b) <= schema.MaxToolResultBytes {
					tc.Result = json.RawMessage(b)
				} else {
					tc.ResultText = truncateUTF8(b, schema.MaxToolResultBytes)
				}
			}
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
}

// get is what x selects in v; nothing for a path not given.
func (m *toolCallMap) get(x jp.Expr, v any) []any {
	if x == nil {
		return nil
	}
	return x.Get(v)
}

// first is the first node x selects in v (nil when none).
func first(x jp.Expr, v any) any {
	if got := x.Get(v); len(got) > 0 {
		return got[0]
	}
	return nil
}

// setArgs records a mapped call's arguments: a string holding JSON is
// that JSON, a string that is not is recorded as text and an error.
func setArgs(tc *schema.ToolCall, v any, red interface{ JSON([]byte) []byte }) {
	raw, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s)); err != nil {
			tc.ArgumentsText = truncateUTF8([]byte(s), schema.MaxToolArgumentBytes)
			if tc.Error == "" {
				tc.Error = "the arguments are not JSON: " + err.Error()
			}
			return
		}
		raw = buf.Bytes()
	}
	if len(raw) > schema.MaxToolArgumentBytes {
		tc.ArgumentsText = truncateUTF8(raw, schema.MaxToolArgumentBytes)
		if tc.Error == "" {
			tc.Error = fmt.Sprintf("the arguments of %d bytes are over the %d-byte cap of a recorded call", len(raw), schema.MaxToolArgumentBytes)
		}
		return
	}
	tc.Arguments = json.RawMessage(red.JSON(raw))
}
