package targets

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// demoKind starts the embedded reference service (runner/demo) on
// 127.0.0.1 and calls it: endpoint "rasa" (travel intents and entities,
// the default) or "iao" (seed 000's IAO relation queries).
//
//	demo {
//	  endpoint = "iao"
//	}
type demoKind struct{}

var demoSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "endpoint"}},
}

type demoConfig struct{ Endpoint string }

func (demoKind) Name() string { return "demo" }

func (demoKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, _ := d.Content(d.Block, demoSchema)
	ep := d.String(c.Attributes, "endpoint", "rasa")
	if ep != "rasa" && ep != "iao" {
		d.Errorf(c.Attributes["endpoint"].Expr.Range().Ptr(), "Unknown demo endpoint", "The demo target serves \"rasa\" (travel intents and entities) and \"iao\" (seed 000's IAO relation queries); %q is neither.", ep)
	}
	return &demoConfig{Endpoint: ep}, true
}

func (demoKind) NewCaller(ctx context.Context, b *Build) (runner.Caller, error) {
	ep := b.Target.Config.(*demoConfig).Endpoint
	base, stop, err := demo.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the demo service: %w", err)
	}
	hc := newHTTPCaller(b, ep)
	hc.stop = stop
	hc.fixedHealth = true
	hc.method = http.MethodPost
	hc.headers = http.Header{"Content-Type": {"application/json"}}
	if ep == "iao" {
		hc.url = base + "/iao"
		hc.fixedBody = func(c *schema.Case) []byte { return jsonBody("query", c.Text) }
	} else {
		hc.url = base + "/model/parse"
		hc.fixedBody = func(c *schema.Case) []byte { return jsonBody("text", c.Text) }
	}
	return hc, nil
}
