package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
)

// This file is the conversation case source kind (SPEC §13): ordered turn
// blocks whose user texts share one slot assignment per conversation
// instance. A conversation is generated as a template whose text is its
// turns' texts joined by turnSep (so strategies, limits, ids and rebuilds
// are the template's), and each generated case is cut back into turns.

// KindConversation is the source kind of conversation blocks.
const KindConversation = "conversation"

// turnSep separates the turns' texts in a conversation's joined template
// text; it cannot occur in a suite's strings.
const turnSep = "\x1e"

type conversationKind struct{}

func (conversationKind) Block() string { return KindConversation }

var conversationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"}, {Name: "strategy"}, {Name: "limit"},
		{Name: "count"}, {Name: "seed"}, {Name: "material_levels"}, {Name: "reviewed"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "turn"}, {Type: "tools"}, {Type: "final_state"}},
}

var turnSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "user"}, {Name: "bot_first"}, {Name: "use"}, {Name: "expect"}, {Name: "capture"}, {Name: "capture_reply"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "reply"}, RubricBlockType, {Type: "tools"}},
}

// Turn is one turn block of a conversation.
type Turn struct {
	User      string
	UserRange hcl.Range
	// BotFirst: the turn opens the session without a user message (turn {
	// bot_first = true }, the first turn only); its case has Event
	// "start" and no text, and its checks read the bot's welcome.
	// BotFirstRange is the attribute's range.
	BotFirst      bool
	BotFirstRange hcl.Range
	Expect        []*ExpectSpec
	Asserts       []*Assert
	// Capture names values of the turn's response later turns read as
	// capture.NAME, in source order.
	Capture []Capture
	// Reply is the turn's reply block (nil without one).
	Reply *ReplyCheck
	// Rubrics judge the turn's reply.
	Rubrics []*RubricSpec
	// Tools is the turn's tools block (nil without one); its args
	// expectations follow the expect map's in Expect.
	Tools *ToolChecks
}

// Capture is one `NAME = "$.path"` of a turn's capture map (a path with
// the "state:" prefix reads the turn's dialogue state instead of its
// response), or one `NAME = "RE2"` of its capture_reply map (Reply set;
// Path is then the pattern).
type Capture struct {
	Name string
	Path string
	// Reply: a regex on the turn's reply (group 1 when it has a group,
	// else the whole match) instead of a JSONPath of its response.
	Reply bool
	// Range locates the capture, for the failure of one that selects
	// nothing.
	Range hcl.Range
	x     jp.Expr
	re    *regexp.Regexp
	// state: x reads the result's dialogue state (schema.Result.State).
	state bool
}

// conversationSource is a conversation block as a case source.
type conversationSource struct {
	s     *Suite
	t     *Template // the joined template
	turns []*Turn
	info  SourceInfo
	ts    *templateSource
	// hasCaptures: some turn captures values.
	hasCaptures bool
	// final is how the runner reads the final state (nil without a
	// final_state block).
	final *schema.FinalStateQuery
	// expectAt[i] is where turn i's expectations start in the joined
	// template's.
	expectAt []int
}

func (conversationKind) Decode(d *Decoder, b *hcl.Block) Source {
	c, ok := d.Content(b, conversationSchema)
	if !ok {
		return nil
	}
	l := d.l
	s := l.suite
	t := &Template{Name: label(b), DeclRange: b.DefRange, TextRange: b.DefRange}
	l.generationSettings(t, c, b)
	tb := turnBlocks{blocks: c.Blocks.OfType("turn"), stream: l.streams[streamKey{b.DefRange.Filename, b.DefRange.Start.Byte}]}
	if tb.batches() == 0 {
		l.errorf(b.DefRange.Ptr(), "Conversation without turns", "A conversation needs at least one turn block: turn { user = \"…\" }.")
		return nil
	}
	cs := &conversationSource{s: s, t: t}
	batches, textOK, ok := cs.readTurns(l, &tb)
	if !ok {
		return nil
	}
	t.Parts = append(t.Parts, Part{Literal: "", Slot: -1})
	slots := t.SlotKeys()
	l.slotsUnknown = !textOK
	cs.readChecks(d, &tb, batches, slots)
	final := l.finalStateBlocks(c.Blocks, slots)
	if final != nil { // checked on the last turn
		last := cs.turns[len(cs.turns)-1]
		last.Expect = append(last.Expect, final.Expect...)
	}
	cs.expectAt = make([]int, len(cs.turns))
	for i, turn := range cs.turns {
		cs.expectAt[i] = len(t.Expect)
		t.Expect = append(t.Expect, turn.Expect...)
	}
	l.slotsUnknown = false
	if !textOK {
		return nil
	}
	cs.info = SourceInfo{Level: t.Level, Core: t.Core, Scene: t.Scene, Expect: t.Expect, Slots: slots, Reviewed: t.Reviewed, Turns: len(cs.turns)}
	cs.info.ScriptTools, _ = l.toolsBlocks(c.Blocks, slots, true)
	cs.info.FinalState = final
	cs.final = final.Query(s)
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
	cs.ts = newTemplateSource(s, t)
	return cs
}

// turnBlocks are a conversation's turn blocks: those of its body, or,
// for a conversation whose turns are streamed (turnstream.go), its
// stream's batches, each parsed when read.
type turnBlocks struct {
	blocks []*hcl.Block
	stream *turnStream
}

func (tb *turnBlocks) batches() int {
	if tb.stream != nil {
		return len(tb.stream.batches)
	}
	return min(len(tb.blocks), 1)
}

// batch returns the blocks of batch i (the stream's batches parsed
// without an error when the file was read).
func (tb *turnBlocks) batch(i int) []*hcl.Block {
	if tb.stream == nil {
		return tb.blocks
	}
	blocks, _, _ := tb.stream.parse(i)
	return blocks
}

// readTurns reads the turns' openings and texts, batch by batch, the
// fragments they use expanded. As when every turn was read at once, the
// diagnostics are those of expanding every turn, then — only when all
// expand — those of every turn's opening and text; ok is false when a
// turn does not expand. A turn whose opening or text is wrong does not
// stop the others (textOK is then false): it is read as a turn without
// text, so that the checks of every turn are still read (readChecks). It
// returns what readChecks needs to know of each batch.
func (cs *conversationSource) readTurns(l *loader, tb *turnBlocks) (batches []batchTurns, textOK, ok bool) {
	expanded := true
	textOK = true
	var openDiags hcl.Diagnostics
	index := map[string]int{}
	batches = make([]batchTurns, tb.batches())
	for bi := range batches {
		turns, good := l.expandTurns(tb.batch(bi), nil)
		expanded = expanded && good
		if !expanded {
			continue
		}
		outer := l.diags
		l.diags = openDiags
		batches[bi].turns = len(turns)
		for _, t := range turns {
			batches[bi].checks = batches[bi].checks || hasChecks(t.content)
			i := len(cs.turns)
			turn, good := l.turnOpening(t, i)
			if !good {
				turn = &Turn{}
			}
			if !good || !cs.addTurnText(l, turn, i, index) {
				textOK = false
			}
			cs.turns = append(cs.turns, turn)
		}
		openDiags, l.diags = l.diags, outer
	}
	if !expanded {
		return nil, false, false
	}
	l.diags = append(l.diags, openDiags...)
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
func (cs *conversationSource) readChecks(d *Decoder, tb *turnBlocks, batches []batchTurns, slots []string) {
	l := d.l
	at := 0
	for bi, b := range batches {
		if b.checks {
			outer := l.diags
			turns, _ := l.expandTurns(tb.batch(bi), nil)
			l.diags = outer
			for k, t := range turns {
				cs.decodeTurnChecks(d, cs.turns[at+k], t.content, slots)
			}
		}
		at += b.turns
	}
}

// turnOpening reads how turn i opens: the user's text, or bot_first =
// true (the first turn only, without user).
func (l *loader) turnOpening(tb turnBody, i int) (*Turn, bool) {
	attrs := tb.content.Attributes
	turn := &Turn{User: l.str(attrs, "user", "")}
	if a, ok := attrs["user"]; ok {
		turn.UserRange = a.Expr.Range()
	}
	a, ok := attrs["bot_first"]
	if ok {
		turn.BotFirst = l.boolean(attrs, "bot_first", false)
		turn.BotFirstRange = a.Range
	}
	_, hasUser := attrs["user"]
	switch {
	case turn.BotFirst && i > 0:
		l.errorf(a.Range.Ptr(), "Bot-first turn after the first",
			"Only a conversation's first turn may open without a user message (bot_first = true): the bot speaks first once, when the session opens. Remove bot_first here, or move this turn first.")
		return nil, false
	case turn.BotFirst && hasUser:
		l.errorf(a.Range.Ptr(), "Bot-first turn with a user message",
			"A bot_first turn sends no user message; it checks the bot's welcome. Remove user = … from this turn, or remove bot_first and keep the user's text.")
		return nil, false
	case !turn.BotFirst && !hasUser:
		l.errorf(tb.block.DefRange.Ptr(), "Turn without user",
			"A turn needs the user's text, user = \"…\"; or, as the first turn, bot_first = true to check the bot's welcome; or use = \"NAME\" for the turns of a fragment.")
		return nil, false
	}
	return turn, true
}

// addTurnText appends turn i's text to the joined template: its literal
// parts and placeholders (a placeholder used in several turns is one slot).
func (cs *conversationSource) addTurnText(l *loader, turn *Turn, i int, index map[string]int) bool {
	t := cs.t
	lits, phs, err := ParsePlaceholders(turn.User)
	if err != nil {
		l.errorf(turn.UserRange.Ptr(), "Invalid placeholder", "%s.", capitalize(err.Error()))
		return false
	}
	sep := ""
	if i > 0 {
		sep = turnSep
	}
	t.Parts = append(t.Parts, Part{Literal: sep + lits[0], Slot: -1})
	ok := true
	for j, ph := range phs {
		if _, known := l.suite.Materials[ph.Material]; !known {
			rng := l.subRange(turn.UserRange, "{"+ph.Key+"}")
			l.errorf(&rng, "Unknown materials",
				"The placeholder {%s} names no materials block.%s Declare materials %q { values = [...] } or fix the name.",
				ph.Key, didYouMeanBrace(ph.Material, l.suite.MatOrder), ph.Material)
			ok = false
			continue
		}
		k, seen := index[ph.Key]
		if !seen {
			k = len(t.Slots)
			index[ph.Key] = k
			t.Slots = append(t.Slots, SlotRef{Key: ph.Key, Material: ph.Material, Draw: ph.Draw})
		}
		t.Parts = append(t.Parts, Part{Slot: k}, Part{Literal: lits[j+1], Slot: -1})
	}
	return ok
}

// decodeTurnChecks reads a turn's expect, capture, assert and rubric
// blocks.
func (cs *conversationSource) decodeTurnChecks(d *Decoder, turn *Turn, tc *hcl.BodyContent, slots []string) {
	if a, ok := tc.Attributes["expect"]; ok {
		turn.Expect = d.Expect(a, slots)
	}
	turn.Reply = d.l.replyBlocks(tc.Blocks, slots, false)
	var args []*ExpectSpec
	turn.Tools, args = d.l.toolsBlocks(tc.Blocks, slots, false)
	turn.Expect = append(turn.Expect, args...)
	rubrics := map[string]hcl.Range{}
	for _, ab := range tc.Blocks {
		if ab.Type == RubricBlockType.Type {
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
func (cs *conversationSource) decodeCaptures(d *Decoder, turn *Turn, a *hcl.Attribute, reply bool, seen map[string]hcl.Range) {
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
			d.Errorf(p.Key.Range().Ptr(), "Duplicate capture", "The turn captures %q already at %s; give this capture another name.", name, rangeString(prev))
			continue
		}
		seen[name] = p.Key.Range()
		c := Capture{Name: name, Reply: reply, Range: hcl.RangeBetween(p.Key.Range(), p.Value.Range())}
		if reply {
			re, err := regexp.Compile(v.AsString())
			if err != nil {
				d.Errorf(p.Value.Range().Ptr(), "Invalid regular expression", "capture_reply's %s is an RE2 regular expression (Go's regexp syntax): %v. Fix the pattern; a backslash in an HCL string is written \\\\.", name, err)
				continue
			}
			c.Path, c.re = v.AsString(), re
		} else {
			x, norm, state, err := CompileExpectPath(v.AsString())
			if err != nil {
				d.l.pathError(p.Value, v.AsString(), err)
				continue
			}
			c.Path, c.x, c.state = norm, x, state
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

// turnReply is SourceInfo.Reply: the reply block of the case's turn.
func (cs *conversationSource) turnReply(c *schema.Case) *ReplyCheck {
	if c.Turn < 1 || c.Turn > len(cs.turns) {
		return nil
	}
	return cs.turns[c.Turn-1].Reply
}

// turnTools is SourceInfo.Tools: the tools block of the case's turn.
func (cs *conversationSource) turnTools(c *schema.Case) *ToolChecks {
	if c.Turn < 1 || c.Turn > len(cs.turns) {
		return nil
	}
	return cs.turns[c.Turn-1].Tools
}

func (cs *conversationSource) Name() string         { return cs.t.Name }
func (cs *conversationSource) Kind() string         { return KindConversation }
func (cs *conversationSource) DeclRange() hcl.Range { return cs.t.DeclRange }
func (cs *conversationSource) Info() *SourceInfo    { return &cs.info }

// Turns returns the turn blocks of a conversation source, or nil.
func TurnsOf(src Source) []*Turn {
	if cs, ok := src.(*conversationSource); ok {
		return cs.turns
	}
	return nil
}

func (cs *conversationSource) Generate(g *Gen, yield func(*schema.Script) error) error {
	return cs.s.GenerateTemplate(cs.t, g, yield, cs.script)
}

// lazyTurnsAfter is the length from which a conversation's scripts make
// their turns after the first on demand (schema.Script.Rest), so a
// conversation of 100,000 turns does not hold 100,000 cases while it runs.
var lazyTurnsAfter = 64

// script cuts the joined case c into the conversation's turns and assigns
// the splits of its first turn to every turn.
func (cs *conversationSource) script(c *schema.Case, sp *Splitter) (*schema.Script, error) {
	texts := strings.Split(c.Text, turnSep)
	n := len(cs.turns)
	eager := n
	if n > lazyTurnsAfter {
		eager = 1
	}
	sc := &schema.Script{ID: c.ID, Source: cs.t.Name, SourceKind: KindConversation, Turns: make([]*schema.Case, eager)}
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
	tc.Template, tc.Source, tc.SourceKind = "", cs.t.Name, KindConversation
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
func (in *captureInput) selectValue(c *Capture) (string, bool) {
	if c.Reply {
		reply := in.r.Reply
		if reply == "" {
			reply = schema.ReplyOf(in.r.Response)
		}
		nfc := NFCReply(reply)
		m := c.re.FindStringSubmatch(nfc)
		if folded := FoldReply(nfc, false); m == nil && folded != nfc {
			m = c.re.FindStringSubmatch(folded)
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
	if c.state {
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
	got := c.x.Get(in.docs[k])
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
		if c.state && len(r.State) == 0 {
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
func (cs *conversationSource) Rebuild(saved Saved) (*schema.Case, bool) {
	script, turn, text := saved.Script, saved.Turn, saved.Text
	in := Saved{ID: script, Text: anyText, Slots: saved.Slots}
	if saved.Case != nil {
		script, turn, text = saved.Case.Script, saved.Case.Turn, saved.Case.Text
		in = Saved{Case: &schema.Case{ID: script, Text: anyText, Slots: saved.Case.Slots}}
	}
	if turn < 1 || turn > len(cs.turns) {
		return nil, false
	}
	joined, ok := cs.ts.Rebuild(in)
	if !ok {
		return nil, false
	}
	sc, err := cs.script(joined, &Splitter{s: cs.s})
	if err != nil {
		return nil, false
	}
	tc := sc.At(turn - 1)
	if tc.Text != text {
		return nil, false
	}
	return tc, true
}
