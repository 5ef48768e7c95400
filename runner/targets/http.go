package targets

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/spec"
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
//	}
type httpKind struct{}

var httpSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "url", Required: true}, {Name: "method"}, {Name: "headers"}, {Name: "body"}},
}

// httpConfig keeps the request expressions of an http target (nil: not
// written).
type httpConfig struct {
	URL, Method, Headers, Body hcl.Expression
	// Static reports whether URL, method and headers use no per-case names,
	// so the caller may evaluate them once.
	Static bool
}

func (httpKind) Name() string { return "http" }

func (httpKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, httpSchema)
	if !ok {
		return nil, false
	}
	h := &httpConfig{URL: c.Attributes["url"].Expr}
	if a, ok := c.Attributes["method"]; ok {
		h.Method = a.Expr
	}
	if a, ok := c.Attributes["headers"]; ok {
		h.Headers = a.Expr
	}
	if a, ok := c.Attributes["body"]; ok {
		h.Body = a.Expr
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
	return h, true
}

func (httpKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*httpConfig)
	hc := newHTTPCaller(b, "")
	hc.req = cfg
	hc.needs = spec.NeedsOf(cfg.URL, cfg.Method, cfg.Headers, cfg.Body)
	if cfg.Static {
		var diags hcl.Diagnostics
		hc.url, hc.method, hc.headers, diags = evalStatic(cfg, b.Suite.BaseContext())
		if diags.HasErrors() {
			hc.Close()
			return nil, &runner.ConfigError{Diags: diags}
		}
	}
	return hc, nil
}
