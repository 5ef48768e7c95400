package schema

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/mutate"
)

// reflectLine is what encoding/json writes for v with HTML escaping off —
// the reference the hand-written encoder must match byte for byte.
func reflectLine(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestResultLineMatchesEncodingJSON(t *testing.T) {
	started := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
	base := Case{ID: "6d47b2342ceb4c34", Suite: "iao-hotel", Template: "hotel-roommates", Text: "查询13301791708的酒店同房间人员",
		Level: "S1", Core: true, Scene: []string{"关系分析", "伴随分析"}, Split: []string{"smoke"}, Schema: "IAO",
		Slots:  map[string]Slot{"伴随关系": {Value: "酒店同房间", Normalized: "酒店同房间同宿", Tag: "伴随关系"}, "手机号11位": {Value: "13301791708"}},
		Expect: Expectations{{Path: "$.code", Value: int64(200)}, {Path: "$.data[0].content.ont", Value: "SIM_Card"}}}
	cases := map[string]Result{
		"pass": {Case: base, Target: "demo", Request: &Request{Method: "POST", URL: "http://127.0.0.1:9/iao", Headers: map[string]string{"Content-Type": "application/json", "Authorization": "[redacted]"}, Body: `{"query":"<查询>&"}`},
			Status: 200, Headers: map[string]string{"Content-Type": "application/json"}, Response: json.RawMessage(`{"code": 200, "msg": "a \"q\" \\ b",` + "\n" + ` "data": [ ]}`),
			LatencyMS: 12.345, Attempts: 1, Started: started, Outcome: Pass},
		"error": {Case: Case{ID: "x", Suite: "s", Template: "t", Text: "\u0001控制"}, Target: "nlu", Body: "not json\x00", LatencyMS: 1e-7, Attempts: 3, Cached: true,
			Error: &CallError{Type: ErrInvalidJSON, Message: "bad <json>"}, Outcome: Error},
		"fail": {Case: base, Target: "demo", LatencyMS: 0, Outcome: Fail,
			Failures: []Failure{{Kind: "expect", Path: "$.x", Expected: "a", Actual: []any{"b", 1.5}, Dimension: "relation", File: "s.nlutest.hcl", Line: 3}, {Kind: "assert", Message: "x < y", Missing: true}}},
		"redirected": {Case: base, Target: "nlu", Request: &Request{Method: "POST", URL: "http://127.0.0.1:9/a", Redirects: []string{"http://127.0.0.1:9/b", "http://127.0.0.1:9/c?q=<&>"}},
			Status: 200, Response: json.RawMessage(`{}`), Attempts: 1, Started: started, Outcome: Pass},
		"simulated": {Case: Case{ID: "s/2", Text: "去上海", Script: "s", Turn: 2, Reason: "llm"}, Target: "bot", Status: 200, Response: json.RawMessage(`{"text":"哪天出发？"}`), Reply: "哪天出发？",
			Attempts: 1, Started: started, Outcome: Pass, Simulator: &Judgement{Target: "llm-user", Attempts: 1, Reply: "明天",
				Request: &Request{Method: "POST", URL: "http://127.0.0.1:9/v1/chat/completions", BodyFromPrevious: 812, Body: `,{"role":"assistant","content":"去上海"},{"role":"user","content":"哪天出发？"}]}`}}},
		"body from previous": {Case: base, Target: "nlu", Request: &Request{Method: "POST", BodyFromPrevious: 3, Body: `"x"}`}, Outcome: Pass},
		"tracker": {Case: Case{ID: "c/1", Text: "我想订去上海的票", Script: "c", Turn: 1, Expect: Expectations{{Path: "state:$.slots.城市", Value: "上海"}}}, Target: "rasa",
			Status: 200, Response: json.RawMessage(`[{"recipient_id":"c","text":"哪天出发？"}]`), Reply: "哪天出发？",
			State: json.RawMessage(`{"slots": {"城市": "上海", "日期": null}, "active_loop": {"name": "订票表单"}}`), Attempts: 1, Started: started, Outcome: Pass},
		"agent": {Case: Case{ID: "a/2", Text: "订明天去上海的机票", Script: "a", Turn: 2, Expect: Expectations{{Path: "tool:book_flight:$.city", Value: "上海"}, {Path: "final:$.bookings[0].date", Value: "明天"}}},
			Target: "agent", Status: 200, Response: json.RawMessage(`{"choices":[{"message":{"content":"已为您预订 <MU5101> & 订单号B-1"}}]}`), Reply: "已为您预订",
			ToolCalls: []ToolCall{{Step: 1, ID: "call_1", Name: "search_flights", Arguments: json.RawMessage(`{"city":"上海","date":"明天"}`), Result: json.RawMessage(`{"flights":[{"id":"MU5101"}]}`)},
				{Step: 2, ID: "call_2", Name: "book_flight", ArgumentsText: "{\"city\":", Error: "the arguments are not JSON: unexpected end", Result: json.RawMessage(`{"error":"arguments are not JSON"}`)},
				{Step: 2, Name: "查天气", Arguments: json.RawMessage(`{}`), ResultText: "长<结果>…", Error: "no mock for tool \"查天气\""}},
			EarlierTools: []string{"search_flights", "get_weather"}, LatencyMS: 3.5, Attempts: 2, ScriptTurns: 2, Started: started,
			FinalState: &FinalState{From: "mocks", State: json.RawMessage(`{"bookings":[{"city":"上海","date":"明天"}]}`)}, Outcome: Pass},
		"final state error": {Case: Case{ID: "b/1", Script: "b", Turn: 1}, Target: "agent", Response: json.RawMessage(`{}`), ScriptTurns: 1,
			FinalState: &FinalState{From: "url", Request: &Request{Method: "GET", URL: "http://127.0.0.1:9/state/b-1"}, Status: 503, Body: "down", LatencyMS: 2,
				Error: &CallError{Type: ErrFinalState, Message: "HTTP 503"}}, Outcome: Fail},
	}
	for name, r := range cases {
		got, err := EncodeLine(&r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := reflectLine(t, &r); !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
		var back Result
		if err := back.UnmarshalJSON(bytes.TrimSpace(got)); err != nil {
			t.Fatalf("%s: reading back: %v", name, err)
		}
		again, _ := EncodeLine(&back)
		if !bytes.Equal(again, got) {
			t.Errorf("%s: does not survive a round trip:\n%s\n%s", name, got, again)
		}
		// AppendResultLine (the results writer's group buffer) appends
		// the same line after what the buffer holds.
		prefix := []byte("{\"id\":\"前一行\"}\n")
		if app, err := AppendResultLine(bytes.Clone(prefix), &r); err != nil || !bytes.Equal(app, append(bytes.Clone(prefix), got...)) {
			t.Errorf("%s: AppendResultLine = %q, %v; want the prefix and %q", name, app, err, got)
		}
	}
	// started as time.Time's MarshalJSON writes it, and its errors.
	for _, at := range []time.Time{
		time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 12, 2, 3, 4, 5, 100, time.FixedZone("北京", 8*3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60))),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -25*3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 23*3600+59*60+30)),
	} {
		r := Result{Case: Case{ID: "时刻"}, Started: at}
		got, err := EncodeLine(&r)
		want, werr := json.Marshal(at)
		if (err == nil) != (werr == nil) || err != nil && !strings.Contains(err.Error(), strings.TrimPrefix(werr.Error(), "json: error calling MarshalJSON for type time.Time: ")) {
			t.Errorf("started %v: error %v, want one like %v", at, err, werr)
			continue
		}
		if err == nil && !bytes.Contains(got, append([]byte(`"started":`), want...)) {
			t.Errorf("started %v: %s, want %s", at, got, want)
		}
	}
	// A result that cannot be encoded leaves the buffer as it was.
	bad := Result{Case: Case{ID: "坏"}, Response: json.RawMessage(`{"未完`)}
	prefix := []byte("{\"id\":\"前一行\"}\n")
	if app, err := AppendResultLine(bytes.Clone(prefix), &bad); err == nil || !bytes.Equal(app, prefix) {
		t.Errorf("AppendResultLine of an invalid response = %q, %v; want the buffer unchanged and an error", app, err)
	}
}

// The default reply is the response when it is one JSON string (escapes
// decoded), else empty.
func TestReplyOf(t *testing.T) {
	for _, tc := range []struct{ resp, want string }{
		{`"您好，请问去哪里？"`, "您好，请问去哪里？"},
		{`"a\nb \u4e2d"`, "a\nb 中"},
		{`{"text":"hi"}`, ""},
		{`["hi"]`, ""},
		{``, ""},
		{`"broken`, ""},
	} {
		if got := ReplyOf([]byte(tc.resp)); got != tc.want {
			t.Errorf("ReplyOf(%s) = %q, want %q", tc.resp, got, tc.want)
		}
	}
}

// rawSamples are response and state documents, valid and not, that the
// random mutations of TestRawJSONMatchesEncodingJSON start from: compact
// and spaced, Chinese, escapes, whitespace inside strings, U+2028, HTML
// characters, invalid UTF-8, control characters, deep nesting, blanks.
var rawSamples = []string{
	`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`,
	` { "a" : [ 1 , -2.5e+3 , 0.0 , 1E9 , -0 , true , false , null , "\u4e2d\n\"\\\/\b\f\r\t" ] } `,
	`{"text":"订 一张\t票","msg":"a \"q\" \\ b"}`, "{\"k\":\"<b>&\u2028\u2029\"}", `[]`, `{}`, `[[[[[]]]]]`, `"x"`, `0`, `true`,
	"\t\r\n null \n", `{"a":1,}`, `[01]`, `[1.]`, `"\x"`, `"\u12G4"`, "\"tab\there\"", "\"bad\xff\xfeutf8 中\"",
	`{"a" 1}`, `[1 2]`, `nul`, `{"a":1}}`, `[` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 71),
	strings.Repeat(`{"k":`, 80) + `1` + strings.Repeat(`}`, 80), " ", `{"a":"b"`, `"` + "\x7f" + `"`,
}

// TestRawJSONMatchesEncodingJSON: a result's response and state (raw
// JSON, checked by validRaw and written by appendCompactJSON's fast path
// or its loop) give encoding/json's bytes, or an error where it errs, for
// the samples and 30,000 random mutations of them. It fails if the check
// accepts what json.Valid rejects or the fast path skips compaction.
func TestRawJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 12))
	var valid, invalid, spaced int
	check := func(doc []byte, state bool) {
		r := Result{Case: Case{ID: "原始", Text: "订票"}, Target: "本地", Attempts: 1, Outcome: Pass}
		if state {
			r.Response, r.State = json.RawMessage(`{}`), json.RawMessage(doc)
		} else {
			r.Response = json.RawMessage(doc)
		}
		got, err := EncodeLine(&r)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		werr := enc.Encode(&r)
		switch {
		case (err == nil) != (werr == nil):
			t.Fatalf("%q (state %v): error %v, encoding/json's %v", doc, state, err, werr)
		case err == nil && !bytes.Equal(got, want.Bytes()):
			t.Fatalf("%q (state %v):\ngot  %s\nwant %s", doc, state, got, want.Bytes())
		case err == nil:
			valid++
			if bytes.ContainsAny(doc, " \t\r\n") {
				spaced++
			}
		default:
			invalid++
		}
	}
	for _, s := range rawSamples {
		check([]byte(s), false)
		check([]byte(s), true)
	}
	for i := range 30_000 {
		doc := []byte(rawSamples[rng.IntN(len(rawSamples))])
		doc = mutate.Edit(rng, doc, mutate.JSON)
		check(doc, i%2 == 1)
	}
	if valid < 1000 || invalid < 1000 || spaced < 300 || valid-spaced < 300 {
		t.Fatalf("%d valid documents (%d with spaces), %d invalid: too few of one kind", valid, spaced, invalid)
	}
}
