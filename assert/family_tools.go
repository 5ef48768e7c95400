package assert

import (
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// toolsFamily is metrics.tools (issue 37): the tool calls of a node's
// turns against their tools blocks — precision, recall and F1 of the
// calls by name, argument accuracy, sequence checks per mode, final-state
// checks — from what evaluation found on each result
// (schema.Result.Tools). docs/metrics.md gives the formulas.
type toolsFamily struct{}

func (toolsFamily) Shape() *schema.Family { return schema.ToolsFamily }

// NewAcc applies to every suite: a node none of whose turns made a tool
// call or had a tool check has no metrics.tools.
func (toolsFamily) NewAcc(*spec.Suite) Acc { return &toolsAcc{} }

type toolsAcc struct {
	t       schema.Tools
	perTool map[string]*schema.ToolCounts
	order   []string
	modes   map[string]*schema.ModeFigures
	touched bool
}

func (a *toolsAcc) Add(o *Observation) {
	tr := o.Result.Tools
	if tr == nil {
		return
	}
	a.touched = true
	for i := range tr.PerTool {
		a.addTool(&tr.PerTool[i])
	}
	a.t.InvalidArguments += tr.InvalidArgs
	a.t.Unmocked += tr.Unmocked
	for _, s := range tr.Sequences {
		a.addMode(s.Mode, 1, b2i(s.Passed))
	}
	if tr.FinalChecked {
		a.t.FinalStates++
		a.t.FinalStatesPassed += b2i(tr.FinalPassed)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (a *toolsAcc) addTool(c *schema.ToolCounts) {
	if a.perTool == nil {
		a.perTool = map[string]*schema.ToolCounts{}
	}
	t := a.perTool[c.Name]
	if t == nil {
		t = &schema.ToolCounts{Name: c.Name}
		a.perTool[c.Name] = t
		a.order = append(a.order, c.Name)
	}
	t.Calls += c.Calls
	t.Scored += c.Scored
	t.Expected += c.Expected
	t.Correct += c.Correct
	t.ArgsChecked += c.ArgsChecked
	t.ArgsPassed += c.ArgsPassed
}

func (a *toolsAcc) addMode(mode string, checked, passed int) {
	if a.modes == nil {
		a.modes = map[string]*schema.ModeFigures{}
	}
	m := a.modes[mode]
	if m == nil {
		m = &schema.ModeFigures{}
		a.modes[mode] = m
	}
	m.Checked += checked
	m.Passed += passed
}

func (a *toolsAcc) Merge(o Acc) {
	b := o.(*toolsAcc)
	a.touched = a.touched || b.touched
	for _, n := range b.order {
		a.addTool(b.perTool[n])
	}
	a.t.InvalidArguments += b.t.InvalidArguments
	a.t.Unmocked += b.t.Unmocked
	a.t.FinalStates += b.t.FinalStates
	a.t.FinalStatesPassed += b.t.FinalStatesPassed
	for mode, m := range b.modes {
		a.addMode(mode, m.Checked, m.Passed)
	}
}

func (a *toolsAcc) Fill(n *schema.Node) {
	if !a.touched {
		return
	}
	out := a.t
	out.Tool = make(map[string]*schema.ToolFigures, len(a.perTool))
	for name, c := range a.perTool {
		out.Calls += c.Calls
		out.ScoredCalls += c.Scored
		out.Expected += c.Expected
		out.Correct += c.Correct
		out.ArgsChecked += c.ArgsChecked
		out.ArgsPassed += c.ArgsPassed
		out.Tool[name] = &schema.ToolFigures{
			Calls: c.Calls, ScoredCalls: c.Scored, Expected: c.Expected, Correct: c.Correct,
			Precision: schema.R(c.Correct, c.Scored), Recall: schema.R(c.Correct, c.Expected), F1: schema.F1Of(c.Correct, c.Scored, c.Expected),
			ArgsChecked: c.ArgsChecked, ArgsPassed: c.ArgsPassed, ArgumentAccuracy: schema.R(c.ArgsPassed, c.ArgsChecked),
		}
	}
	out.Precision = schema.R(out.Correct, out.ScoredCalls)
	out.Recall = schema.R(out.Correct, out.Expected)
	out.F1 = schema.F1Of(out.Correct, out.ScoredCalls, out.Expected)
	out.ArgumentAccuracy = schema.R(out.ArgsPassed, out.ArgsChecked)
	out.FinalStateRate = schema.R(out.FinalStatesPassed, out.FinalStates)
	out.Mode = make(map[string]*schema.ModeFigures, len(a.modes))
	for mode, m := range a.modes {
		out.Mode[mode] = &schema.ModeFigures{Checked: m.Checked, Passed: m.Passed, PassRate: schema.R(m.Passed, m.Checked)}
		out.Sequences += m.Checked
		out.SequencesPassed += m.Passed
	}
	SetFamily(n, schema.ToolsFamily.Name, &out)
}
