package targets

import (
	"context"
	"net/http"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// rasaKind calls a Rasa server's /model/parse with {"text": …}; url and
// headers may use only var.
//
//	rasa {
//	  url = "http://localhost:5005"
//	}
type rasaKind struct{}

var rasaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "url", Required: true}, {Name: "headers"}},
}

func (rasaKind) Name() string { return "rasa" }

func (rasaKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, rasaSchema)
	if !ok {
		return nil, false
	}
	h := &httpConfig{URL: c.Attributes["url"].Expr, Static: true}
	if a, ok := c.Attributes["headers"]; ok {
		h.Headers = a.Expr
	}
	for _, e := range []hcl.Expression{h.URL, h.Headers} {
		if e != nil && !d.OnlyVar(e, "rasa target attribute") {
			return nil, false
		}
	}
	d.PerCase(h.URL, h.Headers)
	return h, true
}

func (rasaKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	hc := newHTTPCaller(b, "")
	var diags hcl.Diagnostics
	hc.url, hc.method, hc.headers, diags = evalStatic(b.Target.Config.(*httpConfig), b.Suite.BaseContext())
	if diags.HasErrors() {
		hc.Close()
		return nil, &runner.ConfigError{Diags: diags}
	}
	hc.url = strings.TrimSuffix(hc.url, "/") + "/model/parse"
	hc.method = http.MethodPost
	hc.headers.Set("Content-Type", "application/json")
	hc.fixedBody = func(c *schema.Case) []byte { return jsonBody("text", c.Text) }
	return hc, nil
}
