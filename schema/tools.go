package schema

import (
	"encoding/json"
	"errors"
	"strconv"
)

// This file holds the records of tool-using agents (issue 37): the tool
// calls a turn made (an openai target's chat-completions tool calls, or
// an http target's own list mapped by expression), the end state read
// after a conversation or scenario (final_state), and the figures of
// metrics.tools.

// ToolCall is one tool call an agent made during a turn, as recorded in
// the result (tool_calls): which model step made it, the call's id and
// name, its arguments, and what the agent was given back.
type ToolCall struct {
	// Step is the model request of the turn (from 1) whose answer made
	// the call: the calls of one answer (parallel tool calls) share it.
	Step int `json:"step"`
	// ID is the call's id (OpenAI's tool_call_id), "" when the agent gave
	// none.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments are the call's arguments when they are JSON of at most
	// MaxToolArgumentBytes (OpenAI sends them as a JSON text), compacted.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// ArgumentsText is the arguments as the agent sent them when they
	// are not JSON, or are over the cap (then cut, with their length).
	ArgumentsText string `json:"arguments_text,omitempty"`
	// Result is what the agent was given back for the call (a mock
	// tool's result, or an error object), JSON of at most
	// MaxToolResultBytes; ResultText is a longer result, cut.
	Result     json.RawMessage `json:"result,omitempty"`
	ResultText string          `json:"result_text,omitempty"`
	// Error says what was wrong with the call: arguments that are not
	// JSON, no mock for the tool, a mock whose result failed.
	Error string `json:"error,omitempty"`
}

// MaxToolArgumentBytes caps a recorded tool call's arguments; longer
// arguments are recorded cut (ArgumentsText) and fail their args checks.
const MaxToolArgumentBytes = 16 << 10

// MaxToolResultBytes caps a recorded tool result (the agent is given the
// whole result; the record keeps its start).
const MaxToolResultBytes = 4 << 10

// MaxToolCallsPerTurn caps the tool calls a turn records: a turn whose
// agent makes more is the error ErrToolLoop.
const MaxToolCallsPerTurn = 128

// MaxFinalStateBytes caps a recorded final state (a state endpoint's
// answer, or the mock tools' recorded effects).
const MaxFinalStateBytes = 256 << 10

// Error types of tool-using turns.
const (
	// ErrToolLoop is a turn whose agent still called tools after the
	// target's max_tool_steps model requests (or made more than
	// MaxToolCallsPerTurn calls): the turn's error.
	ErrToolLoop = "ToolLoopError"
	// ErrFinalState is a final_state read that failed (recorded in
	// FinalState.Error): the final-state checks fail with it.
	ErrFinalState = "FinalStateError"
)

// NoMockPrefix starts the error of a call no mock tool answers: `no mock
// for tool "NAME"`; the agent is given {"error": the same text}.
const NoMockPrefix = "no mock for tool"

// ToolArgs returns the arguments of the call as recorded: the JSON
// arguments, or nil and why they cannot be read.
func (c *ToolCall) ToolArgs() (json.RawMessage, error) {
	if len(c.Arguments) > 0 {
		return c.Arguments, nil
	}
	if c.ArgumentsText != "" {
		if c.Error != "" {
			return nil, errors.New(c.Error)
		}
		return nil, errors.New("the arguments are not JSON")
	}
	return nil, errors.New("the call has no arguments")
}

// FinalState is the end state read after a conversation's or scenario's
// last turn (its final_state block), recorded on that turn's result, so
// `nlutest eval` checks it again without a network.
type FinalState struct {
	// From is "mocks" (the mock tools' recorded effects in the session)
	// or "url" (a GET of a state endpoint).
	From string `json:"from"`
	// Request is the GET sent (redacted), for from = "url".
	Request *Request `json:"request,omitempty"`
	Status  int      `json:"status,omitempty"`
	// State is the state read, JSON (redacted as responses are).
	State json.RawMessage `json:"state,omitempty"`
	// Body is an answer that is not JSON, cut.
	Body      string  `json:"body,omitempty"`
	LatencyMS float64 `json:"latency_ms,omitempty"`
	// Error is set when the state could not be read: the final-state
	// checks then fail with its message.
	Error *CallError `json:"error,omitempty"`
}

// FinalStateQuery says how the runner reads a script's final state after
// its last turn (a final_state block); the session of the script reads
// it (runner.FinalStater).
type FinalStateQuery struct {
	// Mocks: the state is what the mock tools recorded in the session
	// (from = "mocks").
	Mocks bool
	// Request, for a state endpoint, returns the URL and headers of its
	// GET for the script whose last turn is c (the block's url and headers
	// expressions, evaluated with case.*).
	Request func(c *Case) (url string, headers map[string]string, err error)
}

// ToolOutcome is what evaluating one result found about its tool calls,
// for metrics.tools; set by evaluation, never recorded.
type ToolOutcome struct {
	// Scored: the turn's tools block lists called (even empty), so its
	// calls count in precision and recall.
	Scored bool
	// PerTool holds each tool's counts in this result, in first-seen
	// order.
	PerTool []ToolCounts
	// InvalidArgs counts calls whose arguments are not JSON; Unmocked
	// calls no mock answered.
	InvalidArgs, Unmocked int
	// Sequences holds the sequence checks decided on this result: their
	// mode and whether they held.
	Sequences []SequenceOutcome
	// FinalChecked: the result ends a script with a final_state block;
	// FinalPassed: every final-state expectation held.
	FinalChecked, FinalPassed bool
	// perTool backs PerTool for a turn of few tools (one allocation).
	perTool [4]ToolCounts
}

// NewToolOutcome returns an empty outcome whose PerTool holds a few
// tools without another allocation.
func NewToolOutcome() *ToolOutcome {
	o := &ToolOutcome{}
	o.PerTool = o.perTool[:0]
	return o
}

// ToolCounts are one tool's figures in one result (or summed).
type ToolCounts struct {
	Name string
	// Calls counts every call; Scored the calls of scored turns; Expected
	// the times a scored turn's called lists the tool; Correct the calls
	// matched to an expected one (min of the two per turn).
	Calls, Scored, Expected, Correct int
	// ArgsChecked counts the turns that checked the tool's arguments and
	// called it; ArgsPassed those where a call met every expectation.
	ArgsChecked, ArgsPassed int
}

// SequenceOutcome is one sequence check: its mode and verdict.
type SequenceOutcome struct {
	Mode   string
	Passed bool
}

// Sequence modes of a tools block's sequence (spec: the tools block).
const (
	ModeExact    = "exact"
	ModeInOrder  = "in_order"
	ModeAnyOrder = "any_order"
	ModeSubset   = "subset"
	ModeSuperset = "superset"
)

// SequenceModes lists the sequence modes in the order docs give them.
var SequenceModes = []string{ModeExact, ModeInOrder, ModeAnyOrder, ModeSubset, ModeSuperset}

// Tools is metrics.tools in a node: the tool calls of its turns against
// the tools blocks' expectations.
type Tools struct {
	// Calls counts every tool call; ScoredCalls those of turns whose
	// tools block lists called; Expected the calls those lists expect;
	// Correct the calls matched by name to an expected one.
	Calls       int `json:"calls"`
	ScoredCalls int `json:"scored_calls"`
	Expected    int `json:"expected"`
	Correct     int `json:"correct"`
	// Precision = correct / scored_calls; Recall = correct / expected;
	// F1 = 2·correct / (scored_calls + expected).
	Precision Ratio `json:"precision"`
	Recall    Ratio `json:"recall"`
	F1        Ratio `json:"f1"`
	// InvalidArguments counts calls whose arguments were not JSON;
	// Unmocked calls of tools no mock answered.
	InvalidArguments int `json:"invalid_arguments"`
	Unmocked         int `json:"unmocked"`
	// ArgsChecked counts the (turn, tool) pairs whose arguments a tools
	// block checks and that called the tool; ArgsPassed those where one
	// call met every expectation; ArgumentAccuracy = passed / checked.
	ArgsChecked      int   `json:"args_checked"`
	ArgsPassed       int   `json:"args_passed"`
	ArgumentAccuracy Ratio `json:"argument_accuracy"`
	// Sequences and SequencesPassed count the sequence checks.
	Sequences       int `json:"sequences"`
	SequencesPassed int `json:"sequences_passed"`
	// FinalStates counts the conversations and scenarios whose final
	// state was checked; FinalStatesPassed those whose every final-state
	// expectation held.
	FinalStates       int   `json:"final_states"`
	FinalStatesPassed int   `json:"final_states_passed"`
	FinalStateRate    Ratio `json:"final_state_rate"`
	// Tool breaks the figures down per tool name; Mode the sequence
	// checks per mode.
	Tool map[string]*ToolFigures `json:"tool"`
	Mode map[string]*ModeFigures `json:"mode"`
}

// ToolFigures are one tool's figures in metrics.tools.tool["NAME"].
type ToolFigures struct {
	Calls            int   `json:"calls"`
	ScoredCalls      int   `json:"scored_calls"`
	Expected         int   `json:"expected"`
	Correct          int   `json:"correct"`
	Precision        Ratio `json:"precision"`
	Recall           Ratio `json:"recall"`
	F1               Ratio `json:"f1"`
	ArgsChecked      int   `json:"args_checked"`
	ArgsPassed       int   `json:"args_passed"`
	ArgumentAccuracy Ratio `json:"argument_accuracy"`
}

// ModeFigures are one sequence mode's figures in metrics.tools.mode["MODE"].
type ModeFigures struct {
	Checked  int   `json:"checked"`
	Passed   int   `json:"passed"`
	PassRate Ratio `json:"pass_rate"`
}

// F1Of is 2·correct / (calls + expected): the F1 of a precision
// correct/calls and a recall correct/expected, as a ratio.
func F1Of(correct, calls, expected int) Ratio { return R(2*correct, calls+expected) }

var toolFigureAttrs = []Attr{
	{Name: "calls", Kind: MetricCount, Doc: "tool calls made"},
	{Name: "scored_calls", Kind: MetricCount, Doc: "calls of turns whose tools block lists called (precision's denominator)"},
	{Name: "expected", Kind: MetricCount, Doc: "calls the called lists expect (recall's denominator)"},
	{Name: "correct", Kind: MetricCount, Doc: "scored calls matched by name to an expected call"},
	{Name: "precision", Kind: MetricRatio, Doc: "correct / scored_calls"},
	{Name: "recall", Kind: MetricRatio, Doc: "correct / expected"},
	{Name: "f1", Kind: MetricRatio, Doc: "2·correct / (scored_calls + expected)"},
	{Name: "args_checked", Kind: MetricCount, Doc: "turns that check the tool's arguments and called it"},
	{Name: "args_passed", Kind: MetricCount, Doc: "of them, turns where one call met every args expectation"},
	{Name: "argument_accuracy", Kind: MetricRatio, Doc: "args_passed / args_checked"},
}

// ToolsFamily is the tools family's part of the metrics tree.
var ToolsFamily = &Family{Name: "tools", Absent: "metrics.tools counts the tool calls of agents and the checks of tools and final_state blocks, and no turn of this run made a tool call or had such a check", Subs: []*Sub{{
	Name: "tools", Doc: "tool calls of agents: precision, recall and F1 against the tools blocks, argument accuracy, sequences, final states (present when the run has tool calls or tool checks)",
	Shape: &Shape{
		Attrs: append(slicesClone(toolFigureAttrs),
			Attr{Name: "invalid_arguments", Kind: MetricCount, Doc: "calls whose arguments were not JSON"},
			Attr{Name: "unmocked", Kind: MetricCount, Doc: "calls of a tool no mock answers"},
			Attr{Name: "sequences", Kind: MetricCount, Doc: "sequence checks (tools blocks with sequence)"},
			Attr{Name: "sequences_passed", Kind: MetricCount, Doc: "sequence checks that held"},
			Attr{Name: "final_states", Kind: MetricCount, Doc: "conversations and scenarios whose final state was checked"},
			Attr{Name: "final_states_passed", Kind: MetricCount, Doc: "of them, those whose every final_state expectation held"},
			Attr{Name: "final_state_rate", Kind: MetricRatio, Doc: "final_states_passed / final_states"},
		),
		Subs: []*Sub{
			{Name: "tool", Doc: "per tool name", Keyed: true, What: "tool", Shape: &Shape{Attrs: toolFigureAttrs}},
			{Name: "mode", Doc: "sequence checks per mode (exact, in_order, any_order, subset, superset)", Keyed: true, What: "sequence mode", Shape: &Shape{Attrs: []Attr{
				{Name: "checked", Kind: MetricCount, Doc: "sequence checks of the mode"},
				{Name: "passed", Kind: MetricCount, Doc: "of them held"},
				{Name: "pass_rate", Kind: MetricRatio, Doc: "passed / checked"},
			}}},
		},
	},
	Props: []string{"calls", "precision", "recall", "f1", "argument_accuracy", "final_state_rate"},
}}}

func slicesClone(a []Attr) []Attr { return append([]Attr(nil), a...) }

// ToolNames appends the names of calls to dst.
func ToolNames(dst []string, calls []ToolCall) []string {
	for i := range calls {
		dst = append(dst, calls[i].Name)
	}
	return dst
}

// MaxEarlierTools caps Result.EarlierTools.
const MaxEarlierTools = 1024

// QuoteNames renders a list of tool names for messages: ["a", "b"].
func QuoteNames(names []string) string {
	b := []byte{'['}
	for i, n := range names {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, n)
	}
	return string(append(b, ']'))
}
