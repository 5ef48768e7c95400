package schema

import (
	"encoding/json"
	"time"

	"github.com/nlutest/nlutest/jsondoc"
)

// Error types recorded for calls that produced no usable response. They are
// the `type` of JUnit <error> elements.
const (
	ErrTimeout     = "Timeout"
	ErrConnection  = "ConnectionError"
	ErrHTTP        = "HTTPError"
	ErrInvalidJSON = "InvalidJSON"
	ErrTooLarge    = "ResponseTooLarge"
	ErrRequest     = "RequestError"
	ErrEvaluation  = "EvaluationError"
	// ErrTracker is a dialogue-state read that failed after the bot
	// answered (a rasa webhook target with tracker = true whose GET
	// /conversations/{id}/tracker gave a non-2xx status, invalid JSON, a
	// timeout or a reset): the call's error, so the turn is an error and
	// its conversation stops.
	ErrTracker = "TrackerError"
	// ErrSimulator is an LLM user simulator's call that failed after the
	// bot answered a scenario turn (an error status, a timeout, a reset,
	// an empty answer): the turn's error, so the scenario stops there
	// (SPEC §14.6; the call is in the result's Simulator).
	ErrSimulator = "SimulatorError"
	// ErrAnswerTooLong is a judge's or an LLM user simulator's answer
	// longer than what is kept of one (a judgement's error: the answer is
	// not recorded, the verdict is unparseable, the scenario stops).
	ErrAnswerTooLong = "AnswerTooLong"
)

// Request is what was sent to the target, with secrets already redacted.
type Request struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// BodyFromPrevious, on an LLM user simulator's request after the first
	// of its scenario, is how many bytes of the previous simulator
	// request's body (the previous turn's, itself rebuilt the same way)
	// this request's body begins with: the body sent is those bytes
	// followed by Body. Each request repeats the whole conversation so
	// far, so recording each whole would make results.jsonl grow with the
	// square of a scenario's length; 0 when Body is the whole body.
	BodyFromPrevious int    `json:"body_from_previous,omitempty"`
	Body             string `json:"body,omitempty"`
	// Redirects are the URLs the request was redirected to and followed,
	// in order (a target with redirects = "same-origin").
	Redirects []string `json:"redirects,omitempty"`
}

// CallError describes a call that produced no usable response.
type CallError struct {
	// Type is one of the Err* constants.
	Type string `json:"type"`
	// Message is a one-line description for people.
	Message string `json:"message"`
	// Local marks a failure on this side rather than the target's (the
	// process ran out of file descriptors): such a call is not a result,
	// is never recorded, and `run --resume` calls it again.
	Local bool `json:"-"`
}

// Failure is one failed expectation or condition of a case.
type Failure struct {
	// Kind is "expect" for a JSONPath expectation, "assert" for a condition.
	Kind string `json:"kind"`
	// Path is the expectation's JSONPath (expect only).
	Path string `json:"path,omitempty"`
	// Expected is the expected value (expect only).
	Expected any `json:"expected,omitempty"`
	// Actual is the value found; absent when Missing.
	Actual any `json:"actual,omitempty"`
	// Missing is true when the path selected nothing.
	Missing bool `json:"missing,omitempty"`
	// Message explains the failure; for conditions it is the block's
	// message followed by the values of the names the condition used.
	Message string `json:"message,omitempty"`
	// Dimension is the schema dimension the expectation belongs to.
	Dimension string `json:"dimension,omitempty"`
	// File and Line locate the expectation or assert block.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Result is one line of a run's results file: the case record plus what
// happened when the target was called with it (the IAO corpus-factory write-up: "append each case's
// result to its JSONL line").
type Result struct {
	Case
	// Target is the name of the target called.
	Target string `json:"target"`
	// Request is what was sent (redacted).
	Request *Request `json:"request,omitempty"`
	// Status is the HTTP status (or the exec target's exit status).
	Status int `json:"status,omitempty"`
	// Headers are the response headers (sensitive ones redacted).
	Headers map[string]string `json:"headers,omitempty"`
	// Response is the response body when it was JSON.
	Response json.RawMessage `json:"response,omitempty"`
	// Body is the (capped) response body when it was not JSON.
	Body string `json:"body,omitempty"`
	// Reply is the bot's reply text: what a chatbot target's reply
	// expression or API gives, else the response when it is a JSON string
	// (see ReplyOf); empty when there is none.
	Reply string `json:"reply,omitempty"`
	// State is the dialogue state the target read after the call, raw
	// JSON (redacted as responses are): for a rasa webhook target with
	// tracker = true, the conversation's tracker cut to slots,
	// latest_message, latest_action_name and active_loop. Conditions read
	// it as `state`, expectations as "state:$.path". Empty when the target
	// reads no state.
	State json.RawMessage `json:"state,omitempty"`
	// Usage is the token count a language-model target reported for the
	// call (an openai target's usage), nil when it reported none.
	Usage *Usage `json:"usage,omitempty"`
	// ToolCalls are the tool calls the agent made during the turn, in
	// order (an openai target answering with tool_calls, each answered by
	// a mock tool; an http target's own list mapped by its tool_calls
	// attribute), at most MaxToolCallsPerTurn.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// EarlierTools, on the turn that ends a script of several turns, are
	// the names of the tool calls of its earlier turns, in order (at most
	// MaxEarlierTools): a conversation's tools block checks its sequence
	// on that turn, so eval needs no other record.
	EarlierTools []string `json:"earlier_tools,omitempty"`
	// LatencyMS is the duration of the last attempt in milliseconds (for
	// a turn of a tool-using agent, the sum of its model requests').
	LatencyMS float64 `json:"latency_ms"`
	// Attempts counts calls made, retries included (0 when the response
	// came from the --cache).
	// (int32: with Cached it fills one word, keeping a Result within the
	// 896-byte allocation class with the tool-call fields.)
	Attempts int32 `json:"attempts"`
	// Cached is true when the response came from the response cache.
	Cached bool `json:"cached,omitempty"`
	// ScriptTurns, on every turn of a script of several turns
	// (conversation, memory), is the number of the script's turns recorded
	// together with it: all of them, or those up to the turn whose call
	// errored. The runner sets it on the turn that ends the script; the
	// run stamps the others when it records the script whole. A script's
	// lines whose count differs from it were cut short and are never
	// counted (`run --resume` runs the script again from turn 1). 0 for a
	// single case, and in records written before it existed.
	ScriptTurns int `json:"script_turns,omitempty"`
	// Started is when the first attempt began.
	Started time.Time `json:"started"`
	// Error is set when the call produced no usable response.
	Error *CallError `json:"error,omitempty"`
	// FinalState, on the turn that ends a conversation or scenario with a
	// final_state block, is the end state read after it.
	FinalState *FinalState `json:"final_state,omitempty"`
	// Outcome is pass, fail or error as evaluated when the result was
	// recorded; `nlutest eval` recomputes it from the suite as it is now.
	Outcome Outcome `json:"outcome"`
	// Failures lists every failed expectation and condition.
	Failures []Failure `json:"failures,omitempty"`
	// Verdict is a memory question turn's judgement of its answer
	// (entailed, neutral, contradicted, unanswered, or unparseable for a
	// judge target whose answer could not be read), computed with the
	// outcome; empty for other turns.
	Verdict string `json:"verdict,omitempty"`
	// Judge records the call to the judge target that judged a memory
	// question's answer (nil when the source's judge is built in, or the
	// question was unanswered): `nlutest eval` re-judges from it without
	// calling anything.
	Judge *Judgement `json:"judge,omitempty"`
	// Simulator records the call to a scenario's LLM user simulator made
	// after the bot answered this turn: its answer (Reply) is the next
	// user turn, or the stop word. `nlutest eval` reads the recorded
	// turns and never simulates again.
	Simulator *Judgement `json:"simulator,omitempty"`
	// Rubrics are the case's rubric judgements (its rubric blocks, in
	// order): each judge call as recorded, and the verdict read from it
	// with the outcome (a rubric that does not pass fails the case).
	Rubrics []RubricVerdict `json:"rubrics,omitempty"`
	// Tools is what evaluation found about the turn's tool calls, for
	// metrics.tools (nil when the turn has no calls and no tool checks);
	// never recorded.
	Tools *ToolOutcome `json:"-"`
	// StateChecksSkipped counts the checks of the turn's dialogue state
	// (state: expectations, conditions reading state, state: captures)
	// that evaluation skipped because the result has no state and its
	// target records none (SPEC §14.4); set by evaluation, never recorded.
	StateChecksSkipped int32 `json:"-"` // int32: it shares a word with success, keeping a Result in the 896-byte size class
	// success memoises, on a scenario's turn in the live run, whether the
	// scenario's success condition held on it (see SuccessMemo); never
	// recorded, so `nlutest eval` and `--resume` check it again from the
	// recorded turn.
	success memo
}

// memo is a memoised verdict: unknown until set.
type memo int8

const (
	memoUnknown memo = iota
	memoFalse
	memoTrue
)

// SuccessMemo returns check(r), computed once per result: the scenario
// simulator checks a turn's success condition to decide whether to stop,
// and the evaluator's scenario outcome and metrics reuse that verdict
// instead of evaluating the condition again. check must depend only on
// what a result holds when its call returns (its case and response), not
// on what evaluation adds (outcome, failures).
func (r *Result) SuccessMemo(check func(*Result) bool) bool {
	if r.success == memoUnknown {
		r.success = memoFalse
		if check(r) {
			r.success = memoTrue
		}
	}
	return r.success == memoTrue
}

// Judgement is a judge target's call on one answer: what was sent, what
// came back, and the judge's reply text. The verdict is not stored here:
// it is read from it by the judge block's verdict expression, at run and
// again at every eval.
type Judgement struct {
	// Target names the judge target.
	Target   string          `json:"target"`
	Request  *Request        `json:"request,omitempty"`
	Status   int             `json:"status,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Body is the (capped) response body when it was not JSON.
	Body      string     `json:"body,omitempty"`
	Reply     string     `json:"reply,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`
	LatencyMS float64    `json:"latency_ms"`
	Attempts  int        `json:"attempts"`
	Cached    bool       `json:"cached,omitempty"`
	Error     *CallError `json:"error,omitempty"`
}

// JudgementOf keeps what a judgement needs of the judge target's result.
func JudgementOf(r *Result) *Judgement {
	return &Judgement{
		Target: r.Target, Request: r.Request, Status: r.Status, Response: r.Response, Body: r.Body,
		Reply: r.Reply, Usage: r.Usage, LatencyMS: r.LatencyMS, Attempts: int(r.Attempts), Cached: r.Cached, Error: r.Error,
	}
}

// Memory verdicts (Result.Verdict).
const (
	Entailed     = "entailed"
	Neutral      = "neutral"
	Contradicted = "contradicted"
	Unanswered   = "unanswered"
	Unparseable  = "unparseable"
)

// ReplyOf is the default reply of a response: the text of a response that
// is one JSON string, else "".
func ReplyOf(response json.RawMessage) string {
	if len(response) < 2 || response[0] != '"' || response[len(response)-1] != '"' {
		return ""
	}
	s, err := jsondoc.Unquote(response)
	if err != nil {
		return ""
	}
	return s
}

// Usage is the tokens a language-model call consumed, as OpenAI's chat
// completions report them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
