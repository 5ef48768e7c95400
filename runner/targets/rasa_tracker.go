package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// This file reads a Rasa conversation's dialogue state (SPEC §14.4): after
// each webhook turn, GET {url}/conversations/{sender}/tracker
// (Rasa's HTTP API, "Retrieve a conversations tracker"; the server must
// run with --enable-api), recorded as the result's state.

// trackerKeys are the members of Rasa's tracker a result records, in this
// order: what expectations and conditions address (stack is Rasa Pro's
// dialogue stack: the flows under way and the step each is at). The rest
// — events above all, which grow with every turn and would make
// results.jsonl grow with the square of a conversation's length (with
// tracker_events, only the turn's own events are kept: rasa_trace.go),
// and the repeated sender_id, latest_event_time, paused and
// latest_input_channel — is left out.
var trackerKeys = []string{"slots", "latest_message", "latest_action_name", "active_loop", "stack"}

// decodeTracker reads a rasa block's tracker and tracker_token.
func decodeTracker(d *spec.TargetDecoder, attrs hcl.Attributes, h *rasaConfig) {
	h.Tracker = d.Bool(attrs, "tracker", false)
	if a, ok := attrs["tracker"]; ok && h.Tracker && h.Mode != "webhook" {
		d.Errorf(a.Expr.Range().Ptr(), "Tracker needs the webhook mode",
			"tracker = true reads the state of a conversation with the bot, which only mode = \"webhook\" has; add mode = \"webhook\" or remove tracker.")
	}
	if a, ok := attrs["tracker_token"]; ok {
		if !h.Tracker {
			d.Errorf(a.Expr.Range().Ptr(), "Tracker token without tracker",
				"tracker_token is the auth token of the tracker requests tracker = true makes; add tracker = true or remove tracker_token.")
		}
		h.TokenVar = d.SensitiveVar(a.Expr, "tracker_token")
	}
	h.TrackerEvents = d.Bool(attrs, "tracker_events", false)
	if a, ok := attrs["tracker_events"]; ok && h.TrackerEvents && !h.Tracker {
		d.Errorf(a.Expr.Range().Ptr(), "Tracker events without tracker",
			"tracker_events = true records the events of each turn from the tracker tracker = true reads; add tracker = true or remove tracker_events.")
	}
	d.Target.State = h.Tracker
}

// trackerPreview caps the tracker's answer quoted in a TrackerError.
const trackerPreview = 200

// trackerReader reads the tracker of a conversation after a webhook turn.
type trackerReader struct {
	h *httpCaller
	// base is the server's URL without a trailing slash; query the
	// tracker request's query (include_events=NONE, and the token).
	base, query string
	header      http.Header
	// events: keep the turn's events (the request asks for them all).
	events bool
}

func newTrackerReader(h *httpCaller, base string, token cty.Value, events bool) *trackerReader {
	q := url.Values{"include_events": {"NONE"}}
	if events {
		q.Set("include_events", "AFTER_RESTART")
	}
	if token.IsKnown() && !token.IsNull() && token.Type() == cty.String && token.AsString() != "" {
		q.Set("token", token.AsString())
	}
	hdr := h.headers.Clone()
	hdr.Del("Content-Type") // a GET has no body
	return &trackerReader{h: h, base: base, query: q.Encode(), header: hdr, events: events}
}

// read fetches the tracker of the conversation req was sent in and sets
// r.State; a failure (non-2xx, not a JSON object, timeout, reset) makes r
// an error of type TrackerError, except an interrupted read (Ctrl-C),
// which stays the transport's so the turn is left unrecorded.
func (t *trackerReader) read(ctx context.Context, r *schema.Result, req transport.Request) {
	var sent struct {
		Sender string `json:"sender"`
	}
	if err := json.Unmarshal(req.Body, &sent); err != nil || sent.Sender == "" {
		t.fail(r, "the webhook request names no sender")
		return
	}
	u := t.base + "/conversations/" + url.PathEscape(sent.Sender) + "/tracker?" + t.query
	resp := t.h.client.Do(ctx, transport.Request{Method: http.MethodGet, URL: u, Header: t.header})
	if resp.Interrupted {
		r.Error, r.Outcome = resp.Err, schema.Error
		return
	}
	if resp.Err != nil {
		e := resp.Err
		if e.Type == schema.ErrInvalidJSON && len(resp.Body) > 0 {
			e = transport.InvalidJSON(t.h.redactBody(resp.Body)) // its preview quotes the body
		}
		msg := e.Type + ": " + e.Message
		if len(resp.Body) > 0 && e.Type != schema.ErrInvalidJSON {
			// Redacted whole before it is cut, as a call's error body is.
			msg += "; body: " + truncateUTF8(t.h.redactBody(resp.Body), trackerPreview)
		}
		t.fail(r, msg)
		return
	}
	state, err := trackerState(resp.Body, t.events)
	if err != nil {
		t.fail(r, err.Error()+": "+truncateUTF8(bytes.TrimSpace(t.h.redactBody(resp.Body)), trackerPreview))
		return
	}
	r.State = json.RawMessage(t.h.red.JSON(state))
}

// fail makes r a TrackerError saying why the tracker could not be read.
func (t *trackerReader) fail(r *schema.Result, why string) {
	msg := fmt.Sprintf("reading the conversation's tracker (GET %s/conversations/…/tracker) failed: %s", t.base, why)
	r.Error = &schema.CallError{Type: schema.ErrTracker, Message: t.h.red.String(msg)}
	r.Outcome = schema.Error
}

// trackerState keeps trackerKeys of a tracker, compact, in their order;
// a tracker that is not a JSON object is an error.
func trackerState(body []byte, events bool) ([]byte, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(body, &all); err != nil || all == nil {
		return nil, fmt.Errorf("the answer is not a JSON object")
	}
	var b bytes.Buffer
	b.WriteByte('{')
	member := func(k string, v []byte) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", k)
		return json.Compact(&b, v)
	}
	for _, k := range trackerKeys {
		if v, ok := all[k]; ok {
			if err := member(k, v); err != nil {
				return nil, err
			}
		}
	}
	if events {
		ev, err := turnEvents(all["events"])
		if err != nil {
			return nil, err
		}
		if err := member("events", ev); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
