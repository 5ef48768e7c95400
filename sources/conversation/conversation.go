// Package conversation owns the conversation case source kind (SPEC
// §13): ordered turn blocks whose user texts share one slot assignment
// per conversation instance, with per-turn checks (expect, assert, reply,
// rubric, tools), captures later turns read, a conversation's own tools
// block and its final_state block. A conversation is generated as a
// template whose text is its turns' texts joined by spec.TurnSep (so
// strategies, limits, ids and rebuilds are the template's), and each
// generated case is cut back into turns. It reads its blocks through
// spec's public Decoder, like any kind a program adds.
package conversation

import (
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/rubric"
)

// This file is the kind and its decoding; generation, captures and
// rebuilds are in script.go.

// Kind is the conversation source kind (a spec.SourceKind), for
// extensions' set.
type Kind struct{}

// Block is the block type, "conversation".
func (Kind) Block() string { return spec.KindConversation }

var conversationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"}, {Name: "strategy"}, {Name: "limit"},
		{Name: "count"}, {Name: "seed"}, {Name: "material_levels"}, {Name: "reviewed"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "turn"}, {Type: "tools"}, {Type: "final_state"}},
}

// conversationSource is a conversation block as a case source.
type conversationSource struct {
	s     *spec.Suite
	t     *spec.Template // the joined template
	turns []*spec.Turn
	info  spec.SourceInfo
	ts    spec.Source // the joined template's own source, for rebuilds
	// hasCaptures: some turn captures values.
	hasCaptures bool
	// final is how the runner reads the final state (nil without a
	// final_state block).
	final *schema.FinalStateQuery
	// expectAt[i] is where turn i's expectations start in the joined
	// template's.
	expectAt []int
}

// Decode reads a conversation block: its generation settings, its turns
// (streamed in batches from a long file, fragments expanded), their
// checks, its tools and final_state blocks.
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, conversationSchema)
	if !ok {
		return nil
	}
	s := d.Suite()
	t := &spec.Template{Name: spec.BlockLabel(b), DeclRange: b.DefRange, TextRange: b.DefRange}
	d.GenerationSettings(t, c, b)
	tb := d.TurnBlocks(b, c)
	if tb.Batches() == 0 {
		d.Errorf(b.DefRange.Ptr(), "Conversation without turns", "A conversation needs at least one turn block: turn { user = \"…\" }.")
		return nil
	}
	cs := &conversationSource{s: s, t: t}
	batches, textOK, ok := cs.readTurns(d, tb)
	if !ok {
		return nil
	}
	t.Parts = append(t.Parts, spec.Part{Literal: "", Slot: -1})
	slots := t.SlotKeys()
	d.SlotsUnknown(!textOK)
	cs.readChecks(d, tb, batches, slots)
	final := FinalState(d, c.Blocks, slots)
	if final != nil { // checked on the last turn
		last := cs.turns[len(cs.turns)-1]
		last.Expect = append(last.Expect, final.Expect...)
	}
	cs.expectAt = make([]int, len(cs.turns))
	for i, turn := range cs.turns {
		cs.expectAt[i] = len(t.Expect)
		t.Expect = append(t.Expect, turn.Expect...)
	}
	d.SlotsUnknown(false)
	if !textOK {
		return nil
	}
	cs.info = spec.SourceInfo{Level: t.Level, Core: t.Core, Scene: t.Scene, Expect: t.Expect, Slots: slots, Reviewed: t.Reviewed, Turns: len(cs.turns)}
	cs.info.ScriptTools, _ = d.ToolsBlocks(c.Blocks, slots, true)
	cs.info.FinalState = final
	cs.final = FinalQuery(final, s)
	for _, turn := range cs.turns {
		cs.info.Asserts = append(cs.info.Asserts, turn.Asserts...)
		cs.info.TurnAsserts = append(cs.info.TurnAsserts, turn.Asserts)
		if turn.Reply != nil {
			cs.info.Reply = cs.turnReply
		}
		if len(turn.Capture) > 0 {
			cs.info.CaptureFailures = cs.CaptureFailures
		}
		cs.info.TurnRubrics = append(cs.info.TurnRubrics, turn.Rubrics)
		if turn.Tools != nil {
			cs.info.Tools = cs.turnTools
		}
	}
	cs.ts = generate.NewSource(s, t)
	return cs
}

// readTurns reads the turns' openings and texts, batch by batch, the
// fragments they use expanded. As when every turn was read at once, the
// diagnostics are those of expanding every turn, then — only when all
// expand — those of every turn's opening and text; ok is false when a
// turn does not expand. A turn whose opening or text is wrong does not
// stop the others (textOK is then false): it is read as a turn without
// text, so that the checks of every turn are still read (readChecks). It
// returns what readChecks needs to know of each batch.
func (cs *conversationSource) readTurns(d *spec.Decoder, tb *spec.TurnBlocks) (batches []batchTurns, textOK, ok bool) {
	expanded := true
	textOK = true
	var openDiags hcl.Diagnostics
	index := map[string]int{}
	batches = make([]batchTurns, tb.Batches())
	for bi := range batches {
		turns, good := tb.Expand(bi)
		expanded = expanded && good
		if !expanded {
			continue
		}
		batches[bi].turns = len(turns)
		openDiags = append(openDiags, d.Hold(func() {
			for _, t := range turns {
				batches[bi].checks = batches[bi].checks || hasChecks(t.Content)
				i := len(cs.turns)
				turn, good := turnOpening(d, t, i)
				if !good {
					turn = &spec.Turn{}
				}
				if !good || !d.AppendTurnText(cs.t, turn.User, turn.UserRange, i, index) {
					textOK = false
				}
				cs.turns = append(cs.turns, turn)
			}
		})...)
	}
	if !expanded {
		return nil, false, false
	}
	d.Report(openDiags...)
	return batches, textOK, true
}

// batchTurns is what readTurns learnt of a batch of turn blocks: the
// turns it expands to, and whether one of them has checks.
type batchTurns struct {
	turns  int
	checks bool
}

// hasChecks reports whether a turn has more than its opening.
func hasChecks(c *hcl.BodyContent) bool {
	if len(c.Blocks) > 0 {
		return true
	}
	for name := range c.Attributes {
		if name != "user" && name != "bot_first" {
			return true
		}
	}
	return false
}

// readChecks reads the turns' expect, capture, assert, reply and rubric
// checks: the batches that have some, expanded again (their diagnostics
// were reported by readTurns).
func (cs *conversationSource) readChecks(d *spec.Decoder, tb *spec.TurnBlocks, batches []batchTurns, slots []string) {
	at := 0
	for bi, b := range batches {
		if b.checks {
			var turns []spec.TurnBody
			d.Hold(func() { turns, _ = tb.Expand(bi) })
			for k, t := range turns {
				cs.decodeTurnChecks(d, cs.turns[at+k], t.Content, slots)
			}
		}
		at += b.turns
	}
}

// turnOpening reads how turn i opens: the user's text, or bot_first =
// true (the first turn only, without user).
func turnOpening(d *spec.Decoder, tb spec.TurnBody, i int) (*spec.Turn, bool) {
	attrs := tb.Content.Attributes
	turn := &spec.Turn{User: d.String(attrs, "user", "")}
	if a, ok := attrs["user"]; ok {
		turn.UserRange = a.Expr.Range()
	}
	a, ok := attrs["bot_first"]
	if ok {
		turn.BotFirst = d.Bool(attrs, "bot_first", false)
		turn.BotFirstRange = a.Range
	}
	_, hasUser := attrs["user"]
	switch {
	case turn.BotFirst && i > 0:
		d.Errorf(a.Range.Ptr(), "Bot-first turn after the first",
			"Only a conversation's first turn may open without a user message (bot_first = true): the bot speaks first once, when the session opens. Remove bot_first here, or move this turn first.")
		return nil, false
	case turn.BotFirst && hasUser:
		d.Errorf(a.Range.Ptr(), "Bot-first turn with a user message",
			"A bot_first turn sends no user message; it checks the bot's welcome. Remove user = … from this turn, or remove bot_first and keep the user's text.")
		return nil, false
	case !turn.BotFirst && !hasUser:
		d.Errorf(tb.Block.DefRange.Ptr(), "Turn without user",
			"A turn needs the user's text, user = \"…\"; or, as the first turn, bot_first = true to check the bot's welcome; or use = \"NAME\" for the turns of a fragment.")
		return nil, false
	}
	return turn, true
}

// decodeTurnChecks reads a turn's expect, capture, assert and rubric
// blocks.
func (cs *conversationSource) decodeTurnChecks(d *spec.Decoder, turn *spec.Turn, tc *hcl.BodyContent, slots []string) {
	if a, ok := tc.Attributes["expect"]; ok {
		turn.Expect = d.Expect(a, slots)
	}
	turn.Reply = d.ReplyBlocks(tc.Blocks, slots, false)
	var args []*spec.ExpectSpec
	turn.Tools, args = d.ToolsBlocks(tc.Blocks, slots, false)
	turn.Expect = append(turn.Expect, args...)
	rubrics := map[string]hcl.Range{}
	for _, ab := range tc.Blocks {
		if ab.Type == rubric.BlockType.Type {
			if r := d.RubricBlock(ab, rubrics); r != nil {
				turn.Rubrics = append(turn.Rubrics, r)
			}
			continue
		}
		if ab.Type != "assert" { // reply and tools are read above
			continue
		}
		if as := d.Assert(ab); as != nil {
			turn.Asserts = append(turn.Asserts, as)
		}
	}
	seen := map[string]hcl.Range{}
	cs.decodeCaptures(d, turn, tc.Attributes["capture"], false, seen)
	cs.decodeCaptures(d, turn, tc.Attributes["capture_reply"], true, seen)
}

// decodeCaptures reads a turn's capture map (JSONPaths of the response)
// or, with reply, its capture_reply map (RE2 patterns on the reply). A
// name is captured once per turn.
func (cs *conversationSource) decodeCaptures(d *spec.Decoder, turn *spec.Turn, a *hcl.Attribute, reply bool, seen map[string]hcl.Range) {
	if a == nil {
		return
	}
	what, example := "capture", `capture = { order = "$.order_id" }`
	if reply {
		what, example = "capture_reply", `capture_reply = { order = "订单号\\s*([A-Z0-9]+)" }`
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid "+what, "%s is a map from a name to %s, e.g. %s.", what, captureSource(reply), example)
		return
	}
	for _, p := range pairs {
		name := hcl.ExprAsKeyword(p.Key)
		if name == "" {
			if v, diags := p.Key.Value(nil); !diags.HasErrors() && v.Type().FriendlyName() == "string" {
				name = v.AsString()
			}
		}
		v, diags := p.Value.Value(nil)
		if name == "" || diags.HasErrors() || v.Type().FriendlyName() != "string" {
			d.Errorf(p.Key.Range().Ptr(), "Invalid "+what, "Each %s is NAME = \"…\": a name, and %s.", what, captureSource(reply))
			continue
		}
		if prev, dup := seen[name]; dup {
			d.Errorf(p.Key.Range().Ptr(), "Duplicate capture", "The turn captures %q already at %s; give this capture another name.", name, spec.RangeString(prev))
			continue
		}
		seen[name] = p.Key.Range()
		c := spec.Capture{Name: name, Reply: reply, Range: hcl.RangeBetween(p.Key.Range(), p.Value.Range())}
		if reply {
			re, err := regexp.Compile(v.AsString())
			if err != nil {
				d.Errorf(p.Value.Range().Ptr(), "Invalid regular expression", "capture_reply's %s is an RE2 regular expression (Go's regexp syntax): %v. Fix the pattern; a backslash in an HCL string is written \\\\.", name, err)
				continue
			}
			c.Path, c.Pattern = v.AsString(), re
		} else {
			x, norm, state, err := jsonpath.CompileExpect(v.AsString())
			if err != nil {
				d.PathError(p.Value, v.AsString(), err)
				continue
			}
			c.Path, c.Expr, c.State = norm, x, state
		}
		turn.Capture = append(turn.Capture, c)
		cs.hasCaptures = true
	}
}

func captureSource(reply bool) string {
	if reply {
		return "an RE2 regular expression on the turn's reply (its group 1, or the whole match when it has no group)"
	}
	return "a JSONPath of the turn's response"
}
