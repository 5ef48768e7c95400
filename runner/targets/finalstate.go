package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/tools"
)

// This file reads a script's final state (a final_state block, issue 37)
// for the HTTP kinds' sessions: the mock state of a tool-using agent's
// session, or a GET of the state endpoint through the target's client
// (its timeout, retries, rate, redirect and TLS settings), recorded
// redacted as a response is.

// plainSession is the session of a kind without history: each turn on
// its own, as runner.Stateless's, and the final state through the caller.
type plainSession struct{ h *httpCaller }

func (s plainSession) Call(ctx context.Context, turn *schema.Case, _ []schema.Message) *schema.Result {
	return s.h.call(ctx, turn, nil)
}

func (plainSession) Close() {}

func (s plainSession) FinalState(ctx context.Context, q *schema.FinalStateQuery, last *schema.Result) *schema.FinalState {
	return s.h.finalState(ctx, q, last, nil)
}

func (s httpSession) FinalState(ctx context.Context, q *schema.FinalStateQuery, last *schema.Result) *schema.FinalState {
	return s.h.finalState(ctx, q, last, nil)
}

var (
	_ runner.FinalStater = plainSession{}
	_ runner.FinalStater = httpSession{}
	_ runner.FinalStater = (*toolSession)(nil)
)

// finalState reads the final state of the script whose last turn is
// last: mocks, the session's mock state (nil when the target runs no mock
// tools), or the state endpoint's answer.
func (h *httpCaller) finalState(ctx context.Context, q *schema.FinalStateQuery, last *schema.Result, mocks tools.MockState) *schema.FinalState {
	fail := func(fs *schema.FinalState, msg string) *schema.FinalState {
		fs.Error = &schema.CallError{Type: schema.ErrFinalState, Message: h.red.String(msg)}
		return fs
	}
	if q.Mocks {
		fs := &schema.FinalState{From: "mocks"}
		if h.tools == nil {
			return fail(fs, fmt.Sprintf("target %q runs no mock tools: from = \"mocks\" reads the effects of the tool blocks' answers, which an openai or demo agent target offers its model; read this target's state from its endpoint (url) instead", h.target.Name))
		}
		return h.keepState(fs, mocks.JSON())
	}
	fs := &schema.FinalState{From: "url"}
	u, hdrs, err := q.Request(&last.Case)
	if err != nil {
		return fail(fs, err.Error())
	}
	hdr := http.Header{"Accept": {"application/json"}}
	for k, v := range hdrs {
		hdr.Set(k, v)
	}
	fs.Request = &schema.Request{Method: http.MethodGet, URL: h.red.String(u), Headers: h.red.Headers(hdr)}
	resp := h.client.Do(ctx, transport.Request{Method: http.MethodGet, URL: u, Header: hdr})
	fs.Status = resp.Status
	fs.LatencyMS = float64(resp.Latency.Microseconds()) / 1000
	if resp.Err != nil {
		if len(resp.Body) > 0 {
			fs.Body = truncateUTF8(h.redactBody(resp.Body), maxRecordedBody)
		}
		return fail(fs, resp.Err.Type+": "+resp.Err.Message)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, resp.Body); err != nil {
		fs.Body = truncateUTF8(h.redactBody(resp.Body), maxRecordedBody)
		return fail(fs, "the state endpoint's answer is not JSON: "+err.Error())
	}
	return h.keepState(fs, h.red.JSON(buf.Bytes()))
}

// keepState records state on fs, or says it is over the cap.
func (h *httpCaller) keepState(fs *schema.FinalState, state []byte) *schema.FinalState {
	if len(state) > schema.MaxFinalStateBytes {
		fs.Error = &schema.CallError{Type: schema.ErrFinalState, Message: fmt.Sprintf("the final state of %d bytes is over the %d-byte cap of a recorded state", len(state), schema.MaxFinalStateBytes)}
		return fs
	}
	fs.State = json.RawMessage(state)
	return fs
}
