package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/ohler55/ojg/jp"
)

// This file is the record of a scenario's task block (issue 37 part 3),
// which sources/scenario reads (its task.go) and assert's task family
// reads back: where the bot's
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

// CompileValueSource compiles a value source. A *jsonpath.Error's offsets
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
	case strings.HasPrefix(t, tools.Prefix):
		name, p, ok := strings.Cut(t[len(tools.Prefix):], ":")
		if !ok || name == "" || !strings.HasPrefix(strings.TrimSpace(p), "$") {
			return ValueSource{}, &jsonpath.Error{Path: s, From: skip, To: len(s), Reason: "a tool: source is tool:NAME:$.path: the tool's name, a colon and a JSONPath of its arguments"}
		}
		out.Kind, out.Tool, path = FromTool, name, p
		skip += len(tools.Prefix) + len(name) + 1
	case strings.HasPrefix(t, tools.FinalPrefix):
		out.Kind, path = FromFinal, t[len(tools.FinalPrefix):]
		skip += len(tools.FinalPrefix)
	case strings.HasPrefix(t, jsonpath.StatePrefix):
		out.Kind, path = FromState, t[len(jsonpath.StatePrefix):]
		skip += len(jsonpath.StatePrefix)
	}
	x, _, err := jsonpath.Compile(path)
	if pe, ok := err.(*jsonpath.Error); ok {
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
