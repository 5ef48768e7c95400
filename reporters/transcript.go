package reporters

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// Transcript is one conversation run as reports show it: its turns in
// order, each with what the user said, what the bot replied, and the
// turn's failing expectations; turns after a turn whose call errored are
// NotRun. ReportView puts the failed ones in a section's Transcripts.
type Transcript struct {
	Source  string // the conversation block
	Kind    string // its kind: conversation, memory (empty: conversation)
	Script  string // the conversation instance (script id)
	Session string // its session id in this run
	Repeat  int    // the repetition under --repeat (0 without)
	File    string
	Line    int
	// Outcome is pass when every turn ran and passed, else the worst
	// turn's (fail when turns were not run).
	Outcome schema.Outcome
	Turns   []TranscriptTurn
	// ByThresholds says the suite's thresholds, not each conversation,
	// decide the verdict: a failed conversation is then a warning.
	ByThresholds bool
	// Goal is a scenario's goal (empty for a conversation).
	Goal string
}

// Mark is the transcript's mark: like a listed case's (Failures.Mark), a
// failed conversation that does not decide the verdict is a warning, not
// a red mark (SPEC §9).
func (t *Transcript) Mark() Mark {
	if t.Outcome == schema.Fail && t.ByThresholds {
		return MarkWarn
	}
	return outcomeMark(t.Outcome)
}

// TranscriptTurn is one turn of a transcript.
type TranscriptTurn struct {
	N    int
	User string
	// BotFirst: the turn opened the session without a user message
	// (bot_first); User is empty.
	BotFirst bool
	// Bot is the reply, or the response when the target gives no reply
	// text.
	Bot string
	// Reason is why a scenario's simulated user said the turn.
	Reason   string
	Outcome  schema.Outcome
	NotRun   bool
	Error    *schema.CallError
	Failures []schema.Failure
	// Rubrics are the turn's rubric verdicts.
	Rubrics []schema.RubricVerdict
}

// Name is how reports name the conversation: its block's kind and name,
// its instance id, and the repetition when there is one.
func (t *Transcript) Name() string {
	kind := t.Kind
	if kind == "" {
		kind = "conversation"
	}
	s := kind + " " + oneLine(t.Source) + " [" + oneLine(t.Script) + "]"
	if t.Repeat > 0 {
		s += " #" + strconv.Itoa(t.Repeat)
	}
	return s
}

// transcripts groups the conversation turns of a report's cases into
// transcripts, by session, in the order of their script ids.
func transcripts(r *schema.Report) []*Transcript {
	by := map[string]*Transcript{}
	var out []*Transcript
	for c := range r.ListedCases() {
		if c.Turn < 1 {
			continue
		}
		key := c.Conversation
		if key == "" {
			key = c.Script + "#" + strconv.Itoa(c.Repeat)
		}
		t := by[key]
		if t == nil {
			t = &Transcript{Source: c.Source, Kind: c.SourceKind, Script: c.Script, Session: c.Conversation, Repeat: c.Repeat, File: c.File, Line: c.Line}
			by[key] = t
			out = append(out, t)
		}
		for len(t.Turns) < max(c.Turn, c.Turns) {
			t.Turns = append(t.Turns, TranscriptTurn{N: len(t.Turns) + 1, NotRun: true})
		}
		bot := c.Reply
		if bot == "" {
			bot = c.Response
		}
		t.Turns[c.Turn-1] = TranscriptTurn{N: c.Turn, User: c.Text, BotFirst: c.Event == schema.EventStart, Bot: bot, Reason: c.Reason, Outcome: c.Outcome, Error: c.Error, Failures: c.Failures, Rubrics: c.Rubrics}
		if c.Goal != "" {
			t.Goal = c.Goal
		}
	}
	for _, t := range out {
		t.Outcome = schema.Pass
		for _, tt := range t.Turns {
			o := tt.Outcome
			if tt.NotRun {
				o = schema.Fail
			}
			t.Outcome = max(t.Outcome, o)
		}
	}
	slices.SortStableFunc(out, func(a, b *Transcript) int {
		return strings.Compare(a.Script+"#"+strconv.Itoa(a.Repeat), b.Script+"#"+strconv.Itoa(b.Repeat))
	})
	return out
}

// failedTranscripts are the transcripts of the conversations that did not
// pass.
func failedTranscripts(r *schema.Report) []*Transcript {
	var out []*Transcript
	for _, t := range transcripts(r) {
		if t.Outcome != schema.Pass {
			out = append(out, t)
		}
	}
	return out
}

// Lines renders the transcript as plain text lines (no marks, no
// colour): the console, Markdown's code blocks and JUnit's system-out use
// them.
func (t *Transcript) Lines() []string {
	lines := []string{fmt.Sprintf("%s  session %s  %s", t.Name(), oneLine(t.Session), t.Outcome)}
	if t.Goal != "" {
		lines = append(lines, "  goal: "+oneLine(t.Goal))
	}
	for _, tt := range t.Turns {
		if tt.NotRun {
			lines = append(lines, fmt.Sprintf("  turn %d  not run (an earlier turn's call errored)", tt.N))
			continue
		}
		user := "    user: " + tt.UserLine()
		if tt.Reason != "" {
			user += "  (" + oneLine(tt.Reason) + ")"
		}
		lines = append(lines, fmt.Sprintf("  turn %d  %s", tt.N, tt.Outcome), user)
		if tt.Error != nil {
			lines = append(lines, "    error: "+callErrorLine(tt.Error))
		} else {
			lines = append(lines, "    bot:  "+capLine(oneLine(tt.Bot), 400))
		}
		lines = append(lines, rubricLines(tt.Rubrics, tt.Failures)...)
		for _, f := range tt.Failures {
			if f.Kind == "rubric" {
				continue // rubricLines shows it
			}
			line := "    ✗ " + failureLine(f)
			if loc := location(f.File, f.Line); loc != "" {
				line += "  (" + loc + ")"
			}
			lines = append(lines, line)
		}
	}
	if stuck := t.stuck(); stuck != "" {
		lines = append(lines, "  stuck: "+stuck)
	}
	return lines
}

// rubricLines are a turn's rubric verdicts, one line each: the mark, the
// rubric's name, its verdict and score, what the judge said, and for one
// that failed the block's location (from its failure).
func rubricLines(rs []schema.RubricVerdict, fs []schema.Failure) []string {
	var out []string
	for _, v := range rs {
		mark := "✗"
		if v.Verdict == schema.RubricPass {
			mark = "✓"
		}
		line := "    " + mark + " " + RubricLine(v)
		for _, f := range fs {
			if f.Kind == "rubric" && f.Path == v.Name {
				if loc := location(f.File, f.Line); loc != "" {
					line += "  (" + loc + ")"
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// RubricLine is one rubric verdict on one line: "rubric NAME: VERDICT,
// score N — DETAIL".
func RubricLine(v schema.RubricVerdict) string {
	s := "rubric " + oneLine(v.Name) + ": " + v.Verdict
	if v.Score > 0 {
		s += ", score " + strconv.Itoa(v.Score)
	}
	if v.Detail != "" {
		s += " — " + capLine(oneLine(v.Detail), 300)
	}
	return s
}

// stuck says where a failed scenario got stuck: the turn from which the
// bot gave the same reply to the end (at least two turns), whatever the
// simulated user's wording — an agenda simulator's answer paraphrases and
// an LLM simulator's turns vary while the bot asks the same thing — and,
// when the user did the same each time, what it did; "" when the bot did
// not repeat itself.
func (t *Transcript) stuck() string {
	n := len(t.Turns)
	if t.Goal == "" || t.Outcome == schema.Pass || n < 2 {
		return ""
	}
	last := t.Turns[n-1]
	from, sameReason := n-1, true
	for from > 0 {
		p := t.Turns[from-1]
		if p.NotRun || p.Bot != last.Bot {
			break
		}
		sameReason = sameReason && p.Reason == last.Reason
		from--
	}
	if from == n-1 {
		return ""
	}
	user := "whatever the simulated user said"
	if sameReason && last.Reason != "" && last.Reason != reasonLLM {
		user = "and the simulated user " + oneLine(last.Reason) + " each time"
	}
	return fmt.Sprintf("from turn %d to %d the bot replied %q %s", t.Turns[from].N, last.N, capLine(oneLine(last.Bot), 120), user)
}

// reasonLLM is the reason of a turn an LLM user simulator wrote (spec's
// ReasonLLM): not a deed the stuck line can name.
const reasonLLM = "llm"

// firstFailure is a one-line summary of the first turn that did not pass.
func (t *Transcript) firstFailure() string {
	for _, tt := range t.Turns {
		switch {
		case tt.NotRun:
			return fmt.Sprintf("turn %d not run", tt.N)
		case tt.Error != nil:
			return fmt.Sprintf("turn %d: %s", tt.N, callErrorLine(tt.Error))
		case len(tt.Failures) > 0:
			return fmt.Sprintf("turn %d: %s", tt.N, failureLine(tt.Failures[0]))
		}
	}
	return "passed"
}

// transcriptSections is the section of failed conversations' transcripts.
func transcriptSections(r, _ *schema.Report) []Section {
	ts := failedTranscripts(r)
	if len(ts) == 0 {
		return nil
	}
	for _, t := range ts {
		t.ByThresholds = byThresholds(r)
	}
	return []Section{{ID: "conversations", Title: fmt.Sprintf("Failed conversations (%d)", len(ts)),
		Intro:       "Each failed conversation's transcript: what the user said and the bot replied, turn by turn, with the failing expectations under their turn.",
		Transcripts: ts}}
}

// UserLine is the user's text of the turn on one line, or, on a bot-first
// turn, BotFirstLine.
func (tt *TranscriptTurn) UserLine() string {
	if tt.BotFirst {
		return BotFirstLine
	}
	return oneLine(tt.User)
}

// BotFirstLine stands for the user's text on a bot-first turn.
const BotFirstLine = "(none: the bot speaks first)"
