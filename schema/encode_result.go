package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nlutest/nlutest/jsondoc"
)

// appendResult writes a result record — the case fields, then the call's —
// as encoding/json would (field order, omitempty, sorted map keys, no HTML
// escaping), without reflection: a run writes one per call.
func appendResult(b []byte, r *Result) ([]byte, error) {
	b, err := appendCase(b, &r.Case)
	if err != nil {
		return b, err
	}
	b = b[:len(b)-1] // reopen the case object
	b = append(b, `,"target":`...)
	b = jsondoc.AppendString(b, r.Target)
	if r.Request != nil {
		b = append(b, `,"request":`...)
		b = appendRequest(b, r.Request)
	}
	if r.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	if len(r.Headers) > 0 {
		b = append(b, `,"headers":`...)
		b = appendStringMap(b, r.Headers)
	}
	if len(r.Response) > 0 {
		if !validRaw(r.Response) {
			return b, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: invalid response JSON")
		}
		b = append(b, `,"response":`...)
		b = appendCompactJSON(b, r.Response)
	}
	if r.Body != "" {
		b = append(b, `,"body":`...)
		b = jsondoc.AppendString(b, r.Body)
	}
	if r.Reply != "" {
		b = append(b, `,"reply":`...)
		b = jsondoc.AppendString(b, r.Reply)
	}
	if len(r.State) > 0 {
		if !validRaw(r.State) {
			return b, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: invalid state JSON")
		}
		b = append(b, `,"state":`...)
		b = appendCompactJSON(b, r.State)
	}
	if u := r.Usage; u != nil {
		b = append(b, `,"usage":{"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		b = append(b, '}')
	}
	if b, err = appendTools(b, r); err != nil {
		return b, err
	}
	b = append(b, `,"latency_ms":`...)
	if b, err = jsondoc.AppendFloat(b, r.LatencyMS); err != nil {
		return b, err
	}
	b = append(b, `,"attempts":`...)
	b = strconv.AppendInt(b, int64(r.Attempts), 10)
	if r.Cached {
		b = append(b, `,"cached":true`...)
	}
	if r.ScriptTurns != 0 {
		b = append(b, `,"script_turns":`...)
		b = strconv.AppendInt(b, int64(r.ScriptTurns), 10)
	}
	b = append(b, `,"started":`...)
	if b, err = appendTime(b, r.Started); err != nil {
		return b, err
	}
	if e := r.Error; e != nil {
		b = append(b, `,"error":{"type":`...)
		b = jsondoc.AppendString(b, e.Type)
		b = append(b, `,"message":`...)
		b = jsondoc.AppendString(b, e.Message)
		b = append(b, '}')
	}
	return appendJudgement(b, r)
}

// appendTools writes a turn's tool calls and the names of its script's
// earlier calls (by reflection: only the turns of tool-using agents
// have them).
func appendTools(b []byte, r *Result) ([]byte, error) {
	if len(r.ToolCalls) > 0 {
		tb, err := jsondoc.MarshalNoEscape(r.ToolCalls)
		if err != nil {
			return b, err
		}
		b = append(b, `,"tool_calls":`...)
		b = append(b, tb...)
	}
	if len(r.EarlierTools) > 0 {
		b = append(b, `,"earlier_tools":[`...)
		for i, n := range r.EarlierTools {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsondoc.AppendString(b, n)
		}
		b = append(b, ']')
	}
	return b, nil
}

// appendJudgement writes the final state, the outcome, failures and
// verdict, and closes the result object.
func appendJudgement(b []byte, r *Result) ([]byte, error) {
	if r.FinalState != nil { // one per conversation
		fb, err := jsondoc.MarshalNoEscape(r.FinalState)
		if err != nil {
			return b, err
		}
		b = append(b, `,"final_state":`...)
		b = append(b, fb...)
	}
	b = append(b, `,"outcome":`...)
	b = jsondoc.AppendString(b, r.Outcome.String())
	if len(r.Failures) > 0 {
		fb, err := jsondoc.MarshalNoEscape(r.Failures)
		if err != nil {
			return b, err
		}
		b = append(b, `,"failures":`...)
		b = append(b, fb...)
	}
	if r.Verdict != "" {
		b = append(b, `,"verdict":`...)
		b = jsondoc.AppendString(b, r.Verdict)
	}
	if r.Judge != nil { // one per memory question: reflection is cheap enough
		jb, err := jsondoc.MarshalNoEscape(r.Judge)
		if err != nil {
			return b, err
		}
		b = append(b, `,"judge":`...)
		b = append(b, jb...)
	}
	if r.Simulator != nil { // one per simulated turn
		sb, err := jsondoc.MarshalNoEscape(r.Simulator)
		if err != nil {
			return b, err
		}
		b = append(b, `,"simulator":`...)
		b = append(b, sb...)
	}
	if len(r.Rubrics) > 0 {
		rb, err := jsondoc.MarshalNoEscape(r.Rubrics)
		if err != nil {
			return b, err
		}
		b = append(b, `,"rubrics":`...)
		b = append(b, rb...)
	}
	return append(b, '}'), nil
}

// appendTime writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, quoted), without its allocation; what MarshalJSON refuses
// (a year outside 0000–9999, a zone offset of 24 hours or more) goes to
// MarshalJSON for its error.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off <= -24*3600 || off >= 24*3600 {
		tb, err := t.MarshalJSON()
		return append(b, tb...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendRequest writes the request object, members in field order and
// empty ones left out, as encoding/json does.
func appendRequest(b []byte, q *Request) []byte {
	b = append(b, '{')
	first := true
	field := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	if q.Method != "" {
		field("method")
		b = jsondoc.AppendString(b, q.Method)
	}
	if q.URL != "" {
		field("url")
		b = jsondoc.AppendString(b, q.URL)
	}
	if len(q.Headers) > 0 {
		field("headers")
		b = appendStringMap(b, q.Headers)
	}
	if q.BodyFromPrevious != 0 {
		field("body_from_previous")
		b = strconv.AppendInt(b, int64(q.BodyFromPrevious), 10)
	}
	if q.Body != "" {
		field("body")
		b = jsondoc.AppendString(b, q.Body)
	}
	if len(q.Redirects) > 0 {
		field("redirects")
		b = append(b, '[')
		for i, u := range q.Redirects {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsondoc.AppendString(b, u)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendStringMap writes m with its keys sorted, as encoding/json does;
// small maps (headers) sort on the stack.
func appendStringMap(b []byte, m map[string]string) []byte {
	var arr [8]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsondoc.AppendString(b, k)
		b = append(b, ':')
		b = jsondoc.AppendString(b, m[k])
	}
	return append(b, '}')
}

// validRaw reports whether raw is valid JSON, as json.Valid does (which
// the encoder of a RawMessage asks): the one-pass jsondoc.ProvedValid
// first, json.Valid for what it does not show valid. A recorded response
// is nearly always valid, and compacted already (TestRawJSONMatchesEncodingJSON).
func validRaw(raw []byte) bool {
	return jsondoc.ProvedValid(raw) || json.Valid(raw)
}

// appendCompactJSON appends valid JSON with insignificant spaces removed,
// as encoding/json does for a RawMessage. JSON without a space, tab or
// line break anywhere (a response the caller compacted) is appended whole.
func appendCompactJSON(b []byte, raw []byte) []byte {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return append(b, raw...)
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			b = append(b, c)
			switch c {
			case '\\':
				i++
				if i < len(raw) {
					b = append(b, raw[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			b = append(b, c)
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendResultLine appends r as one JSON line (with the trailing newline),
// the same bytes EncodeLine(r) returns, to dst; on error dst comes back
// as it was.
func AppendResultLine(dst []byte, r *Result) ([]byte, error) {
	b, err := appendResult(dst, r)
	if err != nil {
		return dst, err
	}
	return append(b, '\n'), nil
}

// encodeResultLine is EncodeLine for a result.
func encodeResultLine(r *Result) ([]byte, error) {
	bp := scratch.Get().(*[]byte)
	b, err := appendResult((*bp)[:0], r)
	var line []byte
	if err == nil {
		line = make([]byte, len(b)+1)
		copy(line, b)
		line[len(b)] = '\n'
	}
	if cap(b) <= 1<<20 {
		*bp = b
		scratch.Put(bp)
	}
	return line, err
}
