package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

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
	),
}

// openaiConfig keeps an openai target's expressions (all var-only,
// evaluated once when the caller is made).
type openaiConfig struct {
	URL, Model, System, Params, Headers hcl.Expression
	// KeyVar is the sensitive variable holding the API key ("" for none).
	KeyVar string
	// Conn are the redirect and TLS settings (httpconn.go).
	Conn *connConfig
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
	for name, dst := range map[string]*hcl.Expression{"system": &cfg.System, "params": &cfg.Params, "headers": &cfg.Headers} {
		if a, ok := c.Attributes[name]; ok {
			*dst = a.Expr
		}
	}
	for _, e := range []hcl.Expression{cfg.URL, cfg.Model, cfg.System, cfg.Params, cfg.Headers} {
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
	}, cfg.URL, cfg.Model, cfg.System, cfg.Params, cfg.Headers)
	return cfg, true
}

// openaiValues are an openai target's attributes evaluated.
type openaiValues struct {
	base, model, system string
	hdr                 http.Header
	params              []byte
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
	return v, append(diags, d...)
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
	judgeSystem := system
	if judgeSystem == "" {
		judgeSystem = JudgeSystemPrompt
	}
	hc.fixedBody = func(c *schema.Case, history []schema.Message) ([]byte, error) {
		if c.Judge != nil { // judging a memory answer (openai_judge.go)
			return openaiBody(prefix, judgeSystem, nil, judgeMessage(c.Judge), params), nil
		}
		return openaiBody(prefix, system, history, c.Text, params), nil
	}
	hc.decode = openaiDecode
	return hc, nil
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

// openaiPrefix is the body's start: {"model":M,"messages":[
func openaiPrefix(model string) []byte {
	m, _ := json.Marshal(model)
	return append(append([]byte(`{"model":`), m...), `,"messages":[`...)
}

// openaiBody is the request of one turn: the system message, the
// conversation so far and the turn's text, in order, then params.
func openaiBody(prefix []byte, system string, history []schema.Message, text string, params []byte) []byte {
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
	if len(params) > 0 {
		b = append(b, ',')
		b = append(b, params...)
	}
	return append(b, '}')
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
