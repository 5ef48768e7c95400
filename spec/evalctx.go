package spec

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
)

// BaseContext returns the evaluation context every expression of the suite
// shares: var and the function table. Per-case contexts are its children.
func (s *Suite) BaseContext() *hcl.EvalContext {
	s.baseOnce.Do(func() {
		s.base = &hcl.EvalContext{
			Variables: map[string]cty.Value{"var": cty.ObjectVal(s.Vars)},
			Functions: Functions(s.Dir),
		}
	})
	return s.base
}

// CaseContext returns a child of the base context with case and slot set.
func (s *Suite) CaseContext(c *schema.Case) *hcl.EvalContext {
	ctx := s.BaseContext().NewChild()
	ctx.Variables = map[string]cty.Value{"case": CaseValue(c), "slot": SlotValue(c)}
	return ctx
}

func strList(xs []string) cty.Value {
	if len(xs) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vs := make([]cty.Value, len(xs))
	for i, x := range xs {
		vs[i] = cty.StringVal(x)
	}
	return cty.ListVal(vs)
}

// CaseValue is the `case` object of per-case expressions.
func CaseValue(c *schema.Case) cty.Value {
	slots := map[string]cty.Value{}
	for k, sl := range c.Slots {
		slots[k] = cty.ObjectVal(map[string]cty.Value{
			"value":      cty.StringVal(sl.Value),
			"normalized": cty.StringVal(sl.Expected()),
			"tag":        cty.StringVal(sl.Tag),
			"level":      cty.StringVal(sl.Level),
			"source":     cty.StringVal(sl.Source),
		})
	}
	return cty.ObjectVal(map[string]cty.Value{
		"id":       cty.StringVal(c.ID),
		"text":     cty.StringVal(c.Text),
		"template": cty.StringVal(c.Template),
		"level":    cty.StringVal(c.Level),
		"core":     cty.BoolVal(c.Core),
		"scene":    strList(c.Scene),
		"tags":     strList(c.Tags),
		"split":    strList(c.Split),
		"schema":   cty.StringVal(c.Schema),
		"slots":    cty.ObjectVal(slots),
	})
}

// SlotValue is the `slot` object: each slot's raw value.
func SlotValue(c *schema.Case) cty.Value {
	m := make(map[string]cty.Value, len(c.Slots))
	keys := make([]string, 0, len(c.Slots))
	for k := range c.Slots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m[k] = cty.StringVal(c.Slots[k].Value)
	}
	return cty.ObjectVal(m)
}
