package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
)

// This file is a scenario's task block (issue 37 part 3): where the bot's
// offer, its answers to the user's requests and its booking are read on
// each turn, for metrics.task — the inform and success rates as the
// MultiWOZ_Evaluation project computes them (Nekvinda & Dušek 2021,
// "Shades of BLEU, Flavours of Success: The Case of MultiWOZ"), and the
// book rate and inform precision/recall/F1 as ConvLab-2's MultiWOZ
// evaluator does (docs/metrics.md, "Task"):
//
//	task {
//	  domain    = "机票"
//	  offers    = { city = "$.slots.city", date = "$.slots.date", 订单号 = "$.order_id" }
//	  reference = "$.order_id"
//	  booked    = { city = "$.slots.city", date = "$.slots.date" }
//	}
//
// A value source is where one value is read on a turn: a JSONPath of the
// response, or with a prefix, of the dialogue state (state:), of the
// arguments of the turn's calls of a tool (tool:NAME:), of the final
// state on the turn that ends the scenario (final:), or a regular
// expression over the reply (reply:). A new kind of source (a tool's
// result, a mock effect) is one more prefix here and one more case in
// assert's reader (assert/task.go).

// ReplyPrefix starts a value source that reads the reply text with a
// regular expression: "reply:订单号\\s*(\\w+)".
const ReplyPrefix = "reply:"

// MaxTaskValues caps a task block's offers (and its booked) entries: a
// turn's findings are bit sets of 64.
const MaxTaskValues = 64

// ValueKind is where a value source reads.
type ValueKind uint8

// Value source kinds.
const (
	FromResponse ValueKind = iota // $.path of the response
	FromState                     // state:$.path of the dialogue state
	FromTool                      // tool:NAME:$.path of the arguments of the turn's calls of NAME
	FromFinal                     // final:$.path of the final state
	FromReply                     // reply:REGEX over the reply text
)

// ValueSource is one value source of a task block, compiled.
type ValueSource struct {
	// Text is the source as written.
	Text string
	Kind ValueKind
	// Tool names the tool of a FromTool source.
	Tool string
	// Path is the JSONPath of every kind but FromReply.
	Path jp.Expr
	// Re is a FromReply source's expression: the value is its first
	// group that matched, or the whole match when it has no group.
	Re *regexp.Regexp
}

// CompileValueSource compiles a value source. A *PathError's offsets
// count from the start of s.
func CompileValueSource(s string) (ValueSource, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	skip := len(s) - len(t)
	if rest, ok := strings.CutPrefix(t, ReplyPrefix); ok {
		re, err := regexp.Compile(rest)
		if err != nil {
			return ValueSource{}, fmt.Errorf("the expression after reply: does not compile: %v", err)
		}
		return ValueSource{Text: s, Kind: FromReply, Re: re}, nil
	}
	out := ValueSource{Text: s}
	path := t
	switch {
	case strings.HasPrefix(t, ToolPrefix):
		name, p, ok := strings.Cut(t[len(ToolPrefix):], ":")
		if !ok || name == "" || !strings.HasPrefix(strings.TrimSpace(p), "$") {
			return ValueSource{}, &PathError{Path: s, From: skip, To: len(s), Reason: "a tool: source is tool:NAME:$.path: the tool's name, a colon and a JSONPath of its arguments"}
		}
		out.Kind, out.Tool, path = FromTool, name, p
		skip += len(ToolPrefix) + len(name) + 1
	case strings.HasPrefix(t, FinalPrefix):
		out.Kind, path = FromFinal, t[len(FinalPrefix):]
		skip += len(FinalPrefix)
	case strings.HasPrefix(t, StatePrefix):
		out.Kind, path = FromState, t[len(StatePrefix):]
		skip += len(StatePrefix)
	}
	x, _, err := CompilePath(path)
	if pe, ok := err.(*PathError); ok {
		pe.Path, pe.From, pe.To = s, pe.From+skip, pe.To+skip
		return ValueSource{}, pe
	}
	if err != nil {
		return ValueSource{}, err
	}
	out.Path = x
	return out, nil
}

// TaskRole is what an offers entry is to the goal.
type TaskRole uint8

// Roles of offers entries.
const (
	// TaskInform: an inform slot of the goal — an attribute of the
	// offered entity, compared with the goal's value (inform rate).
	TaskInform TaskRole = iota
	// TaskRequest: a request item of the goal — provided when found
	// (success rate; a true positive of inform precision and recall).
	TaskRequest
	// TaskOther: a value the user did not ask for — a false positive of
	// inform precision when the bot gives it.
	TaskOther
)

// TaskValue is one entry of offers or booked: a name and its source.
type TaskValue struct {
	Name string
	Role TaskRole
	From ValueSource
}

// TaskSpec is a scenario's task block.
type TaskSpec struct {
	// Domain groups scenarios in metrics.task.domain["NAME"]; "" for none.
	Domain string
	// Offers are the offers entries in source order.
	Offers []TaskValue
	// Reference, when set, is the booking reference: a turn has booked
	// when it reads a value. Without it, a turn has booked when any
	// booked entry reads one.
	Reference *ValueSource
	// Booked are the booked entries (inform slots) in source order; none
	// when the scenario books nothing (it is then outside book_rate).
	Booked []TaskValue
	// InformSlots counts the offers entries of role TaskInform; Requests
	// those of TaskRequest.
	InformSlots, Requests int
	DeclRange             hcl.Range
	// goal is the goal's value of an inform slot in a case.
	goal func(c *schema.Case, slot string) string
}

// Mask is the bit set of the offers entries of role (bit i: Offers[i]).
func (t *TaskSpec) Mask(role TaskRole) uint64 {
	var m uint64
	for i, v := range t.Offers {
		if v.Role == role {
			m |= 1 << i
		}
	}
	return m
}

// Goal is the goal's value of inform slot in the scenario instance c is
// a turn of: its inform text with each placeholder replaced by the
// value an expectation compares against (schema.Slot.Expected: the
// normalised value when the material has one).
func (t *TaskSpec) Goal(c *schema.Case, slot string) string { return t.goal(c, slot) }

var taskSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "domain"}, {Name: "offers"}, {Name: "reference"}, {Name: "booked"},
}}

// taskSourcesHelp is the end of a diagnostic about a value source.
const taskSourcesHelp = `A value source is a JSONPath of the response ("$.slots.city"), or "state:$.path" (the dialogue state), "tool:NAME:$.path" (the arguments of the turn's calls of a tool), "final:$.path" (the final state) or "reply:REGEX" (the reply; the value is the first group).`

// decodeTask reads the scenario's task block (nil without one; ok false
// after a reported mistake).
func (ss *scenarioSource) decodeTask(l *loader, blocks hcl.Blocks) (*TaskSpec, bool) {
	var out *TaskSpec
	ok := true
	for _, b := range blocks.OfType("task") {
		if out != nil {
			l.errorf(b.DefRange.Ptr(), "Duplicate task block", "A scenario has one task block, first at %s; merge the two.", rangeString(out.DeclRange))
			ok = false
			continue
		}
		t, good := ss.taskBlock(l, b)
		out, ok = t, ok && good
	}
	return out, ok
}

func (ss *scenarioSource) taskBlock(l *loader, b *hcl.Block) (*TaskSpec, bool) {
	t := &TaskSpec{DeclRange: b.DefRange, goal: ss.goalValue}
	c, ok := l.content(b.Body, taskSchema)
	if !ok {
		return t, false
	}
	t.Domain = l.str(c.Attributes, "domain", "")
	before := len(l.diags.Errs())
	var offersOK bool
	t.Offers, offersOK = ss.taskValues(l, c.Attributes["offers"], false)
	t.Booked, _ = ss.taskValues(l, c.Attributes["booked"], true)
	if a, has := c.Attributes["reference"]; has {
		if v, good := l.static(a, cty.String, `"reference" attribute`); good && !v.IsNull() {
			if src, good := ss.valueSource(l, a.Expr, v.AsString()); good {
				t.Reference = &src
			}
		}
		if len(t.Booked) == 0 && c.Attributes["booked"] == nil {
			l.errorf(a.Expr.Range().Ptr(), "Reference without booked", "reference says on which turn the bot booked; booked says where the booked item's values are read on that turn. Add booked = { city = \"$.slots.city\" }, or remove reference.")
		}
	}
	if c.Attributes["offers"] == nil && c.Attributes["booked"] == nil {
		l.errorf(b.DefRange.Ptr(), "Empty task", "A task block says where the bot's offer and answers are read (offers), where its booking is read (booked), or both: offers = { city = \"$.slots.city\", 订单号 = \"$.order_id\" }.")
		return t, false
	}
	for _, v := range t.Offers {
		switch v.Role {
		case TaskInform:
			t.InformSlots++
		case TaskRequest:
			t.Requests++
		}
	}
	if offersOK {
		ss.checkRequestsOffered(l, b, c.Attributes["offers"], t)
	}
	return t, len(l.diags.Errs()) == before
}

// checkRequestsOffered reports a request item the offers do not say where
// to read: the bot could never be seen to provide it.
func (ss *scenarioSource) checkRequestsOffered(l *loader, b *hcl.Block, offers *hcl.Attribute, t *TaskSpec) {
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
		if s := suggest(r, names); s != "" {
			hint = fmt.Sprintf(" offers has %q: if that is it, name it %q.", s, r)
		}
		l.errorf(rng.Ptr(), "Request not offered", "The goal requests %q, and the task's offers do not say where the bot gives it, so it could never count as provided.%s Add %s = \"$.path\" to offers. %s", r, hint, hclKey(r), taskSourcesHelp)
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
func (ss *scenarioSource) taskValues(l *loader, a *hcl.Attribute, booked bool) (out []TaskValue, ok bool) {
	if a == nil {
		return nil, true
	}
	what := "offers"
	if booked {
		what = "booked"
	}
	if !l.noSensitive(a.Expr) || !l.onlyRoots(a.Expr, fmt.Sprintf("%q attribute", what), "var") {
		return nil, false
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid "+what, "%s is a map from a name to where its value is read, e.g. %s = { city = \"$.slots.city\" }. %s", what, what, taskSourcesHelp)
		return nil, false
	}
	before := len(l.diags.Errs())
	for _, p := range pairs {
		name := mapKeyName(p.Key)
		v, diags := p.Value.Value(l.staticCtx())
		if name == "" || diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
			l.errorf(p.Key.Range().Ptr(), "Invalid "+what, "Each %s entry is NAME = \"source\": a name, and where its value is read, e.g. city = \"$.slots.city\". %s", what, taskSourcesHelp)
			continue
		}
		if slices.ContainsFunc(out, func(t TaskValue) bool { return t.Name == name }) {
			l.errorf(p.Key.Range().Ptr(), "Duplicate "+what+" entry", "%s names %q twice; keep one.", what, name)
			continue
		}
		role := TaskOther
		switch {
		case slices.Contains(ss.inform, name):
			role = TaskInform
		case slices.Contains(ss.requests, name):
			role = TaskRequest
		case booked:
			l.errorf(p.Key.Range().Ptr(), "Unknown slot", "booked reads the booked item's value of an inform slot, compared with the goal's; the goal informs no %q.%s Inform slots: %s.", name, didYouMean(name, ss.inform), strings.Join(quoteAll(ss.inform), ", "))
			continue
		}
		src, ok := ss.valueSource(l, p.Value, v.AsString())
		if !ok {
			continue
		}
		out = append(out, TaskValue{Name: name, Role: role, From: src})
	}
	if len(out) > MaxTaskValues {
		l.errorf(a.Expr.Range().Ptr(), "Too many "+what+" entries", "%s has %d entries; a task reads at most %d.", what, len(out), MaxTaskValues)
		return nil, false
	}
	return out, len(l.diags.Errs()) == before
}

// valueSource compiles the value source raw written at e.
func (ss *scenarioSource) valueSource(l *loader, e hcl.Expression, raw string) (ValueSource, bool) {
	src, err := CompileValueSource(raw)
	if err != nil {
		if _, isPath := err.(*PathError); isPath {
			l.pathError(e, raw, err)
		} else {
			l.errorf(e.Range().Ptr(), "Invalid value source", "%q: %v. %s", raw, err, taskSourcesHelp)
		}
		return ValueSource{}, false
	}
	switch src.Kind {
	case FromFinal:
		if ss.final == nil {
			l.errorf(e.Range().Ptr(), "Final state not read", "%q reads the final state, which is read only for a scenario with a final_state block. Add final_state { from = \"mocks\", expect = { … } } (or url = …), or read the value elsewhere.", raw)
			return ValueSource{}, false
		}
	case FromTool:
		if !l.checkToolName(e, src.Tool) {
			return ValueSource{}, false
		}
	}
	return src, true
}

// goalValue is the goal's value of inform slot name in case c, as an
// expectation compares it: each placeholder its slot's Expected value.
func (ss *scenarioSource) goalValue(c *schema.Case, name string) string {
	i := slices.Index(ss.inform, name)
	if i < 0 {
		return ""
	}
	lits, phs, err := ParsePlaceholders(ss.informText[i].s)
	if err != nil {
		return ss.informText[i].s
	}
	var b strings.Builder
	for j, ph := range phs {
		b.WriteString(lits[j])
		b.WriteString(c.Slots[ph.Key].Expected())
	}
	b.WriteString(lits[len(lits)-1])
	return b.String()
}
