package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// openaiKind calls any OpenAI-compatible chat-completions server (OpenAI,
// vLLM, llama.cpp server, Ollama's /v1, LM Studio): POST {url}/chat/completions
// with the model, the system message and the whole conversation so far
// (the API is stateless), params merged into the body. The reply is
// choices[0].message.content; the answer's usage is recorded in the
// result's usage. Every attribute may use only var; api_key must be a
// sensitive variable (sent as a Bearer token, redacted everywhere).
//
//	openai {
//	  url     = var.llm_url          # …/v1
//	  model   = "qwen2.5-7b-instruct"
//	  api_key = var.api_key          # optional; variable "api_key" { sensitive = true }
//	  system  = "你是订票助手。"
//	  params  = { temperature = 0 }
//	}
type openaiKind struct{}

var openaiSchema = &hcl.BodySchema{
	Attributes: withConnAttrs(
		hcl.AttributeSchema{Name: "url", Required: true}, hcl.AttributeSchema{Name: "model", Required: true}, hcl.AttributeSchema{Name: "api_key"},
		hcl.AttributeSchema{Name: "system"}, hcl.AttributeSchema{Name: "params"}, hcl.AttributeSchema{Name: "headers"},
		hcl.AttributeSchema{Name: "session"}, hcl.AttributeSchema{Name: "content"},
		hcl.AttributeSchema{Name: "tools"}, hcl.AttributeSchema{Name: "max_tool_steps"},
	),
}

// openaiContents are the values of an openai target's content attribute.
var openaiContents = []string{"text", "json"}

// openaiNoBotFirst is why an openai target refuses bot-first turns.
const openaiNoBotFirst = "the chat-completions API answers a user message, and a system greeting the target would make up is not the bot's welcome. Check the welcome against the rasa webhook or an http target, or leave this conversation out of the openai run (--filter)."

// openaiConfig keeps an openai target's expressions (all var-only,
// evaluated once when the caller is made).
type openaiConfig struct {
	URL, Model, System, Params, Headers hcl.Expression
	// Session is the session attribute: { user = bool, header = "NAME" }
	// (nil: no session identity is sent).
	Session hcl.Expression
	// Content is "text" (the default) or "json": the answer's content
	// is a JSON document, decoded into the recorded response.
	Content string
	// KeyVar is the sensitive variable holding the API key ("" for none).
	KeyVar string
	// Conn are the redirect and TLS settings (httpconn.go).
	Conn *connConfig
	// Tools are the tool blocks offered (tools = [...]; ToolsSet when
	// written, else every tool block of the suite unless the target
	// judges or simulates); MaxToolSteps caps a turn's model requests.
	Tools        []string
	ToolsSet     bool
	MaxToolSteps int
	// offers: the target offers tools, so params may not set tools.
	offers bool
}

func (openaiKind) Name() string { return "openai" }

func (openaiKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, openaiSchema)
	if !ok {
		return nil, false
	}
	cfg := &openaiConfig{URL: c.Attributes["url"].Expr, Model: c.Attributes["model"].Expr}
	if cfg.Conn, ok = decodeConn(d, c.Attributes); !ok {
		return nil, false
	}
	for name, dst := range map[string]*hcl.Expression{"system": &cfg.System, "params": &cfg.Params, "headers": &cfg.Headers, "session": &cfg.Session} {
		if a, ok := c.Attributes[name]; ok {
			*dst = a.Expr
		}
	}
	cfg.Content = d.String(c.Attributes, "content", "text")
	if !slices.Contains(openaiContents, cfg.Content) {
		d.Errorf(c.Attributes["content"].Expr.Range().Ptr(), "Unknown openai content", "content is \"text\" (the reply is the answer's content, the default) or \"json\" (the content is a JSON document that expectations read); %q is neither.", cfg.Content)
	}
	d.RefuseBotFirst(openaiNoBotFirst)
	decodeToolOffer(d, c.Attributes, cfg)
	for _, e := range []hcl.Expression{cfg.URL, cfg.Model, cfg.System, cfg.Params, cfg.Headers, cfg.Session} {
		if e != nil && !d.OnlyVar(e, "openai target attribute") {
			return nil, false
		}
	}
	if a, ok := c.Attributes["api_key"]; ok {
		cfg.KeyVar = d.SensitiveVar(a.Expr, "api_key")
		if cfg.KeyVar == "" {
			return nil, false
		}
	}
	d.EvalNow(func(ctx *hcl.EvalContext) hcl.Diagnostics {
		_, diags := cfg.eval(ctx)
		return diags
	}, cfg.URL, cfg.Model, cfg.System, cfg.Params, cfg.Headers, cfg.Session)
	return cfg, true
}

// openaiValues are an openai target's attributes evaluated.
type openaiValues struct {
	base, model, system string
	hdr                 http.Header
	params              []byte
	session             openaiSession
}

// openaiSession is an openai target's session identity: the session id
// (case.conversation) sent as the body's user member and/or in a header.
type openaiSession struct {
	user   bool
	header string
}

// eval evaluates the attributes (all var-only) in ctx: once when the
// caller is made, and when the suite loads (validate).
func (cfg *openaiConfig) eval(ctx *hcl.EvalContext) (openaiValues, hcl.Diagnostics) {
	var v openaiValues
	var diags, d hcl.Diagnostics
	v.base, _, v.hdr, diags = evalStatic(&httpConfig{URL: cfg.URL, Headers: cfg.Headers}, ctx)
	v.model, d = evalString(cfg.Model, ctx, "model")
	diags = append(diags, d...)
	if cfg.System != nil {
		v.system, d = evalString(cfg.System, ctx, "system")
		diags = append(diags, d...)
	}
	v.params, d = openaiParams(cfg.Params, ctx)
	diags = append(diags, d...)
	v.session, d = evalSession(cfg.Session, ctx)
	diags = append(diags, d...)
	if cfg.offers && bytes.Contains(append([]byte{','}, v.params...), []byte(`,"tools":`)) {
		diags = append(diags, exprDiag(cfg.Params, "Invalid params", "params may not set \"tools\": the target offers the suite's tool blocks (tools = [...] chooses them; tools = [] offers none)."))
	}
	if v.session.user && bytes.Contains(append([]byte{','}, v.params...), []byte(`,"user":`)) {
		diags = append(diags, exprDiag(cfg.Params, "Invalid params", "params may not set \"user\" when session = { user = true } sends the session id there; drop one of them."))
	}
	return v, diags
}

// evalSession evaluates the session attribute: an object with user (a
// bool) and header (a header name), both optional.
func evalSession(e hcl.Expression, ctx *hcl.EvalContext) (openaiSession, hcl.Diagnostics) {
	var sess openaiSession
	if e == nil {
		return sess, nil
	}
	v, diags := e.Value(ctx)
	if diags.HasErrors() || v.IsNull() {
		return sess, diags
	}
	bad := hcl.Diagnostics{exprDiag(e, "Invalid session", "session says how the session id (case.conversation) reaches the server: { user = true } sends it as the body's \"user\" member, { header = \"X-Session-Id\" } in that header; give one or both.")}
	if !v.Type().IsObjectType() {
		return sess, bad
	}
	for name := range v.Type().AttributeTypes() {
		if name != "user" && name != "header" {
			return sess, bad
		}
	}
	if v.Type().HasAttribute("user") {
		u := v.GetAttr("user")
		if u.IsNull() || u.Type() != cty.Bool {
			return sess, bad
		}
		sess.user = u.True()
	}
	if v.Type().HasAttribute("header") {
		h := v.GetAttr("header")
		if h.IsNull() || h.Type() != cty.String || !validHeaderName(h.AsString()) {
			return sess, bad
		}
		sess.header = h.AsString()
	}
	if !sess.user && sess.header == "" {
		return sess, bad
	}
	return sess, nil
}

// validHeaderName reports whether s is an HTTP header name (RFC 9110 token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

func (openaiKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*openaiConfig)
	ev, diags := cfg.eval(b.Suite.BaseContext())
	if diags.HasErrors() {
		return nil, &runner.ConfigError{Diags: diags}
	}
	base, hdr, model, system, params := ev.base, ev.hdr, ev.model, ev.system, ev.params
	if cfg.KeyVar != "" {
		if v := b.Suite.Vars[cfg.KeyVar]; v.IsKnown() && !v.IsNull() && v.Type() == cty.String && v.AsString() != "" {
			hdr.Set("Authorization", "Bearer "+v.AsString())
		}
	}
	hdr.Set("Content-Type", "application/json")
	hc, err := newHTTPCaller(b, "", cfg.Conn)
	if err != nil {
		return nil, err
	}
	hc.url = strings.TrimSuffix(base, "/") + "/chat/completions"
	hc.method = http.MethodPost
	hc.headers = hdr
	hc.withHistory = true
	prefix := openaiPrefix(model)
	simParams := openaiSimParams(params, b.Target.Simulator)
	sess := ev.session
	hc.fixedBody = func(c *schema.Case, history []schema.Message) ([]byte, error) {
		if c.Judge != nil { // judging a memory answer or a rubric (openai_judge.go)
			judgeSystem := system
			if judgeSystem == "" {
				judgeSystem = judgeSystemPrompt(c.Judge)
			}
			return openaiBody(prefix, judgeSystem, nil, judgeMessage(c.Judge), params, ""), nil
		}
		if c.Simulate != nil { // playing a scenario's user (WithUserSimulators)
			return openaiSimBody(prefix, c.Simulate, simParams), nil
		}
		user := ""
		if sess.user {
			user = c.Conversation
		}
		return openaiBody(prefix, system, history, c.Text, params, user), nil
	}
	if sess.user || sess.header != "" {
		hc.ownSession = true
	}
	if sess.header != "" {
		hc.caseHeader = func(c *schema.Case, static http.Header) http.Header {
			if c.Judge != nil || c.Simulate != nil {
				return static
			}
			h := static.Clone()
			h.Set(sess.header, c.Conversation)
			return h
		}
	}
	hc.decode = openaiDecode
	if cfg.Content == "json" {
		hc.decode = openaiDecodeJSON
	}
	names := cfg.Tools
	if !cfg.ToolsSet && b.Target.Judge == nil && b.Target.Simulator == nil {
		names = b.Suite.ToolOrder
	}
	hc.tools = newToolAgent(b.Suite, names, cfg.MaxToolSteps, prefix, system, params, sess, hc.decode)
	return hc, nil
}

// decodeToolOffer reads an openai block's tools (names of tool blocks)
// and max_tool_steps.
func decodeToolOffer(d *spec.TargetDecoder, attrs hcl.Attributes, cfg *openaiConfig) {
	cfg.MaxToolSteps = d.Int(attrs, "max_tool_steps", DefaultMaxToolSteps, 1)
	s := d.Suite()
	cfg.offers = len(s.ToolOrder) > 0
	a, ok := attrs["tools"]
	if !ok {
		return
	}
	cfg.ToolsSet, cfg.Tools = true, d.Strings(attrs, "tools")
	cfg.offers = len(cfg.Tools) > 0
	for _, n := range cfg.Tools {
		if s.Tools[n] == nil {
			d.Errorf(a.Expr.Range().Ptr(), "Unknown tool", "tools names the tool blocks the target offers its model; no tool block is named %q.%s", n, didYouMeanTool(n, s.ToolOrder))
		}
	}
}

// openaiParams evaluates params: an object whose members join the request
// body after model and messages (JSON, keys sorted).
func openaiParams(e hcl.Expression, ctx *hcl.EvalContext) ([]byte, hcl.Diagnostics) {
	if e == nil {
		return nil, nil
	}
	v, diags := e.Value(ctx)
	if diags.HasErrors() || v.IsNull() {
		return nil, diags
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, hcl.Diagnostics{exprDiag(e, "Invalid params", "params is an object of request body members, e.g. { temperature = 0, max_tokens = 256 }.")}
	}
	for it := v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		if n := k.AsString(); n == "model" || n == "messages" {
			return nil, hcl.Diagnostics{exprDiag(e, "Invalid params", fmt.Sprintf("params may not set %q: the target's own attributes and the conversation give it.", n))}
		}
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, hcl.Diagnostics{exprDiag(e, "Invalid params", err.Error())}
	}
	b = b[1 : len(b)-1] // the members, without braces
	return b, nil
}

// openaiSimParams are the params of a simulator request: the target's,
// and the simulator block's max_tokens unless it is 0 or the params set
// max_tokens or max_completion_tokens (OpenAI's newer name, which its
// reasoning models require) themselves.
func openaiSimParams(params []byte, sim *spec.TargetSimulator) []byte {
	if sim == nil || sim.MaxTokens <= 0 {
		return params
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(append(append([]byte{'{'}, params...), '}'), &set); err != nil {
		return params
	}
	if _, ok := set["max_tokens"]; ok {
		return params
	}
	if _, ok := set["max_completion_tokens"]; ok {
		return params
	}
	out := slices.Clip(params)
	if len(out) > 0 {
		out = append(out, ',')
	}
	return strconv.AppendInt(append(out, `"max_tokens":`...), int64(sim.MaxTokens), 10)
}

// openaiPrefix is the body's start: {"model":M,"messages":[
func openaiPrefix(model string) []byte {
	m, _ := json.Marshal(model)
	return append(append([]byte(`{"model":`), m...), `,"messages":[`...)
}

// openaiBody is the request of one turn: the system message, the
// conversation so far and the turn's text, in order, then params.
func openaiBody(prefix []byte, system string, history []schema.Message, text string, params []byte, user string) []byte {
	b := make([]byte, 0, len(prefix)+len(system)+len(text)+64*(len(history)+2)+len(params))
	b = append(b, prefix...)
	first := true
	msg := func(role, content string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"role":"`...)
		b = append(b, role...)
		b = append(b, `","content":`...)
		c, _ := json.Marshal(content)
		b = append(b, c...)
		b = append(b, '}')
	}
	if system != "" {
		msg("system", system)
	}
	for _, m := range history {
		msg(m.Role, m.Content)
	}
	msg("user", text)
	b = append(b, ']')
	if user != "" {
		u, _ := json.Marshal(user)
		b = append(append(b, `,"user":`...), u...)
	}
	if len(params) > 0 {
		b = append(b, ',')
		b = append(b, params...)
	}
	return append(b, '}')
}

// openaiSimBody is the request of an LLM user simulator: the scenario's
// system prompt (the simulator block gives it; the target's system
// attribute is not sent), then the flipped conversation, its last
// message the bot's reply as a user message.
func openaiSimBody(prefix []byte, in *schema.SimInput, params []byte) []byte {
	msgs := in.Messages
	last := schema.Message{Role: "user"}
	if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
		last, msgs = msgs[n-1], msgs[:n-1]
	}
	return openaiBody(prefix, in.System, msgs, last.Content, params, "")
}

// openaiAnswer is the part of a chat completion nlutest reads.
type openaiAnswer struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *schema.Usage `json:"usage"`
}

// openaiDecode sets the reply (choices[0].message.content; "" when it is
// null, as for a tool call) and the usage.
func openaiDecode(r *schema.Result, _ *hcl.EvalContext) error {
	var a openaiAnswer
	if err := json.Unmarshal(r.Response, &a); err != nil {
		return fmt.Errorf("the answer is not a chat completion: %v", err)
	}
	if len(a.Choices) == 0 {
		return errors.New("the chat completion has no choices")
	}
	if c := a.Choices[0].Message.Content; c != nil {
		r.Reply = *c
	}
	r.Usage = a.Usage
	return nil
}

// ErrContent is the error type of a chat completion whose content is not
// the JSON document an openai target with content = "json" reads.
const ErrContent = "ContentError"

// openaiDecodeJSON is openaiDecode for content = "json": the content
// (inside one Markdown code fence, when the model added one) must be a
// JSON document; it becomes the recorded response, so expectations'
// JSONPaths read it, and the reply stays the content's text. The usage
// is kept from the envelope.
func openaiDecodeJSON(r *schema.Result, ctx *hcl.EvalContext) error {
	if err := openaiDecode(r, ctx); err != nil {
		return err
	}
	doc := []byte(unfence(r.Reply))
	var buf bytes.Buffer
	if err := json.Compact(&buf, doc); err != nil {
		return &kindError{kind: ErrContent, err: fmt.Errorf("content = \"json\", but the answer's content is not JSON (%v): %s", err, preview(r.Reply))}
	}
	r.Response = json.RawMessage(buf.Bytes())
	return nil
}

// unfence returns s without one surrounding Markdown code fence (```json
// … ``` or ``` … ```), trimmed; s itself, trimmed, when it has none.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	inner := t[3 : len(t)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[\"") {
		inner = inner[nl+1:] // the info string (json)
	}
	return strings.TrimSpace(inner)
}

// preview quotes the start of s for a message.
func preview(s string) string {
	const n = 120
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes in all)", len(s))
}
