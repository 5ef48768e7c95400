package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/tools"
)

// This file runs tool-using agents over OpenAI's chat-completions API
// (issue 37): an openai target (or the demo's agent) offers the suite's
// tool blocks as the request's tools; while the answer calls tools
// (choices[0].message.tool_calls), each call is answered by its mock
// tool, the assistant message and one tool message per call are appended
// to the conversation, and the model is asked again — at most
// max_tool_steps requests per turn. Every call is recorded on the turn's
// result (schema.ToolCall), and the session keeps the whole exchange,
// tool messages included, for the conversation's later turns, with the
// mock state the calls' effects make (final_state's from = "mocks").

// DefaultMaxToolSteps is an openai target's max_tool_steps by default:
// the model requests of one turn.
const DefaultMaxToolSteps = 8

// toolAgent is what a caller needs to run tool calls.
type toolAgent struct {
	suite *spec.Suite
	// names are the tools offered, defs their definitions (the request's
	// tools member).
	names    []string
	defs     []byte
	maxSteps int
	// prefix is the body's start ({"model":M,"messages":[), system the
	// system message, params the members after the messages.
	prefix []byte
	system string
	params []byte
	sess   openaiSession
	// final reads the last answer of a turn (openaiDecode, or
	// openaiDecodeJSON for content = "json").
	final func(*schema.Result, *hcl.EvalContext) error
}

// toolSession is the session of one conversation with a tool-using
// agent.
type toolSession struct {
	h *httpCaller
	a *toolAgent
	// msgs are the conversation's messages so far (JSON, system aside).
	msgs [][]byte
	// state is the mock state the calls' effects made.
	state tools.MockState
}

func (s *toolSession) Close() {}

// FinalState reads the script's final state: the mock state, or the
// state endpoint.
func (s *toolSession) FinalState(ctx context.Context, q *schema.FinalStateQuery, last *schema.Result) *schema.FinalState {
	return s.h.finalState(ctx, q, last, s.state)
}

// message is one chat message as JSON.
func message(role, content string) []byte {
	b := append([]byte(`{"role":"`), role...)
	c, _ := json.Marshal(content)
	return append(append(append(b, `","content":`...), c...), '}')
}

// body is the request of one step: the system message, the messages, the
// tools, the session's user and the params.
func (s *toolSession) body(turn [][]byte, user string) []byte {
	a := s.a
	b := bytes.Clone(a.prefix)
	first := true
	add := func(m []byte) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, m...)
	}
	if a.system != "" {
		add(message("system", a.system))
	}
	for _, m := range s.msgs {
		add(m)
	}
	for _, m := range turn {
		add(m)
	}
	b = append(append(b, `],"tools":`...), a.defs...)
	if user != "" {
		u, _ := json.Marshal(user)
		b = append(append(b, `,"user":`...), u...)
	}
	if len(a.params) > 0 {
		b = append(append(b, ','), a.params...)
	}
	return append(b, '}')
}

// Call runs one user turn: the model's requests and the mock tools'
// answers until an answer calls no tool.
func (s *toolSession) Call(ctx context.Context, c *schema.Case, history []schema.Message) *schema.Result {
	if c.Judge != nil || c.Simulate != nil {
		return s.h.call(ctx, c, history)
	}
	h := s.h
	if c.Conversation == "" && h.ownSession {
		single := *c
		single.Conversation = runner.NewSessionID(c.ID)
		c = &single
	}
	user := ""
	if s.a.sess.user {
		user = c.Conversation
	}
	hdr := h.headers
	if h.caseHeader != nil {
		hdr = h.caseHeader(c, hdr)
	}
	r := &schema.Result{Case: *c, Target: h.target.Name, Started: time.Now().UTC(), Cached: true}
	turn := [][]byte{message("user", c.Text)}
	var usage schema.Usage
	usageSeen := false
	for step := 1; ; step++ {
		req := transport.Request{Method: http.MethodPost, URL: h.url, Header: hdr, Body: s.body(turn, user)}
		sr := &schema.Result{Case: *c, Target: h.target.Name, Started: r.Started,
			Request: &schema.Request{Method: req.Method, URL: h.red.String(req.URL), Headers: h.recordHeaders(req.Header), Body: h.red.String(string(req.Body))}}
		if step == 1 {
			r.Request = sr.Request
		}
		h.do(ctx, sr, c, req, openaiDecode)
		r.Status, r.Headers, r.Response, r.Body = sr.Status, sr.Headers, sr.Response, sr.Body
		r.LatencyMS = math.Round((r.LatencyMS+sr.LatencyMS)*1000) / 1000
		r.Attempts += sr.Attempts
		r.Cached = r.Cached && sr.Cached
		if sr.Usage != nil {
			usageSeen = true
			usage.PromptTokens += sr.Usage.PromptTokens
			usage.CompletionTokens += sr.Usage.CompletionTokens
			usage.TotalTokens += sr.Usage.TotalTokens
		}
		if usageSeen {
			u := usage
			r.Usage = &u
		}
		if sr.Error != nil {
			r.Error, r.Outcome = sr.Error, schema.Error
			return r
		}
		assistant, calls, err := toolCallsOf(sr.Response)
		if err != nil {
			r.Error, r.Outcome = &schema.CallError{Type: ErrReply, Message: h.red.String(err.Error())}, schema.Error
			return r
		}
		if len(calls) == 0 {
			s.finish(r, c, turn)
			return r
		}
		if step >= s.a.maxSteps || len(r.ToolCalls)+len(calls) > schema.MaxToolCallsPerTurn {
			r.ToolCalls = append(r.ToolCalls, s.unanswered(step, calls)...)
			r.Error = &schema.CallError{Type: schema.ErrToolLoop, Message: fmt.Sprintf("the agent still called tools after %d model requests (max_tool_steps %d, at most %d calls a turn): %s",
				step, s.a.maxSteps, schema.MaxToolCallsPerTurn, schema.QuoteNames(schema.ToolNames(nil, r.ToolCalls[max(0, len(r.ToolCalls)-len(calls)):])))}
			r.Outcome = schema.Error
			return r
		}
		turn = append(turn, assistant)
		for _, call := range calls {
			rec, content := s.answer(step, call)
			r.ToolCalls = append(r.ToolCalls, rec)
			turn = append(turn, toolMessage(call.ID, content))
		}
	}
}

// finish reads a turn's final answer (its reply, or with content =
// "json" its document) and keeps the turn in the conversation.
func (s *toolSession) finish(r *schema.Result, c *schema.Case, turn [][]byte) {
	usage := r.Usage
	s.h.decodeReply(r, c, s.a.final)
	r.Usage = usage
	if r.Error != nil {
		return
	}
	s.msgs = append(s.msgs, turn...)
	s.msgs = append(s.msgs, message("assistant", r.Reply))
}

// toolMessage is the tool message answering call id with content.
func toolMessage(id, content string) []byte {
	i, _ := json.Marshal(id)
	c, _ := json.Marshal(content)
	b := append([]byte(`{"role":"tool","tool_call_id":`), i...)
	return append(append(append(b, `,"content":`...), c...), '}')
}

// agentCall is one tool call as an answer gives it.
type agentCall struct {
	ID, Name string
	// Args is the arguments' text: OpenAI sends a JSON string holding
	// JSON; a server that sends an object gives its JSON.
	Args string
}

// toolCallsOf reads the tool calls of a chat completion: the assistant
// message (as given, to send back) and its calls; none for an answer in
// words.
func toolCallsOf(resp []byte) ([]byte, []agentCall, error) {
	var a struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(resp, &a); err != nil || len(a.Choices) == 0 {
		return nil, nil, fmt.Errorf("the answer is not a chat completion with choices")
	}
	var m struct {
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(a.Choices[0].Message, &m); err != nil {
		return nil, nil, fmt.Errorf("the answer's message is not a chat message: %v", err)
	}
	calls := make([]agentCall, 0, len(m.ToolCalls))
	for _, tc := range m.ToolCalls {
		c := agentCall{ID: tc.ID, Name: tc.Function.Name, Args: string(tc.Function.Arguments)}
		var text string
		if json.Unmarshal(tc.Function.Arguments, &text) == nil {
			c.Args = text
		}
		calls = append(calls, c)
	}
	return a.Choices[0].Message, calls, nil
}

// answer answers one call with its mock tool and returns its record and
// the tool message's content (the result as JSON text).
func (s *toolSession) answer(step int, call agentCall) (schema.ToolCall, string) {
	red := s.h.red
	rec := schema.ToolCall{Step: step, ID: call.ID, Name: call.Name}
	args := []byte(strings.TrimSpace(call.Args))
	var result []byte
	var problem string
	switch {
	case !json.Valid(args):
		var v any
		err := json.Unmarshal(args, &v)
		problem = fmt.Sprintf("the arguments are not JSON: %v", err)
	case !s.offered(call.Name):
		problem = fmt.Sprintf("%s %q", schema.NoMockPrefix, call.Name)
	default:
		var err error
		if result, err = s.a.suite.Tools[call.Name].Answer(s.a.suite.BaseContext(), args, s.ensureState()); err != nil {
			problem = "mock: " + err.Error()
		}
	}
	if problem != "" {
		result, _ = json.Marshal(map[string]string{"error": problem})
		rec.Error = red.String(problem)
	}
	var compact bytes.Buffer
	switch {
	case json.Compact(&compact, args) != nil:
		rec.ArgumentsText = truncateUTF8([]byte(red.String(call.Args)), schema.MaxToolArgumentBytes)
	case compact.Len() > schema.MaxToolArgumentBytes:
		rec.ArgumentsText = truncateUTF8(red.JSON(compact.Bytes()), schema.MaxToolArgumentBytes)
		if rec.Error == "" {
			rec.Error = fmt.Sprintf("the arguments of %d bytes are over the %d-byte cap of a recorded call", compact.Len(), schema.MaxToolArgumentBytes)
		}
	default:
		rec.Arguments = json.RawMessage(red.JSON(compact.Bytes()))
	}
	if len(result) <= schema.MaxToolResultBytes {
		rec.Result = json.RawMessage(red.JSON(result))
	} else {
		rec.ResultText = truncateUTF8(red.JSON(result), schema.MaxToolResultBytes)
	}
	return rec, string(result)
}

// unanswered records the calls of an answer over the limits, unanswered.
func (s *toolSession) unanswered(step int, calls []agentCall) []schema.ToolCall {
	var out []schema.ToolCall
	for _, c := range calls {
		if len(out)+1 > schema.MaxToolCallsPerTurn {
			break
		}
		rec := schema.ToolCall{Step: step, ID: c.ID, Name: c.Name, Error: "not answered: the turn is over its limits"}
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(c.Args)) == nil && compact.Len() <= schema.MaxToolArgumentBytes {
			rec.Arguments = json.RawMessage(s.h.red.JSON(compact.Bytes()))
		} else {
			rec.ArgumentsText = truncateUTF8([]byte(s.h.red.String(c.Args)), schema.MaxToolArgumentBytes)
		}
		out = append(out, rec)
	}
	return out
}

func (s *toolSession) offered(name string) bool {
	for _, n := range s.a.names {
		if n == name {
			return true
		}
	}
	return false
}

func (s *toolSession) ensureState() tools.MockState {
	if s.state == nil {
		s.state = tools.MockState{}
	}
	return s.state
}

// newToolAgent is the tool agent of a caller offering the named tools of
// the suite (nil when it offers none).
func newToolAgent(suite *spec.Suite, names []string, maxSteps int, prefix []byte, system string, params []byte, sess openaiSession, final func(*schema.Result, *hcl.EvalContext) error) *toolAgent {
	if len(names) == 0 {
		return nil
	}
	if maxSteps <= 0 {
		maxSteps = DefaultMaxToolSteps
	}
	return &toolAgent{suite: suite, names: names, defs: tools.Defs(suite.Tools, names), maxSteps: maxSteps, prefix: prefix, system: system, params: params, sess: sess, final: final}
}

// didYouMeanTool suggests the tool name nearest to n.
func didYouMeanTool(n string, names []string) string {
	if best := spec.SuggestName(n, names); best != "" {
		return fmt.Sprintf(" Did you mean %q?", best)
	}
	return ""
}
