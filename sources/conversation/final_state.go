package conversation

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/zclconf/go-cty/cty"
)

// This file is the final_state block (issue 37): after a conversation's
// or scenario's last turn the runner reads the end state — the mock
// tools' recorded effects (from = "mocks") or a state endpoint (url) —
// records it on that turn's result, and its expect map checks it, as
// tau-bench judges an agent by the database it leaves:
//
//	final_state {
//	  from   = "mocks"                 # or url = "${var.state_url}/sessions/${case.conversation}"
//	  expect = { "$.bookings[0].city" = "{城市}", "$.bookings[0].date" = "{日期}" }
//	}
//
// Its expectations are the last turn's (keys "final:$.path"), so their
// placeholders are resolved and recorded as any other's and eval checks
// them from results.jsonl.

var finalStateSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "url"}, {Name: "headers"}, {Name: "expect", Required: true},
}}

// FinalState reads the one final_state block among blocks (nil without
// one; a second is an error) of a conversation or scenario; its
// expectations (keys "final:$.path") may use the placeholders slots.
func FinalState(d *spec.Decoder, blocks hcl.Blocks, slots []string) *spec.FinalStateSpec {
	var out *spec.FinalStateSpec
	for _, b := range blocks.OfType("final_state") {
		if out != nil {
			d.Errorf(b.DefRange.Ptr(), "Duplicate final_state block", "A conversation or scenario has one final_state block, first at %s; put every expectation in its expect.", spec.RangeString(out.DeclRange))
			continue
		}
		out = finalStateBlock(d, b, slots)
		if out == nil {
			out = &spec.FinalStateSpec{DeclRange: b.DefRange} // reported; stops a second report
		}
	}
	if out != nil && out.Expect == nil {
		return nil
	}
	return out
}

func finalStateBlock(d *spec.Decoder, b *hcl.Block, slots []string) *spec.FinalStateSpec {
	c, ok := d.Content(b, finalStateSchema)
	if !ok {
		return nil
	}
	f := &spec.FinalStateSpec{DeclRange: b.DefRange}
	from, hasFrom := c.Attributes["from"]
	url, hasURL := c.Attributes["url"]
	switch {
	case hasFrom == hasURL:
		d.Errorf(b.DefRange.Ptr(), "Where is the final state?", "A final_state block reads the mock tools' recorded effects, from = \"mocks\", or a state endpoint, url = \"…\" (a GET after the last turn); give one of them.")
		return nil
	case hasFrom:
		if v := d.String(c.Attributes, "from", ""); v != "mocks" {
			d.Errorf(from.Expr.Range().Ptr(), "Unknown final state source", "from = \"mocks\" reads the mock tools' recorded effects; %q is not a source (a state endpoint is url = \"…\").", v)
			return nil
		}
		f.Mocks = true
		if len(d.Suite().ToolOrder) == 0 {
			d.Warnf(from.Expr.Range().Ptr(), "No mock tools", "from = \"mocks\" reads the effects of the tool blocks' answers, and the suite declares no tool block: the state will be empty. Declare tool blocks with effect blocks, or read the backend's state with url.")
		}
		if h, ok := c.Attributes["headers"]; ok {
			d.Errorf(h.Range.Ptr(), "Headers without url", "headers are sent with the GET of a state endpoint (url); the mock state needs none.")
			return nil
		}
	default:
		if !d.CheckExpr(url.Expr, "final_state url", []string{"var", "case", "slot"}, nil) {
			return nil
		}
		f.URL = url.Expr
		if h, ok := c.Attributes["headers"]; ok {
			if !d.CheckExpr(h.Expr, "final_state headers", []string{"var", "case", "slot"}, nil) {
				return nil
			}
			f.Headers = h.Expr
		}
	}
	for _, es := range d.Expect(c.Attributes["expect"], slots) {
		if es.State {
			d.Errorf(es.Range.Ptr(), "State path in final_state", "final_state's paths read the final state; a state: path reads a turn's dialogue state, which belongs in the turn's expect.")
			continue
		}
		es.Path, es.Final = tools.FinalPrefix+es.Path, true
		f.Expect = append(f.Expect, es)
	}
	return f
}

// FinalQuery is how the runner reads the final state f of a script of
// suite s (nil without a final_state block).
func FinalQuery(f *spec.FinalStateSpec, s *spec.Suite) *schema.FinalStateQuery {
	if f == nil {
		return nil
	}
	if f.Mocks {
		return &schema.FinalStateQuery{Mocks: true}
	}
	needs := spec.NeedsOf(f.URL, f.Headers)
	return &schema.FinalStateQuery{Request: func(c *schema.Case) (string, map[string]string, error) {
		ctx := s.ContextFor(c, needs)
		v, diags := f.URL.Value(ctx)
		v = spec.Unmark(v)
		if diags.HasErrors() {
			return "", nil, fmt.Errorf("final_state url: %s", spec.DiagText(diags))
		}
		if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			return "", nil, fmt.Errorf("final_state url is not a string")
		}
		var hdr map[string]string
		if f.Headers != nil {
			hv, diags := f.Headers.Value(ctx)
			hv = spec.Unmark(hv)
			if diags.HasErrors() {
				return "", nil, fmt.Errorf("final_state headers: %s", spec.DiagText(diags))
			}
			if !hv.IsNull() && (hv.Type().IsObjectType() || hv.Type().IsMapType()) {
				hdr = map[string]string{}
				for it := hv.ElementIterator(); it.Next(); {
					k, e := it.Element()
					if e.IsNull() || e.Type() != cty.String {
						return "", nil, fmt.Errorf("final_state header %q is not a string", k.AsString())
					}
					hdr[k.AsString()] = e.AsString()
				}
			}
		}
		return v.AsString(), hdr, nil
	}}
}
