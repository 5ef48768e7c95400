package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/zclconf/go-cty/cty"
)

// This file reads a scenario's task block (issue 37 part 3) into a
// spec.TaskSpec: where the bot's offer, its answers to the user's
// requests and its booking are read on each turn, for metrics.task
// (spec/task.go describes the block and its value sources).

var taskSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "domain"}, {Name: "offers"}, {Name: "reference"}, {Name: "booked"},
}}

// taskSourcesHelp is the end of a diagnostic about a value source.
const taskSourcesHelp = `A value source is a JSONPath of the response ("$.slots.city"), or "state:$.path" (the dialogue state), "tool:NAME:$.path" (the arguments of the turn's calls of a tool), "final:$.path" (the final state) or "reply:REGEX" (the reply; the value is the first group).`

// decodeTask reads the scenario's task block (nil without one; ok false
// after a reported mistake).
func (ss *scenarioSource) decodeTask(d *spec.Decoder, blocks hcl.Blocks) (*spec.TaskSpec, bool) {
	var out *spec.TaskSpec
	ok := true
	for _, b := range blocks.OfType("task") {
		if out != nil {
			d.Errorf(b.DefRange.Ptr(), "Duplicate task block", "A scenario has one task block, first at %s; merge the two.", spec.RangeString(out.DeclRange))
			ok = false
			continue
		}
		t, good := ss.taskBlock(d, b)
		out, ok = t, ok && good
	}
	return out, ok
}

func (ss *scenarioSource) taskBlock(d *spec.Decoder, b *hcl.Block) (*spec.TaskSpec, bool) {
	t := spec.NewTaskSpec(b.DefRange, ss.goalValue)
	c, ok := d.Content(b, taskSchema)
	if !ok {
		return t, false
	}
	t.Domain = d.String(c.Attributes, "domain", "")
	before := d.Errors()
	var offersOK bool
	t.Offers, offersOK = ss.taskValues(d, c.Attributes["offers"], false)
	t.Booked, _ = ss.taskValues(d, c.Attributes["booked"], true)
	if a, has := c.Attributes["reference"]; has {
		if v, good := d.Value(a, cty.String, `"reference" attribute`); good && !v.IsNull() {
			if src, good := ss.valueSource(d, a.Expr, v.AsString()); good {
				t.Reference = &src
			}
		}
		if len(t.Booked) == 0 && c.Attributes["booked"] == nil {
			d.Errorf(a.Expr.Range().Ptr(), "Reference without booked", "reference says on which turn the bot booked; booked says where the booked item's values are read on that turn. Add booked = { city = \"$.slots.city\" }, or remove reference.")
		}
	}
	if c.Attributes["offers"] == nil && c.Attributes["booked"] == nil {
		d.Errorf(b.DefRange.Ptr(), "Empty task", "A task block says where the bot's offer and answers are read (offers), where its booking is read (booked), or both: offers = { city = \"$.slots.city\", 订单号 = \"$.order_id\" }.")
		return t, false
	}
	for _, v := range t.Offers {
		switch v.Role {
		case spec.TaskInform:
			t.InformSlots++
		case spec.TaskRequest:
			t.Requests++
		}
	}
	if offersOK {
		ss.checkRequestsOffered(d, b, c.Attributes["offers"], t)
	}
	return t, d.Errors() == before
}

// checkRequestsOffered reports a request item the offers do not say where
// to read: the bot could never be seen to provide it.
func (ss *scenarioSource) checkRequestsOffered(d *spec.Decoder, b *hcl.Block, offers *hcl.Attribute, t *spec.TaskSpec) {
	if len(ss.requests) == 0 {
		return
	}
	var names []string
	for _, v := range t.Offers {
		names = append(names, v.Name)
	}
	rng := b.DefRange
	if offers != nil {
		rng = offers.Expr.Range()
	}
	for _, r := range ss.requests {
		if slices.Contains(names, r) {
			continue
		}
		hint := ""
		if s := spec.SuggestName(r, names); s != "" {
			hint = fmt.Sprintf(" offers has %q: if that is it, name it %q.", s, r)
		}
		d.Errorf(rng.Ptr(), "Request not offered", "The goal requests %q, and the task's offers do not say where the bot gives it, so it could never count as provided.%s Add %s = \"$.path\" to offers. %s", r, hint, hclKey(r), taskSourcesHelp)
	}
}

// hclKey writes a map key as HCL reads it: bare when it is an ASCII
// identifier, quoted otherwise.
func hclKey(s string) string {
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return fmt.Sprintf("%q", s)
	}
	return s
}

// taskValues reads offers (booked false) or booked: a map from a name to
// a value source, in source order; ok is false after a reported mistake.
func (ss *scenarioSource) taskValues(d *spec.Decoder, a *hcl.Attribute, booked bool) (out []spec.TaskValue, ok bool) {
	if a == nil {
		return nil, true
	}
	what := "offers"
	if booked {
		what = "booked"
	}
	if !d.NoSensitive(a.Expr) || !d.CheckExpr(a.Expr, fmt.Sprintf("%q attribute", what), []string{"var"}, nil) {
		return nil, false
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid "+what, "%s is a map from a name to where its value is read, e.g. %s = { city = \"$.slots.city\" }. %s", what, what, taskSourcesHelp)
		return nil, false
	}
	before := d.Errors()
	for _, p := range pairs {
		name := spec.MapKeyName(p.Key)
		v, diags := p.Value.Value(d.StaticContext())
		if name == "" || diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
			d.Errorf(p.Key.Range().Ptr(), "Invalid "+what, "Each %s entry is NAME = \"source\": a name, and where its value is read, e.g. city = \"$.slots.city\". %s", what, taskSourcesHelp)
			continue
		}
		if slices.ContainsFunc(out, func(t spec.TaskValue) bool { return t.Name == name }) {
			d.Errorf(p.Key.Range().Ptr(), "Duplicate "+what+" entry", "%s names %q twice; keep one.", what, name)
			continue
		}
		role := spec.TaskOther
		switch {
		case slices.Contains(ss.inform, name):
			role = spec.TaskInform
		case slices.Contains(ss.requests, name):
			role = spec.TaskRequest
		case booked:
			d.Errorf(p.Key.Range().Ptr(), "Unknown slot", "booked reads the booked item's value of an inform slot, compared with the goal's; the goal informs no %q.%s Inform slots: %s.", name, spec.DidYouMean(name, ss.inform), strings.Join(quoteAll(ss.inform), ", "))
			continue
		}
		src, ok := ss.valueSource(d, p.Value, v.AsString())
		if !ok {
			continue
		}
		out = append(out, spec.TaskValue{Name: name, Role: role, From: src})
	}
	if len(out) > spec.MaxTaskValues {
		d.Errorf(a.Expr.Range().Ptr(), "Too many "+what+" entries", "%s has %d entries; a task reads at most %d.", what, len(out), spec.MaxTaskValues)
		return nil, false
	}
	return out, d.Errors() == before
}

// valueSource compiles the value source raw written at e.
func (ss *scenarioSource) valueSource(d *spec.Decoder, e hcl.Expression, raw string) (spec.ValueSource, bool) {
	src, err := spec.CompileValueSource(raw)
	if err != nil {
		if _, isPath := err.(*jsonpath.Error); isPath {
			d.PathError(e, raw, err)
		} else {
			d.Errorf(e.Range().Ptr(), "Invalid value source", "%q: %v. %s", raw, err, taskSourcesHelp)
		}
		return spec.ValueSource{}, false
	}
	switch src.Kind {
	case spec.FromFinal:
		if ss.final == nil {
			d.Errorf(e.Range().Ptr(), "Final state not read", "%q reads the final state, which is read only for a scenario with a final_state block. Add final_state { from = \"mocks\", expect = { … } } (or url = …), or read the value elsewhere.", raw)
			return spec.ValueSource{}, false
		}
	case spec.FromTool:
		if !d.CheckToolName(e, src.Tool) {
			return spec.ValueSource{}, false
		}
	}
	return src, true
}

// goalValue is the goal's value of inform slot name in case c, as an
// expectation compares it: each placeholder its slot's Expected value.
func (ss *scenarioSource) goalValue(c *schema.Case, name string) string {
	return ss.informWith(c, name, schema.Slot.Expected)
}

// quoteAll puts each of xs between double quotes, as written.
func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = `"` + x + `"`
	}
	return out
}
