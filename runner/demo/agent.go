package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// This file is the demo's tool-using agent (docs/demo.md, "The agent"):
// POST /v1/chat/completions, OpenAI-compatible, stateless as that API is.
// It reads the conversation it is sent, decides — by rules over the demo
// NLU's entities, deterministically — whether to call tools, which and
// with what arguments, and once the tool results are back answers from
// them. Two defects are planted so an agent suite shows real failures:
//
//  1. A flight-status question ("CA1234航班状态") calls search_flights
//     with {"flight_no": …} instead of flight_status.
//  2. For the city 广州 (Guangzhou) the date argument is dropped from
//     search_flights and book_flight.
//
// The agent calls only tools the request offers (its tools list), never
// with tool_choice "none". It checks the protocol as OpenAI's API does: a
// tool message must answer a tool_call_id of the assistant message before
// it, and every call of that message must be answered before the next
// user or assistant message (400 otherwise).

// Tools the agent knows, by name.
const (
	ToolSearchFlights = "search_flights"
	ToolBookFlight    = "book_flight"
	ToolGetWeather    = "get_weather"
	ToolFlightStatus  = "flight_status"
	ToolCancelBooking = "cancel_booking"
)

// AgentDropsDateFor is the city whose date argument the agent drops
// (planted defect 2).
const AgentDropsDateFor = "广州"

// AgentModel is the model name the agent reports when the request names
// none.
const AgentModel = "demo-agent"

// agentRequest is the part of a chat-completions request the agent reads.
type agentRequest struct {
	Model      string          `json:"model"`
	Messages   []agentMessage  `json:"messages"`
	Tools      []agentTool     `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

// agentMessage is one message of the conversation.
type agentMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []AgentToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	text       string
}

type agentTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// AgentToolCall is a tool call as OpenAI's API writes it.
type AgentToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// agentAnswer is the agent's chat completion.
type agentAnswer struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int           `json:"created"`
	Model   string        `json:"model"`
	Choices []agentChoice `json:"choices"`
	Usage   agentUsage    `json:"usage"`
}

type agentChoice struct {
	Index        int             `json:"index"`
	Message      agentOutMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
}

type agentOutMessage struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	ToolCalls []AgentToolCall `json:"tool_calls,omitempty"`
}

type agentUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// handleAgent serves POST /v1/chat/completions.
func handleAgent(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			agentError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", MaxRequestBytes))
			return
		}
		agentError(w, http.StatusBadRequest, "cannot read request body: "+err.Error())
		return
	}
	var req agentRequest
	if err := json.Unmarshal(body, &req); err != nil {
		agentError(w, http.StatusBadRequest, "request body is not a chat completion request: "+err.Error())
		return
	}
	if err := req.check(); err != nil {
		agentError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, req.answer())
}

// agentError answers in OpenAI's error shape.
func agentError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}

// check reads the messages' texts and checks the tool-call protocol.
func (req *agentRequest) check() error {
	if len(req.Messages) == 0 {
		return errors.New("messages must be a non-empty array")
	}
	pending := map[string]bool{} // calls of the last assistant message not answered yet
	for i := range req.Messages {
		m := &req.Messages[i]
		if err := m.readContent(); err != nil {
			return fmt.Errorf("messages[%d]: %v", i, err)
		}
		switch m.Role {
		case "system", "user", "assistant":
			if len(pending) > 0 {
				return fmt.Errorf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %s", i, firstKey(pending))
			}
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Errorf("messages[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; %q answers none", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %s", firstKey(pending))
	}
	return nil
}

func firstKey(m map[string]bool) string {
	best := ""
	for k := range m {
		if best == "" || k < best {
			best = k
		}
	}
	return strconv.Quote(best)
}

// readContent reads a message's content: a string, or null (an
// assistant message with tool calls).
func (m *agentMessage) readContent() error {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || string(c) == "null" {
		return nil
	}
	if c[0] != '"' {
		return errors.New("the demo agent reads content as a string")
	}
	return json.Unmarshal(c, &m.text)
}

// answer is the agent's completion for the request.
func (req *agentRequest) answer() agentAnswer {
	out := agentOutMessage{Role: "assistant"}
	finish := "stop"
	plan := req.plan()
	if len(plan.calls) > 0 {
		out.ToolCalls, finish = plan.calls, "tool_calls"
	} else {
		text := plan.text
		out.Content = &text
	}
	model := req.Model
	if model == "" {
		model = AgentModel
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += utf8.RuneCountInString(m.text)
		for _, c := range m.ToolCalls {
			prompt += utf8.RuneCountInString(c.Function.Arguments)
		}
	}
	completion := utf8.RuneCountInString(plan.text)
	for _, c := range plan.calls {
		completion += utf8.RuneCountInString(c.Function.Arguments)
	}
	return agentAnswer{
		ID: "chatcmpl-demo-" + strconv.Itoa(len(req.Messages)), Object: "chat.completion", Model: model,
		Choices: []agentChoice{{Message: out, FinishReason: finish}},
		Usage:   agentUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion},
	}
}

// agentPlan is what the agent does next: call tools, or answer.
type agentPlan struct {
	calls []AgentToolCall
	text  string
}

// offers reports whether the request offers the tool and allows calls.
func (req *agentRequest) offers(name string) bool {
	if string(bytes.TrimSpace(req.ToolChoice)) == `"none"` {
		return false
	}
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// toolExchange is one call the agent made after the last user message,
// with its result.
type toolExchange struct {
	// step numbers the assistant messages with calls after the user's.
	step   int
	name   string
	args   map[string]any
	result map[string]any
}

// plan decides the next step from the conversation: the task of the
// latest user message that names one (and the slots said since), and
// the tool calls made for it after the last user message.
func (req *agentRequest) plan() agentPlan {
	last := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return agentPlan{text: "您好，我可以帮您查航班、订机票、查天气。"}
	}
	t := readTask(req.Messages[:last+1])
	done := req.exchanges(last)
	if len(done) > 0 {
		return req.afterTools(t, done)
	}
	return req.start(t)
}

// exchanges are the tool calls made after message last, with results.
func (req *agentRequest) exchanges(last int) []toolExchange {
	var out []toolExchange
	byID := map[string]int{}
	step := 0
	for _, m := range req.Messages[last+1:] {
		if len(m.ToolCalls) > 0 {
			step++
		}
		for _, c := range m.ToolCalls {
			var args map[string]any
			_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
			byID[c.ID] = len(out)
			out = append(out, toolExchange{step: step, name: c.Function.Name, args: args})
		}
		if m.Role == "tool" {
			if i, ok := byID[m.ToolCallID]; ok {
				var res map[string]any
				if json.Unmarshal([]byte(m.text), &res) != nil {
					res = map[string]any{"text": m.text}
				}
				out[i].result = res
			}
		}
	}
	return out
}

// callSeq numbers the agent's calls over the conversation, so ids are
// the same every run: call_1, call_2…
func (req *agentRequest) callSeq() int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.ToolCalls)
	}
	return n
}

// call is a tool call with arguments args (keys sorted, as json.Marshal
// writes a map).
func (req *agentRequest) call(n int, name string, args map[string]string) AgentToolCall {
	b, _ := json.Marshal(args)
	c := AgentToolCall{ID: "call_" + strconv.Itoa(n), Type: "function"}
	c.Function.Name, c.Function.Arguments = name, string(b)
	return c
}

// calls makes the tool calls of one step: one per argument set.
func (req *agentRequest) calls(name string, argSets ...map[string]string) agentPlan {
	n := req.callSeq()
	var p agentPlan
	for i, a := range argSets {
		p.calls = append(p.calls, req.call(n+i+1, name, a))
	}
	return p
}

// cannot is the answer when the tool a task needs is not offered.
func cannot(t task, what string) agentPlan {
	return agentPlan{text: t.say("抱歉，我现在无法"+what+"。", "Sorry, I cannot "+what+" right now.")}
}
