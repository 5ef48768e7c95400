package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// agentTools offers every tool the agent knows.
var agentTools = []map[string]any{
	{"type": "function", "function": map[string]any{"name": ToolSearchFlights}},
	{"type": "function", "function": map[string]any{"name": ToolBookFlight}},
	{"type": "function", "function": map[string]any{"name": ToolGetWeather}},
	{"type": "function", "function": map[string]any{"name": ToolFlightStatus}},
	{"type": "function", "function": map[string]any{"name": ToolCancelBooking}},
}

// agentResults are the fixed tool results the test client gives back.
var agentResults = map[string]string{
	ToolSearchFlights: `{"flights":[{"id":"MU5101"},{"id":"CA1858"}]}`,
	ToolBookFlight:    `{"order_id":"B-1024"}`,
	ToolGetWeather:    `{"weather":"晴","temperature":25}`,
	ToolFlightStatus:  `{"status":"准点"}`,
	ToolCancelBooking: `{"cancelled":true}`,
}

// agentPost sends a chat-completions request to the agent's handler.
func agentPost(t *testing.T, h http.Handler, req map[string]any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(req)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(b)))
	out, _ := io.ReadAll(rec.Body)
	return rec.Code, out
}

// agentTurn plays one user turn the way a chat-completions client does:
// send, and while the answer calls tools, append the assistant message
// and one tool message per call (the result from agentResults), and send
// again. It returns the calls made ("name args" per call, a step's calls
// joined by " | ") and the final reply, and the messages after the turn.
func agentTurn(t *testing.T, h http.Handler, msgs []any, user string, tools []map[string]any) ([]string, string, []any) {
	t.Helper()
	msgs = append(msgs, map[string]any{"role": "user", "content": user})
	var steps []string
	for range 5 {
		code, body := agentPost(t, h, map[string]any{"model": "m", "messages": msgs, "tools": tools})
		if code != http.StatusOK {
			t.Fatalf("%q: status %d: %s", user, code, body)
		}
		var a struct {
			Choices []struct {
				Message struct {
					Content   *string         `json:"content"`
					ToolCalls []AgentToolCall `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		m := a.Choices[0].Message
		if len(m.ToolCalls) == 0 {
			if a.Choices[0].FinishReason != "stop" || m.Content == nil {
				t.Fatalf("%q: an answer without calls: %s", user, body)
			}
			return steps, *m.Content, append(msgs, map[string]any{"role": "assistant", "content": *m.Content})
		}
		if a.Choices[0].FinishReason != "tool_calls" {
			t.Fatalf("%q: calls with finish_reason %q", user, a.Choices[0].FinishReason)
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": m.ToolCalls})
		var step []string
		for _, c := range m.ToolCalls {
			step = append(step, c.Function.Name+" "+c.Function.Arguments)
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": c.ID, "content": agentResults[c.Function.Name]})
		}
		steps = append(steps, strings.Join(step, " | "))
	}
	t.Fatalf("%q: still calling tools after 5 steps: %v", user, steps)
	return nil, "", nil
}

// The agent's tool calls and replies, planted defects included, turn by
// turn as a client that answers every call sees them.
func TestAgentCallsTools(t *testing.T) {
	h := Handler()
	for _, tc := range []struct {
		name  string
		turns []string
		calls [][]string // per turn
		reply string     // of the last turn
	}{
		{"search", []string{"帮我查一下明天去上海的航班"}, [][]string{{`search_flights {"city":"上海","date":"明天"}`}}, "为您找到2个航班：MU5101、CA1858"},
		{"book: search, then book the first flight", []string{"帮我订明天去北京的机票"},
			[][]string{{`search_flights {"city":"北京","date":"明天"}`, `book_flight {"city":"北京","date":"明天","flight_id":"MU5101"}`}},
			"已为您预订明天去北京的MU5101航班，订单号B-1024"},
		{"defect 2: 广州 loses its date", []string{"帮我订后天去广州的机票"},
			[][]string{{`search_flights {"city":"广州"}`, `book_flight {"city":"广州","flight_id":"MU5101"}`}}, "已为您预订去广州的MU5101航班，订单号B-1024"},
		{"weather in two cities: parallel calls", []string{"北京和上海明天天气怎么样"},
			[][]string{{`get_weather {"city":"北京","date":"明天"} | get_weather {"city":"上海","date":"明天"}`}}, "北京明天晴，25°C；上海明天晴，25°C"},
		{"defect 1: a flight status searches flights", []string{"CA1234航班状态怎么样"}, [][]string{{`search_flights {"flight_no":"CA1234"}`}}, "为您找到2个航班：MU5101、CA1858"},
		{"cancel", []string{"取消订单B-1024"}, [][]string{{`cancel_booking {"order_id":"B-1024"}`}}, "订单B-1024已取消"},
		{"cancel an order named after its flight", []string{"取消订单B-MU5101"}, [][]string{{`cancel_booking {"order_id":"B-MU5101"}`}}, "订单B-MU5101已取消"},
		{"slots over turns", []string{"我想订机票", "去成都", "明天"},
			[][]string{nil, nil, {`search_flights {"city":"成都","date":"明天"}`, `book_flight {"city":"成都","date":"明天","flight_id":"MU5101"}`}},
			"已为您预订明天去成都的MU5101航班，订单号B-1024"},
		{"weather, then another city", []string{"上海今天天气如何", "那深圳呢"},
			[][]string{{`get_weather {"city":"上海","date":"今天"}`}, {`get_weather {"city":"深圳","date":"今天"}`}}, "深圳今天晴，25°C"},
		{"small talk", []string{"你好"}, [][]string{nil}, "您好，我可以帮您查航班、订机票、查天气。"},
		{"english", []string{"what is the weather in Paris tomorrow"}, [][]string{{`get_weather {"city":"Paris","date":"tomorrow"}`}}, "Paris tomorrow: 晴, 25°C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msgs []any
			var reply string
			for i, u := range tc.turns {
				var calls []string
				calls, reply, msgs = agentTurn(t, h, msgs, u, agentTools)
				if strings.Join(calls, "\n") != strings.Join(tc.calls[i], "\n") {
					t.Errorf("turn %d %q: calls\n%s\nwant\n%s", i+1, u, strings.Join(calls, "\n"), strings.Join(tc.calls[i], "\n"))
				}
			}
			if reply != tc.reply {
				t.Errorf("reply %q, want %q", reply, tc.reply)
			}
		})
	}
}

// The agent asks for what is missing, calls only offered tools, never
// with tool_choice "none", and numbers its calls across the conversation.
func TestAgentAsksAndRespectsTools(t *testing.T) {
	h := Handler()
	_, reply, _ := agentTurn(t, h, nil, "我想订机票", agentTools)
	if reply != "请问您要去哪个城市？" {
		t.Errorf("no city: %q", reply)
	}
	_, reply, _ = agentTurn(t, h, nil, "我想订去上海的机票", agentTools)
	if reply != "请问您哪天出发？" {
		t.Errorf("no date: %q", reply)
	}
	calls, reply, _ := agentTurn(t, h, nil, "明天北京天气", agentTools[:1])
	if len(calls) != 0 || reply != "抱歉，我现在无法查天气。" {
		t.Errorf("weather without get_weather offered: %v %q", calls, reply)
	}
	code, body := agentPost(t, h, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "明天北京天气"}}, "tools": agentTools, "tool_choice": "none"})
	if code != 200 || !strings.Contains(string(body), `"content":"抱歉，我现在无法查天气。"`) {
		t.Errorf("tool_choice none: %d %s", code, body)
	}
	_, _, msgs := agentTurn(t, h, nil, "明天北京天气", agentTools)
	code, body = agentPost(t, h, map[string]any{"messages": append(msgs, map[string]any{"role": "user", "content": "上海呢"}), "tools": agentTools})
	if code != 200 || !strings.Contains(string(body), `"id":"call_2"`) {
		t.Errorf("the second call of a conversation is not call_2: %s", body)
	}
	// Byte-identical answers for the same request.
	req := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "帮我订明天去北京的机票"}}, "tools": agentTools}
	_, a := agentPost(t, h, req)
	_, b := agentPost(t, h, req)
	if !bytes.Equal(a, b) {
		t.Errorf("two answers differ:\n%s\n%s", a, b)
	}
}

// A request that breaks the chat-completions protocol is a 400 in
// OpenAI's error shape, never a guess.
func TestAgentRefusesBrokenProtocol(t *testing.T) {
	h := Handler()
	call := map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": "{}"}}
	for _, tc := range []struct {
		name string
		msgs []any
		want string
	}{
		{"no messages", []any{}, "non-empty"},
		{"unanswered call", []any{map[string]any{"role": "user", "content": "天气"}, map[string]any{"role": "assistant", "tool_calls": []any{call}}},
			`missing "call_1"`},
		{"unanswered before the next user message", []any{map[string]any{"role": "assistant", "tool_calls": []any{call}}, map[string]any{"role": "user", "content": "x"}},
			`missing "call_1"`},
		{"tool message answering nothing", []any{map[string]any{"role": "user", "content": "x"}, map[string]any{"role": "tool", "tool_call_id": "call_9", "content": "{}"}},
			`"call_9" answers none`},
		{"content parts", []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "x"}}}}, "content as a string"},
		{"unknown role", []any{map[string]any{"role": "robot", "content": "x"}}, `unknown role "robot"`},
	} {
		code, body := agentPost(t, h, map[string]any{"messages": tc.msgs})
		var e struct {
			Error struct{ Message, Type string } `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		if code != http.StatusBadRequest || !strings.Contains(e.Error.Message, tc.want) || e.Error.Type != "invalid_request_error" {
			t.Errorf("%s: %d %s, want 400 with %q", tc.name, code, body, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader("{not json")))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("invalid JSON: %d", rec.Code)
	}
}
