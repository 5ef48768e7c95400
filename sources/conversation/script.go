package conversation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/ohler55/ojg/oj"
)

// This file is a conversation as a case source: its scripts (the joined
// case cut into turns), the captures that run after each turn, and the
// rebuild of a saved turn.

// turnReply is SourceInfo.Reply: the reply block of the case's turn.
func (cs *conversationSource) turnReply(c *schema.Case) *reply.Check {
	if c.Turn < 1 || c.Turn > len(cs.turns) {
		return nil
	}
	return cs.turns[c.Turn-1].Reply
}

// turnTools is SourceInfo.Tools: the tools block of the case's turn.
func (cs *conversationSource) turnTools(c *schema.Case) *tools.Checks {
	if c.Turn < 1 || c.Turn > len(cs.turns) {
		return nil
	}
	return cs.turns[c.Turn-1].Tools
}

func (cs *conversationSource) Name() string           { return cs.t.Name }
func (cs *conversationSource) Kind() string           { return spec.KindConversation }
func (cs *conversationSource) DeclRange() hcl.Range   { return cs.t.DeclRange }
func (cs *conversationSource) Info() *spec.SourceInfo { return &cs.info }

// Turns are the conversation's turns (spec.TurnSource): spec reads them
// for bot-first turns and missing captures.
func (cs *conversationSource) Turns() []*spec.Turn { return cs.turns }

func (cs *conversationSource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	return generate.Template(cs.s, cs.t, g, yield, cs.script)
}

// lazyTurnsAfter is the length from which a conversation's scripts make
// their turns after the first on demand (schema.Script.Rest), so a
// conversation of 100,000 turns does not hold 100,000 cases while it runs.
var lazyTurnsAfter = 64

// script cuts the joined case c into the conversation's turns and assigns
// the splits of its first turn to every turn.
func (cs *conversationSource) script(c *schema.Case, sp *spec.Splitter) (*schema.Script, error) {
	texts := strings.Split(c.Text, spec.TurnSep)
	n := len(cs.turns)
	eager := n
	if n > lazyTurnsAfter {
		eager = 1
	}
	sc := &schema.Script{ID: c.ID, Source: cs.t.Name, SourceKind: spec.KindConversation, Turns: make([]*schema.Case, eager)}
	turns := make([]schema.Case, eager)
	for i := range turns {
		cs.fillTurn(&turns[i], c, texts, i)
		sc.Turns[i] = &turns[i]
	}
	if err := sp.Assign(sc.Turns[0]); err != nil {
		return nil, err
	}
	split := sc.Turns[0].Split
	for _, tc := range sc.Turns[1:] {
		tc.Split = split
	}
	if eager < n {
		sc.RestLen = n - eager
		sc.Rest = func(i int) *schema.Case {
			tc := &schema.Case{}
			cs.fillTurn(tc, c, texts, i)
			tc.Split = split
			return tc
		}
	}
	if cs.hasCaptures {
		sc.After = cs.capture
	}
	sc.FinalState = cs.final
	return sc, nil
}

// fillTurn makes tc turn i of the joined case c, whose texts are cut at
// the turns.
func (cs *conversationSource) fillTurn(tc *schema.Case, c *schema.Case, texts []string, i int) {
	turn := cs.turns[i]
	*tc = *c
	tc.ID = c.ID + "/" + strconv.Itoa(i+1)
	tc.Template, tc.Source, tc.SourceKind = "", cs.t.Name, spec.KindConversation
	tc.Script, tc.Turn = c.ID, i+1
	if turn.BotFirst {
		tc.Event = schema.EventStart
	}
	if i < len(texts) {
		tc.Text = texts[i]
	}
	tc.Expect = nil
	if n := len(turn.Expect); n > 0 {
		at := cs.expectAt[i]
		tc.Expect = c.Expect[at : at+n : at+n]
	}
}

// capture runs after turn i of a script: it evaluates the turn's captures
// on its response, reply and (for "state:" paths) dialogue state and
// hands every value captured so far to the next turn. A capture that selects nothing is left out (the turn fails
// with it, CaptureFailures; a later turn reading it is told which).
func (cs *conversationSource) capture(i int, r *schema.Result, next *schema.Case) {
	caps := r.Captures
	if i < len(cs.turns) && len(cs.turns[i].Capture) > 0 {
		out := make(map[string]string, len(caps)+len(cs.turns[i].Capture))
		for k, v := range caps {
			out[k] = v
		}
		in := captureInput{r: r}
		for j := range cs.turns[i].Capture {
			if v, ok := in.selectValue(&cs.turns[i].Capture[j]); ok {
				out[cs.turns[i].Capture[j].Name] = v
			}
		}
		caps = out
	}
	next.Captures = caps
}

// captureInput is what a turn's captures select from: its response,
// parsed on first need, and its reply.
type captureInput struct {
	r *schema.Result
	// docs are the response and the dialogue state, parsed on first need.
	docs   [2]any
	parsed [2]bool
}

// selectValue is the value c selects, false when it selects nothing.
func (in *captureInput) selectValue(c *spec.Capture) (string, bool) {
	if c.Reply {
		got := in.r.Reply
		if got == "" {
			got = schema.ReplyOf(in.r.Response)
		}
		nfc := reply.NFC(got)
		m := c.Pattern.FindStringSubmatch(nfc)
		if folded := reply.Fold(nfc, false); m == nil && folded != nfc {
			m = c.Pattern.FindStringSubmatch(folded)
		}
		switch {
		case m == nil:
			return "", false
		case len(m) > 1:
			return m[1], true
		}
		return m[0], true
	}
	k, src := 0, in.r.Response
	if c.State {
		k, src = 1, in.r.State
	}
	if !in.parsed[k] {
		in.parsed[k] = true
		if len(src) > 0 {
			if doc, err := oj.Parse(src); err == nil {
				in.docs[k] = doc
			}
		}
	}
	if in.docs[k] == nil {
		return "", false
	}
	got := c.Expr.Get(in.docs[k])
	if len(got) == 0 {
		return "", false
	}
	return captureText(got[0]), true
}

// CaptureFailures are the failures of r's turn's captures that select
// nothing (SPEC §14.2): each fails its own turn, located at the capture.
func (cs *conversationSource) CaptureFailures(r *schema.Result) []schema.Failure {
	if r.Turn < 1 || r.Turn > len(cs.turns) {
		return nil
	}
	var out []schema.Failure
	in := captureInput{r: r}
	for j := range cs.turns[r.Turn-1].Capture {
		c := &cs.turns[r.Turn-1].Capture[j]
		if _, ok := in.selectValue(c); ok {
			continue
		}
		msg := fmt.Sprintf("capture %q: %q selected nothing", c.Name, c.Path)
		if c.State && len(r.State) == 0 {
			msg += " (the turn has no dialogue state: a rasa target with mode = \"webhook\" and tracker = true records it)"
		}
		if c.Reply {
			reply := r.Reply
			if reply == "" {
				reply = schema.ReplyOf(r.Response)
			}
			msg = fmt.Sprintf("capture_reply %q: %q matched nothing in %q", c.Name, c.Path, reply)
		}
		out = append(out, schema.Failure{Kind: CaptureFailureKind, Path: c.Path, Missing: true, Message: msg, File: c.Range.Filename, Line: c.Range.Start.Line})
	}
	return out
}

// CaptureFailureKind is the Failure.Kind of a capture that selected
// nothing.
const CaptureFailureKind = "capture"

// captureText is a captured value as text: a string as is, anything else
// as its JSON.
func captureText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return oj.JSON(v, &oj.Options{Sort: true})
}

// Rebuild returns the turn the conversation now generates for a saved
// turn: the conversation instance with the saved slots must have the saved
// id, and its turn the saved text.
func (cs *conversationSource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	script, turn, text := saved.Script, saved.Turn, saved.Text
	in := spec.Saved{ID: script, Text: spec.AnyText, Slots: saved.Slots}
	if saved.Case != nil {
		script, turn, text = saved.Case.Script, saved.Case.Turn, saved.Case.Text
		in = spec.Saved{Case: &schema.Case{ID: script, Text: spec.AnyText, Slots: saved.Case.Slots}}
	}
	if turn < 1 || turn > len(cs.turns) {
		return nil, false
	}
	joined, ok := cs.ts.Rebuild(in)
	if !ok {
		return nil, false
	}
	sc, err := cs.script(joined, spec.NewSplitter(cs.s))
	if err != nil {
		return nil, false
	}
	tc := sc.At(turn - 1)
	if tc.Text != text {
		return nil, false
	}
	return tc, true
}
