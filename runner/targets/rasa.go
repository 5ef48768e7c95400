package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// rasaKind calls a Rasa server; url and headers may use only var.
//
// mode "parse" (the default) posts {"text": …} to /model/parse (NLU only).
// mode "webhook" talks to the bot through Rasa's REST channel: POST
// /webhooks/rest/webhook with {"sender": the conversation id, "message":
// …}; the response is the JSON array of the bot's messages (buttons,
// images and custom payloads kept) and the reply their texts joined by
// "\n". The conversation's state lives on the Rasa server, keyed by sender;
// with tracker = true (webhook only) the caller reads it after each turn
// from GET /conversations/{sender}/tracker and records it as the result's
// state (rasa_tracker.go).
//
//	rasa {
//	  url     = "http://localhost:5005"
//	  mode    = "webhook"
//	  tracker = true
//	  tracker_token = var.rasa_token   # optional: Rasa's --auth-token, sent as ?token=
//	  tracker_events = true            # optional: also record the turn's events (rasa_trace.go)
//	}
type rasaKind struct{}

var rasaSchema = &hcl.BodySchema{
	Attributes: withConnAttrs(hcl.AttributeSchema{Name: "url", Required: true}, hcl.AttributeSchema{Name: "headers"}, hcl.AttributeSchema{Name: "mode"},
		hcl.AttributeSchema{Name: "tracker"}, hcl.AttributeSchema{Name: "tracker_token"}, hcl.AttributeSchema{Name: "tracker_events"}),
}

// rasaConfig is a rasa target's request (url and headers) and its mode.
type rasaConfig struct {
	httpConfig
	Mode string
	// Tracker: read the conversation's tracker after each webhook turn;
	// TokenVar names the sensitive variable holding Rasa's auth token
	// (empty: none).
	Tracker  bool
	TokenVar string
	// TrackerEvents: record the turn's events too (rasa_trace.go).
	TrackerEvents bool
}

// rasaModes are the values of a rasa target's mode.
var rasaModes = []string{"parse", "webhook"}

func (rasaKind) Name() string { return "rasa" }

func (rasaKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, rasaSchema)
	if !ok {
		return nil, false
	}
	h := &rasaConfig{httpConfig: httpConfig{URL: c.Attributes["url"].Expr, Static: true}}
	if h.Conn, ok = decodeConn(d, c.Attributes); !ok {
		return nil, false
	}
	if a, ok := c.Attributes["headers"]; ok {
		h.Headers = a.Expr
	}
	for _, e := range []hcl.Expression{h.URL, h.Headers} {
		if e != nil && !d.OnlyVar(e, "rasa target attribute") {
			return nil, false
		}
	}
	h.Mode = d.String(c.Attributes, "mode", "parse")
	if !slices.Contains(rasaModes, h.Mode) {
		d.Errorf(c.Attributes["mode"].Expr.Range().Ptr(), "Unknown rasa mode", "mode is \"parse\" (POST /model/parse, the NLU alone) or \"webhook\" (the bot, through the REST channel); %q is neither.", h.Mode)
	}
	decodeTracker(d, c.Attributes, h)
	d.PerCase(h.URL, h.Headers)
	d.EvalNow(func(ctx *hcl.EvalContext) hcl.Diagnostics {
		_, _, _, diags := evalStatic(&h.httpConfig, ctx)
		return diags
	}, h.URL, h.Headers)
	return h, true
}

func (rasaKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*rasaConfig)
	hc, err := newHTTPCaller(b, "", cfg.Conn)
	if err != nil {
		return nil, err
	}
	var diags hcl.Diagnostics
	hc.url, hc.method, hc.headers, diags = evalStatic(&cfg.httpConfig, b.Suite.BaseContext())
	if diags.HasErrors() {
		hc.Close()
		return nil, &runner.ConfigError{Diags: diags}
	}
	hc.method = http.MethodPost
	hc.headers.Set("Content-Type", "application/json")
	base := strings.TrimSuffix(hc.url, "/")
	if cfg.Mode == "webhook" {
		hc.url = base + "/webhooks/rest/webhook"
		hc.fixedBody = rasaWebhookBody
		hc.decode = rasaWebhookReply
		if cfg.Tracker {
			hc.after = newTrackerReader(hc, base, b.Suite.Vars[cfg.TokenVar], cfg.TrackerEvents).read
		}
		return hc, nil
	}
	hc.url = base + "/model/parse"
	hc.fixedBody = textBody("text")
	return hc, nil
}

// RasaSessionStart is the message a bot-first turn sends through Rasa's
// REST channel: the session_start intent, written as Rasa's intent
// shorthand, which runs action_session_start (Rasa's default actions: it
// runs "when the user sends a /session_start message") and with it the
// welcome the assistant is built to give.
const RasaSessionStart = "/session_start"

// rasaWebhookBody is {"sender": …, "message": …}: the sender is the
// conversation's session id; a single case gets a session of its own. A
// bot-first turn (case.event "start") sends RasaSessionStart.
func rasaWebhookBody(c *schema.Case, _ []schema.Message) ([]byte, error) {
	sender := c.Conversation
	if sender == "" {
		sender = runner.NewSessionID(c.ID)
	}
	msg := c.Text
	if c.Event == schema.EventStart {
		msg = RasaSessionStart
	}
	return json.Marshal(struct {
		Sender  string `json:"sender"`
		Message string `json:"message"`
	}{sender, msg})
}

// rasaWebhookReply sets the reply: the texts of the bot's messages, in
// order, joined by "\n" (messages without text — buttons alone, images,
// custom payloads — add none; they stay in the response).
func rasaWebhookReply(r *schema.Result, _ *hcl.EvalContext) error {
	var msgs []struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(r.Response, &msgs); err != nil {
		return fmt.Errorf("the REST channel's answer is not a JSON array of messages: %v", err)
	}
	var texts []string
	for _, m := range msgs {
		if m.Text != nil {
			texts = append(texts, *m.Text)
		}
	}
	r.Reply = strings.Join(texts, "\n")
	return nil
}
