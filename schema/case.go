package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/nlutest/nlutest/jsondoc"
)

// Slot is one material value filled into a case's placeholder.
type Slot struct {
	// Value is the raw value as it appears in the utterance.
	Value string `json:"value"`
	// Normalized is the value normalised for the suite's schema, when the
	// material value declares one; empty otherwise.
	Normalized string `json:"normalized,omitempty"`
	// Tag is the material's parent tag (the IAO corpus-factory write-up's father_tag).
	Tag string `json:"tag,omitempty"`
	// Level is the material value's level (M1–M4).
	Level string `json:"level,omitempty"`
	// Source names where the value came from: the materials block and, for
	// file-backed materials, the file and line.
	Source string `json:"source,omitempty"`
}

// Expected returns the value an expectation compares against: the
// normalised value when there is one, else the raw value.
func (s Slot) Expected() string {
	if s.Normalized != "" {
		return s.Normalized
	}
	return s.Value
}

// Expectation is one resolved `path = value` pair of a case.
type Expectation struct {
	// Path is the JSONPath as written (after `.[` normalisation).
	Path string
	// Value is the expected JSON value in ojg's generic form: nil, bool,
	// int64, float64, string, []any or map[string]any.
	Value any
}

// Expectations keeps a case's expectations in source order. In JSON it is an
// object whose keys keep that order, so `"expect": {"$.code": 200, ...}`
// reads like the suite that produced it.
type Expectations []Expectation

// MarshalJSON writes the expectations as one JSON object in order.
func (e Expectations) MarshalJSON() ([]byte, error) {
	return e.appendJSON(make([]byte, 0, 64*len(e)+2))
}

// UnmarshalJSON reads a JSON object, keeping key order.
func (e *Expectations) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*e = nil
		return nil
	}
	out := Expectations{}
	err := jsondoc.Members(data, func(key []byte, val []byte) error {
		v, err := decodeGeneric(val)
		if err != nil {
			return err
		}
		out = append(out, Expectation{Path: string(key), Value: v})
		return nil
	})
	if err != nil {
		return fmt.Errorf("expect: %w", err)
	}
	*e = out
	return nil
}

// Case is one generated test utterance: the record `nlutest generate` writes
// as a JSONL line and the first half of every result record.
type Case struct {
	// ID is a short stable hash of (template name, slot assignment).
	ID string `json:"id"`
	// Suite is the suite's name.
	Suite string `json:"suite"`
	// Template names the template the case came from (empty for cases of
	// other source kinds).
	Template string `json:"template"`
	// Source names the case source (template, dataset…) the case came from
	// and SourceKind is that source's kind. Records written before case
	// sources had kinds hold only Template: read them with SourceOf.
	Source     string `json:"source,omitempty"`
	SourceKind string `json:"source_kind,omitempty"`
	// Text is the utterance sent to the target.
	Text string `json:"text"`
	// Level is the template level (S1, S2, …).
	Level string `json:"level,omitempty"`
	// Core is true for core business scenes.
	Core bool `json:"core"`
	// Scene is the business scene path, outermost first.
	Scene []string `json:"scene,omitempty"`
	// Tags are the template's tags.
	Tags []string `json:"tags,omitempty"`
	// Split lists the named splits the case belongs to.
	Split []string `json:"split,omitempty"`
	// Schema is the response schema the expectations were resolved for.
	Schema string `json:"schema,omitempty"`
	// Slots maps each placeholder name to the value filled in.
	Slots map[string]Slot `json:"slots,omitempty"`
	// Expect holds the resolved expectations in source order.
	Expect Expectations `json:"expect,omitempty"`
	// References are the reference answers or replies the text metrics
	// compare the case's reply with (dataset cases).
	References []string `json:"references,omitempty"`
	// Perturbation is the kind of perturbation (swap, delete, insert,
	// width, punct, synonym, homophone) that made this case from the case
	// whose id is Original; both are empty for an unperturbed case.
	Perturbation string `json:"perturbation,omitempty"`
	Original     string `json:"original,omitempty"`
	// Meta holds a dataset row's extra fields (the block's meta map), for
	// conditions, filters and reports.
	Meta map[string]string `json:"meta,omitempty"`
	// Candidate is the candidate response a ranking case asks the target
	// to score (case.candidate); Candidates are the candidates a ranking
	// case asks it to order (case.candidates), in the file's order. Both
	// are empty for other cases.
	Candidate  string   `json:"candidate,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
	// Unreviewed marks cases of templates whose expectations were drafted
	// by `nlutest annotate` and not yet reviewed.
	Unreviewed bool `json:"unreviewed,omitempty"`
	// Script is the id of the script (a conversation instance) the case is
	// a turn of, and Turn its index from 1; both are empty for a case that
	// is a script of its own (a template or dataset case).
	Script string `json:"script,omitempty"`
	Turn   int    `json:"turn,omitempty"`
	// Conversation is the session id the runner opened for the script (a
	// new one each time the script runs, so a conversation re-run after an
	// interruption or repeated by --repeat is a new session); empty for a
	// single-turn case. Request expressions read it as case.conversation.
	Conversation string `json:"conversation,omitempty"`
	// Event is "start" on a conversation's bot-first turn (turn {
	// bot_first = true }): the session opens without a user message, so
	// Text is empty; "" on every other turn and case.
	Event string `json:"event,omitempty"`
	// Repeat is the repetition (from 1) under --repeat N; 0 without it.
	Repeat int `json:"repeat,omitempty"`
	// Captures are the values earlier turns of the conversation captured
	// (capture = { NAME = "$.path" }), as this turn's expressions saw them
	// (capture.NAME).
	Captures map[string]string `json:"captures,omitempty"`
	// Fact, Expected and Distance describe a turn of a memory case (SPEC
	// §13, the chatbot memory-test patent): on a question turn, Fact is the
	// sentence told earlier and Expected what a right answer states (the
	// question is Text); Distance is the number of filler turns between
	// the last fact told and the first question, on every turn of the case.
	Fact     string `json:"fact,omitempty"`
	Expected string `json:"expected,omitempty"`
	Distance int    `json:"distance,omitempty"`
	// Reason is why a simulated user said this turn (a scenario's turn,
	// SPEC §14.6): `opened`, `answered ask "city"`, `volunteered "date"`,
	// `affirmed`, `requested "order_id"`, `repeated …`, or `llm` for an
	// LLM simulator's turn. Empty for a scripted turn.
	Reason string `json:"reason,omitempty"`
	// Agenda is the user simulator's state after this turn, handed to the
	// script's Next with the turn's result; never recorded.
	Agenda any `json:"-"`
	// History is the conversation before this turn, as the runner hands it
	// to the turn's request expressions (case.history); never recorded.
	History []Message `json:"-"`
	// Judge is set on the case a judge target is called with (a memory
	// question's answer to judge): its request expressions read it as
	// judge.fact, judge.question, judge.answer and judge.expect; never
	// recorded (the result's Judge records the call).
	Judge *JudgeInput `json:"-"`
	// UserSim is set on a scenario's turns whose user an LLM simulator
	// plays (user = "TARGET"): after the bot answers, the runner asks that
	// target for the next user turn unless Done. Never recorded.
	UserSim *UserSim `json:"-"`
	// Simulate is set on the case an LLM user simulator target is called
	// with: the system prompt and the conversation with roles flipped.
	// Never recorded (the result's Simulator records the call).
	Simulate *SimInput `json:"-"`
}

// UserSim is what the runner needs to ask an LLM user simulator for the
// turn after a scenario turn.
type UserSim struct {
	// Target names the simulator target.
	Target string
	// System is the simulator's system prompt, the goal filled in.
	System string
	// Done reports whether the scenario ends after the turn's result
	// without asking (success reached, max_turns).
	Done func(*Result) bool
}

// SimInput is the request of an LLM user simulator: its system prompt
// and the conversation so far as the simulated user sees it (the bot's
// replies are "user" messages, the simulated user's turns "assistant").
type SimInput struct {
	System   string
	Messages []Message
}

// EventStart is the Event of a conversation's bot-first turn.
const EventStart = "start"

// JudgeInput is what a judge target judges: the fact told, the question
// asked about it, the bot's answer and what a right answer states.
type JudgeInput struct {
	Fact, Question, Answer, Expect string
	// Rubric, when set, is the rubric block judging the reply (Answer) to
	// the user's text (Question) by Criteria; History is the conversation
	// before the turn (history = true) and Scored asks for a 1–5 score
	// instead of pass or fail (the rubric has a pass expression).
	Rubric, Criteria string
	History          []Message
	Scored           bool
}

// ScriptID is the id of the script the case belongs to: Script for a turn
// of a conversation, else the case's own id.
func (c *Case) ScriptID() string {
	if c.Script != "" {
		return c.Script
	}
	return c.ID
}

// KindTemplate is the source kind of cases generated from a template block.
const KindTemplate = "template"

// SourceOf returns the kind and name of the case's source: Source and
// SourceKind, or for a record that has only a template name (written before
// case sources had kinds), that template.
func (c *Case) SourceOf() (kind, name string) {
	if c.SourceKind != "" {
		return c.SourceKind, c.Source
	}
	if c.Source != "" {
		return KindTemplate, c.Source
	}
	return KindTemplate, c.Template
}

// SourceKey identifies a case source: its kind and name.
type SourceKey struct{ Kind, Name string }

// SourceKey returns the key of the case's source (see SourceOf).
func (c *Case) SourceKey() SourceKey {
	kind, name := c.SourceOf()
	return SourceKey{kind, name}
}

// EncodeLine writes v as one JSON line without HTML escaping, so Chinese
// text and `<`, `>` stay readable in JSONL files.
func EncodeLine(v any) ([]byte, error) {
	if c, ok := v.(*Case); ok && c != nil {
		return encodeCaseLine(c)
	}
	if r, ok := v.(*Result); ok && r != nil {
		return encodeResultLine(r)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
