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
			Functions: Functions(s.Access),
		}
	})
	return s.base
}

// CheckBaseContext is the base context of checks (assert conditions,
// thresholds, split where): sensitive variables' values carry the Sensitive
// mark and functions that fail on them do not quote them. Go code reading a
// value computed there unmarks it first (Unmark).
func (s *Suite) CheckBaseContext() *hcl.EvalContext {
	s.checkOnce.Do(func() {
		if !s.hasSensitive() {
			s.check = s.BaseContext() // nothing to mark: the plain functions are faster
			return
		}
		s.check = &hcl.EvalContext{
			Variables: map[string]cty.Value{"var": s.markedVars()},
			Functions: hideSensitiveErrors(Functions(s.Access)),
		}
	})
	return s.check
}

// CaseContext returns a child of the base context with case and slot set.
func (s *Suite) CaseContext(c *schema.Case) *hcl.EvalContext {
	return caseContext(s.BaseContext(), c)
}

// CheckContext returns a child of the check base context with case and
// slot set.
func (s *Suite) CheckContext(c *schema.Case) *hcl.EvalContext {
	return caseContext(s.CheckBaseContext(), c)
}

func caseContext(base *hcl.EvalContext, c *schema.Case) *hcl.EvalContext {
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{"case": CaseValue(c), "slot": SlotValue(c), "capture": CaptureValue(c)}
	if c.Judge != nil {
		ctx.Variables["judge"] = JudgeValue(c.Judge)
	}
	return ctx
}

// JudgeValue is the judge object of a judge target's expressions: the
// fact, the question, the answer to judge and the expected answer (a
// memory judge), or the rubric's name and criteria, the user's text
// (question), the reply (answer), the conversation before it (history,
// with history = true) and whether a 1–5 score is asked (scored); empty
// for a nil j: the target called as a bot, not as a judge.
func JudgeValue(j *schema.JudgeInput) cty.Value {
	if j == nil {
		j = &schema.JudgeInput{}
	}
	return cty.ObjectVal(map[string]cty.Value{
		"fact": cty.StringVal(j.Fact), "question": cty.StringVal(j.Question),
		"answer": cty.StringVal(j.Answer), "expect": cty.StringVal(j.Expect),
		"rubric": cty.StringVal(j.Rubric), "criteria": cty.StringVal(j.Criteria),
		"history": HistoryValue(j.History), "scored": cty.BoolVal(j.Scored),
	})
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

// CaseValue is the `case` object of per-case expressions: the attributes
// schema.CaseFields marks Expr.
func CaseValue(c *schema.Case) cty.Value {
	attrs := make(map[string]cty.Value, len(CaseAttributes))
	for i := range schema.CaseFields {
		if f := &schema.CaseFields[i]; f.Expr {
			attrs[f.Name] = caseAttr(f, c)
		}
	}
	attrs["history"] = HistoryValue(c.History)
	return cty.ObjectVal(attrs)
}

// messageType is the type of one case.history message.
var messageType = cty.Object(map[string]cty.Type{"role": cty.String, "content": cty.String})

// HistoryValue is case.history: a list of {role, content} objects, role
// "user" or "assistant", oldest first.
func HistoryValue(h []schema.Message) cty.Value {
	if len(h) == 0 {
		return cty.ListValEmpty(messageType)
	}
	vs := make([]cty.Value, len(h))
	for i, m := range h {
		vs[i] = cty.ObjectVal(map[string]cty.Value{"role": cty.StringVal(m.Role), "content": cty.StringVal(m.Content)})
	}
	return cty.ListVal(vs)
}

// caseAttr is field f of c as a cty value.
func caseAttr(f *schema.CaseField, c *schema.Case) cty.Value {
	switch f.Kind {
	case schema.FieldString:
		return cty.StringVal(f.Str(c))
	case schema.FieldBool:
		return cty.BoolVal(f.Bool(c))
	case schema.FieldStrings:
		return strList(f.List(c))
	case schema.FieldSlots:
		return slotsValue(c)
	case schema.FieldStringMap:
		return metaValue(c)
	case schema.FieldInt:
		return cty.NumberIntVal(int64(f.Int(c)))
	}
	panic("spec: case field " + f.Name + " has no value in expressions")
}

// slotsValue is case.slots: per placeholder, the slot's fields (normalized
// is the expected value: the normalised one, else the raw one).
func slotsValue(c *schema.Case) cty.Value {
	slots := make(map[string]cty.Value, len(c.Slots))
	for k, sl := range c.Slots {
		slots[k] = cty.ObjectVal(map[string]cty.Value{
			"value":      cty.StringVal(sl.Value),
			"normalized": cty.StringVal(sl.Expected()),
			"tag":        cty.StringVal(sl.Tag),
			"level":      cty.StringVal(sl.Level),
			"source":     cty.StringVal(sl.Source),
		})
	}
	return cty.ObjectVal(slots)
}

// CaptureValue is the `capture` object: the values earlier turns of the
// conversation captured, by name (empty for a single case).
func CaptureValue(c *schema.Case) cty.Value {
	if len(c.Captures) == 0 {
		return cty.EmptyObjectVal
	}
	m := make(map[string]cty.Value, len(c.Captures))
	for k, v := range c.Captures {
		m[k] = cty.StringVal(v)
	}
	return cty.ObjectVal(m)
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

// Needs records which per-case names a set of expressions uses, so a
// context can be built with only those (the runner builds one per call).
type Needs struct {
	caseAll   bool
	caseAttrs map[string]bool
	slot      bool
	capture   bool
	judge     bool
}

// Case reports whether the expressions use case.NAME (or the case whole).
func (n Needs) Case(name string) bool { return n.caseAll || n.caseAttrs[name] }

// NeedsOf collects the per-case names the expressions use.
func NeedsOf(exprs ...hcl.Expression) Needs {
	var n Needs
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, tr := range e.Variables() {
			switch tr.RootName() {
			case "slot":
				n.slot = true
			case "capture":
				n.capture = true
			case "judge":
				n.judge = true
			case "case":
				if len(tr) < 2 {
					n.caseAll = true
					continue
				}
				name, ok := stepName(tr[1])
				if !ok {
					n.caseAll = true
					continue
				}
				if n.caseAttrs == nil {
					n.caseAttrs = map[string]bool{}
				}
				n.caseAttrs[name] = true
			}
		}
	}
	return n
}

// ContextFor returns a child of the base context with only the per-case
// names n says are used; the expressions behave exactly as with
// CaseContext.
func (s *Suite) ContextFor(c *schema.Case, n Needs) *hcl.EvalContext {
	return contextFor(s.BaseContext(), c, n)
}

func contextFor(base *hcl.EvalContext, c *schema.Case, n Needs) *hcl.EvalContext {
	if n.caseAll {
		ctx := caseContext(base, c)
		if n.judge && c.Judge == nil {
			ctx.Variables["judge"] = JudgeValue(nil)
		}
		return ctx
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{}
	if n.slot {
		ctx.Variables["slot"] = SlotValue(c)
	}
	if n.capture {
		ctx.Variables["capture"] = CaptureValue(c)
	}
	if n.judge {
		ctx.Variables["judge"] = JudgeValue(c.Judge)
	}
	if len(n.caseAttrs) > 0 {
		attrs := make(map[string]cty.Value, len(n.caseAttrs))
		for a := range n.caseAttrs {
			if a == "history" {
				attrs[a] = HistoryValue(c.History)
				continue
			}
			f := schema.CaseFieldByName(a)
			if f == nil || !f.Expr || f.Kind == schema.FieldSlots {
				return caseContext(base, c) // slots, or a name validate rejected: build it all
			}
			attrs[a] = caseAttr(f, c)
		}
		ctx.Variables["case"] = cty.ObjectVal(attrs)
	}
	return ctx
}

// SplitContext is the (check) context of split `where` conditions for case c,
// holding only the per-case names those conditions use.
func (s *Suite) SplitContext(c *schema.Case) *hcl.EvalContext {
	s.splitNeedsOnce.Do(func() {
		var exprs []hcl.Expression
		for _, sp := range s.Splits {
			if sp.Where != nil {
				exprs = append(exprs, sp.Where)
			}
		}
		s.splitNeeds = NeedsOf(exprs...)
	})
	return contextFor(s.CheckBaseContext(), c, s.splitNeeds)
}

// TemplateOnly reports whether the expressions read nothing that differs
// between the cases of one source (only fields schema.CaseFields marks
// PerSource: case.template, level, core, scene, tags and schema), so their
// value can be computed once per source.
func (n Needs) TemplateOnly() bool {
	if n.caseAll || n.slot || n.capture || n.judge {
		return false
	}
	for a := range n.caseAttrs {
		if f := schema.CaseFieldByName(a); f == nil || !f.PerSource {
			return false
		}
	}
	return true
}

// metaValue is case.meta: a map of strings (empty when the case has none).
func metaValue(c *schema.Case) cty.Value {
	if len(c.Meta) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	m := make(map[string]cty.Value, len(c.Meta))
	for k, v := range c.Meta {
		m[k] = cty.StringVal(v)
	}
	return cty.MapVal(m)
}
