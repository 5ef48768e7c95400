package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// httpKind calls any HTTP service: url, method, headers and body are
// expressions over var, case and slot, evaluated per case (once, when they
// use only var).
//
//	http {
//	  url     = "${var.base}/parse"
//	  method  = "POST"
//	  headers = { Authorization = "Bearer ${var.token}" }
//	  body    = { text = case.text }
//	  reply   = response.answer # optional: the bot's reply text
//	  # connection settings (httpconn.go): redirects, ca_file, client_cert, client_key
//	}
//
// A chatbot's session is whatever the body sends: case.conversation (the
// session id), case.history (the conversation so far), case.turn.
type httpKind struct{}

var httpSchema = &hcl.BodySchema{
	Attributes: withConnAttrs(hcl.AttributeSchema{Name: "url", Required: true}, hcl.AttributeSchema{Name: "method"}, hcl.AttributeSchema{Name: "headers"}, hcl.AttributeSchema{Name: "body"}, hcl.AttributeSchema{Name: "reply"}, hcl.AttributeSchema{Name: "tool_calls"}),
}

// httpConfig keeps the request expressions of an http target (nil: not
// written).
type httpConfig struct {
	URL, Method, Headers, Body hcl.Expression
	// Reply is the reply expression (over response, var, case, slot);
	// nil: the response when it is a JSON string.
	Reply hcl.Expression
	// Static reports whether URL, method and headers use no per-case names,
	// so the caller may evaluate them once.
	Static bool
	// Conn are the redirect and TLS settings (httpconn.go).
	Conn *connConfig
	// ToolCalls maps the answer's own list of tool calls (nil without).
	ToolCalls *toolCallMap
}

func (httpKind) Name() string { return "http" }

func (httpKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, httpSchema)
	if !ok {
		return nil, false
	}
	h := &httpConfig{URL: c.Attributes["url"].Expr}
	if h.Conn, ok = decodeConn(d, c.Attributes); !ok {
		return nil, false
	}
	if a, ok := c.Attributes["method"]; ok {
		h.Method = a.Expr
	}
	if a, ok := c.Attributes["headers"]; ok {
		h.Headers = a.Expr
	}
	if a, ok := c.Attributes["body"]; ok {
		h.Body = a.Expr
	}
	if a, ok := c.Attributes["reply"]; ok {
		h.Reply = a.Expr
		d.AfterCall(a.Expr)
	}
	if h.ToolCalls, ok = decodeToolMap(d, c.Attributes); !ok {
		return nil, false
	}
	h.Static = true
	for _, e := range []hcl.Expression{h.URL, h.Method, h.Headers} {
		if e == nil {
			continue
		}
		for _, tr := range e.Variables() {
			if tr.RootName() != "var" {
				h.Static = false
			}
		}
	}
	d.PerCase(h.URL, h.Method, h.Headers, h.Body)
	if h.Static {
		d.EvalNow(func(ctx *hcl.EvalContext) hcl.Diagnostics {
			_, _, _, diags := evalStatic(h, ctx)
			return diags
		}, h.URL, h.Method, h.Headers)
	}
	return h, true
}

func (httpKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*httpConfig)
	hc, err := newHTTPCaller(b, "", cfg.Conn)
	if err != nil {
		return nil, err
	}
	hc.req = cfg
	hc.needs = spec.NeedsOf(cfg.URL, cfg.Method, cfg.Headers, cfg.Body, cfg.Reply)
	if cfg.Reply != nil {
		hc.decode = replyExpr(cfg.Reply)
	}
	if cfg.ToolCalls != nil {
		hc.decode = cfg.ToolCalls.then(hc.decode, b.Redactor)
	}
	if cfg.Static {
		var diags hcl.Diagnostics
		hc.url, hc.method, hc.headers, diags = evalStatic(cfg, b.Suite.BaseContext())
		if diags.HasErrors() {
			hc.Close()
			return nil, &runner.ConfigError{Diags: diags}
		}
		if key, ok := textBodyKey(cfg.Body); ok {
			hc.textKey, hc.textHeader = key, withJSONType(hc.headers)
		}
	}
	return hc, nil
}

// replyExpr reads the reply with expression e, which sees response (the
// decoded answer) besides the request's names. Its value must be a string
// (null: no reply).
func replyExpr(e hcl.Expression) func(*schema.Result, *hcl.EvalContext) error {
	return func(r *schema.Result, ctx *hcl.EvalContext) error {
		resp, err := spec.JSONToCty(r.Response)
		if err != nil {
			return err
		}
		ctx = ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"response": resp}
		v, diags := e.Value(ctx)
		if diags.HasErrors() {
			return errors.New("reply: " + spec.DiagText(diags))
		}
		switch {
		case v.IsNull():
			r.Reply = ""
		case v.Type() == cty.String:
			r.Reply = v.AsString()
		default:
			sv, err := convert.Convert(v, cty.String)
			if err != nil {
				return fmt.Errorf("reply: the expression gives %s, not a string", v.Type().FriendlyName())
			}
			r.Reply = sv.AsString()
		}
		return nil
	}
}
