// Package scenario owns the scenario case source kind (SPEC §14.6): a
// goal-driven conversation whose user turns a simulator computes from the
// bot's replies — the agenda simulator, or an LLM playing the user (an
// openai target with a simulator block) — with its success condition,
// each_turn checks, tools and final_state blocks and its task block. It
// reads its blocks through spec's public Decoder, like any kind a program
// adds.
package scenario

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/zclconf/go-cty/cty"
)

// This file is the scenario case source kind (SPEC §14.6): a goal-driven
// conversation whose user turns a simulator computes from the bot's
// replies. The agenda simulator follows Schatzmann et al. 2007,
// "Agenda-based user simulation for bootstrapping a POMDP dialogue
// system": the user's goal (what it informs, what it requests) is an
// agenda of acts; each bot reply is classified (an ask for a slot, a
// confirmation, or not understood) and the act on top answers it.
//
// Like a conversation, the block is generated as a template whose text is
// every text with placeholders joined by spec.TurnSep — the inform values, the
// openings, the answer paraphrases, the affirmations — so strategies,
// limits, seeds and ids are the template's. A generated case is one
// scenario instance: its script holds the opening turn and a Next that
// computes every later turn from the previous result (schema.Script.Next).

// UserAgenda is the deterministic agenda simulator (user = "agenda").
const UserAgenda = "agenda"

// DefaultMaxTurns is a scenario's max_turns when it sets none.
const DefaultMaxTurns = 8

// DefaultRequestText phrases a request item; {name} is its name.
const DefaultRequestText = "{name}是多少？"

// Kind is the scenario source kind (a spec.SourceKind), for extensions'
// set.
type Kind struct{}

// Block is the block type, "scenario".
func (Kind) Block() string { return spec.KindScenario }

// SourceGroup: metrics.scenario is the scenario family's, so a scenario
// block's node is metrics.scenario_source["NAME"].
func (Kind) SourceGroup() string { return "scenario_source" }

var scenarioSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"}, {Name: "strategy"}, {Name: "limit"},
		{Name: "count"}, {Name: "seed"}, {Name: "material_levels"},
		{Name: "user"}, {Name: "opening"}, {Name: "asks"}, {Name: "confirm"}, {Name: "affirm"}, {Name: "answer"},
		{Name: "request_text"}, {Name: "max_turns"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "goal"}, {Type: "success"}, {Type: "each_turn"}, {Type: "tools"}, {Type: "final_state"}, {Type: "task"}},
}

var goalSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "inform"}, {Name: "request"}}}

var eachTurnSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "reply"}, {Type: "tools"}}}

// scenarioSource is a scenario block as a case source.
type scenarioSource struct {
	s *spec.Suite
	t *spec.Template // the joined template
	// inform are the goal's slot names in source order; their texts are
	// the first len(inform) parts of the joined text.
	inform     []string
	informText []scenarioText
	requests   []string
	user       string
	// opening, answers and affirm index the joined text's parts.
	opening []int
	answers map[string][]int // slot → parts
	affirm  []int
	// asks maps each phrase (folded) to its slot; confirm phrases map to "".
	phrases     []phrase
	requestText string
	maxTurns    int
	success     *spec.Assert
	eachTurn    []*spec.Assert
	// replyBlock is each_turn's reply block (decoded into reply once the
	// slots are known); reply checks every turn's reply.
	// sim is the target playing the user (user = "NAME"), nil for the
	// agenda simulator (llm.go).
	sim        *spec.Target
	replyBlock *hcl.Block
	reply      *reply.Check
	// toolBlocks are each_turn's blocks, whose tools block (decoded once
	// the slots are known) checks every turn's calls.
	toolBlocks  hcl.Blocks
	tools       *tools.Checks
	scriptTools *tools.Checks
	// final is how the runner reads the final state (nil without a
	// final_state block).
	final *schema.FinalStateQuery
	info  spec.SourceInfo
	ts    spec.Source // the joined template's own source, for rebuilds
}

// phrase is one asks or confirm phrase, folded (Fold).
type phrase struct {
	text string
	slot string // "" for a confirm phrase
}

// Decode reads a scenario block: its generation settings, simulator,
// goal, texts, phrases, checks, tools, final_state and task blocks.
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, scenarioSchema)
	if !ok {
		return nil
	}
	t := &spec.Template{Name: spec.BlockLabel(b), DeclRange: b.DefRange, TextRange: b.DefRange}
	d.GenerationSettings(t, c, b)
	ss := &scenarioSource{s: d.Suite(), t: t, answers: map[string][]int{}}
	ss.user = d.String(c.Attributes, "user", UserAgenda)
	if ss.user != UserAgenda {
		ss.sim = simulatorTarget(d, c.Attributes["user"], ss.user)
	}
	ss.requestText = d.String(c.Attributes, "request_text", DefaultRequestText)
	ss.maxTurns = d.Int(c.Attributes, "max_turns", DefaultMaxTurns, 1)
	if !ss.decodeBlocks(d, b, c) {
		// The texts' slots come from the goal; but the opening does not.
		if len(d.Strings(c.Attributes, "opening")) == 0 {
			d.Errorf(b.DefRange.Ptr(), "Scenario without opening", openingNeeded)
		}
		return nil
	}
	if !ss.decodeTexts(d, b, c.Attributes) {
		return nil
	}
	ss.decodePhrases(d, c.Attributes)
	if ss.replyBlock != nil {
		ss.reply = d.ReplyBlock(ss.replyBlock, t.SlotKeys())
	}
	if !ss.decodeTools(d, c.Blocks) {
		return nil
	}
	// Every turn carries the final-state expectations: which turn ends
	// the scenario is known only when it ran, and only that turn checks
	// them.
	final := conversation.FinalState(d, c.Blocks, t.SlotKeys())
	if final != nil {
		t.Expect = final.Expect
		ss.final = conversation.FinalQuery(final, ss.s)
	}
	task, ok := ss.decodeTask(d, c.Blocks)
	if !ok {
		return nil
	}
	ss.info = spec.SourceInfo{Level: t.Level, Core: t.Core, Scene: t.Scene, Slots: t.SlotKeys(), Reviewed: true, Expect: t.Expect, FinalState: final,
		Asserts: ss.eachTurn, Success: ss.Succeeded, Goal: ss.Goal, MaxTurns: ss.maxTurns, Task: task}
	if ss.sim != nil {
		ss.info.Simulator = ss.sim.Name
	}
	if ss.reply != nil {
		ss.info.Reply = func(*schema.Case) *reply.Check { return ss.reply }
	}
	if ss.tools != nil {
		ss.info.Tools = func(*schema.Case) *tools.Checks { return ss.tools }
	}
	ss.info.ScriptTools = ss.scriptTools
	if ss.success != nil {
		ss.info.Asserts = append(slices.Clip(ss.eachTurn), ss.success)
		ss.info.SuccessRange = ss.success.DeclRange
	}
	// Per turn only each_turn's asserts; success is checked on the scenario.
	ss.info.TurnAsserts = make([][]*spec.Assert, ss.maxTurns)
	for i := range ss.info.TurnAsserts {
		ss.info.TurnAsserts[i] = ss.eachTurn
	}
	ss.ts = generate.NewSource(ss.s, t)
	return ss
}

// openingNeeded is the detail of "Scenario without opening".
const openingNeeded = "A scenario needs what the user says first: opening = [\"我想订机票\"] (one or more; the simulator picks one by the instance's id)."

// decodeBlocks reads the goal, success and each_turn blocks.
func (ss *scenarioSource) decodeBlocks(d *spec.Decoder, b *hcl.Block, c *hcl.BodyContent) bool {
	var goal *hcl.Block
	ok := true
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "goal":
			if goal != nil {
				d.Errorf(blk.DefRange.Ptr(), "Duplicate goal", "A scenario has one goal block; merge the two.")
				ok = false
				continue
			}
			goal = blk
		case "success":
			if ss.success != nil {
				d.Errorf(blk.DefRange.Ptr(), "Duplicate success", "A scenario has one success block; join the conditions with &&.")
				ok = false
				continue
			}
			ss.success = d.Assert(blk)
		case "each_turn":
			ec, diags := blk.Body.Content(eachTurnSchema)
			d.Report(diags...)
			for _, ab := range ec.Blocks {
				if ab.Type == "tools" {
					ss.toolBlocks = append(ss.toolBlocks, ab)
					continue
				}
				if ab.Type == "reply" {
					if ss.replyBlock != nil {
						d.Errorf(ab.DefRange.Ptr(), "Duplicate reply", "each_turn has one reply block; merge the checks into it.")
					}
					ss.replyBlock = ab
					continue
				}
				if a := d.Assert(ab); a != nil {
					ss.eachTurn = append(ss.eachTurn, a)
				}
			}
		}
	}
	if goal == nil {
		d.Errorf(b.DefRange.Ptr(), "Scenario without goal", "A scenario needs a goal: goal { inform = { city = \"{城市}\" }, request = [\"order_id\"] }.")
		ok = false
	}
	if ss.success == nil && !slices.ContainsFunc(c.Blocks, func(blk *hcl.Block) bool { return blk.Type == "success" }) {
		d.Errorf(b.DefRange.Ptr(), "Scenario without success", "A scenario needs a success block saying when the goal is reached: success { condition = strcontains(reply, \"订单号\") }.")
		ok = false
	}
	if !ok || ss.success == nil {
		return false
	}
	gc, diags := goal.Body.Content(goalSchema)
	d.Report(diags...)
	if diags.HasErrors() {
		return false
	}
	ss.requests = d.Strings(gc.Attributes, "request")
	return ss.decodeInform(d, goal, gc.Attributes["inform"])
}

// decodeTools reads each_turn's tools block (over each turn's calls) and
// the scenario's own (over the calls of every turn). A scenario's turns
// are the simulator's, so each_turn's block checks names only: args
// would need expectations on every turn's case.
func (ss *scenarioSource) decodeTools(d *spec.Decoder, blocks hcl.Blocks) bool {
	before := d.Errors()
	slots := ss.t.SlotKeys()
	ss.tools, _ = d.ToolsBlocks(ss.toolBlocks, slots, true)
	ss.scriptTools, _ = d.ToolsBlocks(blocks, slots, true)
	return d.Errors() == before
}

// decodeInform reads the goal's inform map: slot name → text (its
// placeholders are the scenario's slots), in source order.
func (ss *scenarioSource) decodeInform(d *spec.Decoder, goal *hcl.Block, a *hcl.Attribute) bool {
	if a == nil {
		if len(ss.requests) == 0 {
			d.Errorf(goal.DefRange.Ptr(), "Empty goal", "A goal informs slots, requests items, or both: inform = { city = \"{城市}\" }, request = [\"order_id\"].")
			return false
		}
		return true
	}
	if !d.NoSensitive(a.Expr) {
		return false
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid inform", "inform is a map from a slot name to what the user says for it, e.g. inform = { city = \"{城市}\", date = \"{日期}\" }.")
		return false
	}
	for _, p := range pairs {
		name := hcl.ExprAsKeyword(p.Key)
		if name == "" {
			if v, diags := p.Key.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
				name = v.AsString()
			}
		}
		v, diags := p.Value.Value(d.StaticContext())
		if name == "" || diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
			d.Errorf(p.Key.Range().Ptr(), "Invalid inform", "Each inform entry is SLOT = \"text\": a slot name, and what the user says for it (placeholders allowed), e.g. city = \"{城市}\".")
			return false
		}
		if slices.Contains(ss.inform, name) {
			d.Errorf(p.Key.Range().Ptr(), "Duplicate slot", "The goal informs %q twice; keep one.", name)
			return false
		}
		ss.inform = append(ss.inform, name)
		ss.informText = append(ss.informText, scenarioText{v.AsString(), p.Value.Range()})
	}
	return true
}

// scenarioText is one text of the joined template and where it was written.
type scenarioText struct {
	s   string
	rng hcl.Range
}

// decodeTexts reads every text with placeholders — the inform values,
// opening, answer and affirm — and builds the joined template of them.
func (ss *scenarioSource) decodeTexts(d *spec.Decoder, b *hcl.Block, attrs hcl.Attributes) bool {
	texts := slices.Clone(ss.informText)
	add := func(name string, xs []string, rng hcl.Range) []int {
		var at []int
		for _, x := range xs {
			at = append(at, len(texts))
			texts = append(texts, scenarioText{x, rng})
		}
		return at
	}
	rangeOf := func(name string) hcl.Range {
		if a, ok := attrs[name]; ok {
			return a.Expr.Range()
		}
		return b.DefRange
	}
	ss.opening = add("opening", d.Strings(attrs, "opening"), rangeOf("opening"))
	if len(ss.opening) == 0 {
		d.Errorf(b.DefRange.Ptr(), "Scenario without opening", openingNeeded)
		return false
	}
	answers := ss.decodeAnswers(d, attrs)
	for _, slot := range slices.Sorted(func(yield func(string) bool) {
		for k := range answers {
			if !yield(k) {
				return
			}
		}
	}) {
		ss.answers[slot] = add("answer", answers[slot], rangeOf("answer"))
	}
	affirm := d.Strings(attrs, "affirm")
	if len(affirm) == 0 {
		affirm = []string{"是的"}
	}
	ss.affirm = add("affirm", affirm, rangeOf("affirm"))
	index := map[string]int{}
	for i, x := range texts {
		if !d.AppendTurnText(ss.t, x.s, x.rng, i, index) {
			return false
		}
	}
	ss.t.Parts = append(ss.t.Parts, spec.Part{Literal: "", Slot: -1})
	return true
}

// decodeAnswers reads answer = { slot = ["去{城市}", …] } and checks its
// slots are informed.
func (ss *scenarioSource) decodeAnswers(d *spec.Decoder, attrs hcl.Attributes) map[string][]string {
	out := ss.slotLists(d, attrs, "answer")
	for slot := range out {
		if !slices.Contains(ss.inform, slot) {
			d.Errorf(attrs["answer"].Expr.Range().Ptr(), "Unknown slot", "answer has paraphrases for %q, which the goal does not inform.%s Add it to goal's inform, or fix the name.", slot, spec.DidYouMean(slot, ss.inform))
			delete(out, slot)
		}
	}
	return out
}

// slotLists reads a map from a slot name to a list of strings.
func (ss *scenarioSource) slotLists(d *spec.Decoder, attrs hcl.Attributes, name string) map[string][]string {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, ok := d.Value(a, cty.Map(cty.List(cty.String)), fmt.Sprintf("%q attribute", name))
	if !ok || v.IsNull() {
		return nil
	}
	out := map[string][]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		for ei := e.ElementIterator(); ei.Next(); {
			_, x := ei.Element()
			if !x.IsNull() && x.AsString() != "" {
				out[k.AsString()] = append(out[k.AsString()], x.AsString())
			}
		}
	}
	return out
}

// decodePhrases reads asks (slot → phrases) and confirm (phrases).
func (ss *scenarioSource) decodePhrases(d *spec.Decoder, attrs hcl.Attributes) {
	asks := ss.slotLists(d, attrs, "asks")
	for _, slot := range ss.inform {
		for _, p := range asks[slot] {
			ss.phrases = append(ss.phrases, phrase{spec.Fold(p), slot})
		}
	}
	for slot := range asks {
		if !slices.Contains(ss.inform, slot) {
			d.Errorf(attrs["asks"].Expr.Range().Ptr(), "Unknown slot", "asks has phrases for %q, which the goal does not inform.%s The simulator answers an ask with the slot's inform value: add it to goal's inform, or fix the name.", slot, spec.DidYouMean(slot, ss.inform))
		}
	}
	for _, p := range d.Strings(attrs, "confirm") {
		if p != "" {
			ss.phrases = append(ss.phrases, phrase{spec.Fold(p), ""})
		}
	}
}

func (ss *scenarioSource) Name() string           { return ss.t.Name }
func (ss *scenarioSource) Kind() string           { return spec.KindScenario }
func (ss *scenarioSource) DeclRange() hcl.Range   { return ss.t.DeclRange }
func (ss *scenarioSource) Info() *spec.SourceInfo { return &ss.info }

// Generate yields one script per slot assignment: its opening turn, and
// a Next that plays the simulated user.
func (ss *scenarioSource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	return generate.Template(ss.s, ss.t, g, yield, ss.script)
}

// agendaState is the agenda simulator's state after a user turn: which
// inform slots it has given, how many requests it made. It travels in
// Case.Agenda from turn to turn, so a script run again starts afresh.
type agendaState struct {
	base      *schema.Case // the scenario instance (joined case)
	texts     []string     // its resolved texts
	given     []bool       // per inform slot
	requested int
	cycle     int // volunteers made once everything was given and nothing is requested
	// llm is an LLM simulator's request (llm.go), nil for the agenda.
	llm *schema.UserSim
}

// script makes the scenario instance c into its script: the opening turn,
// then what Next computes.
func (ss *scenarioSource) script(c *schema.Case, sp *spec.Splitter) (*schema.Script, error) {
	if err := sp.Assign(c); err != nil {
		return nil, err
	}
	st := &agendaState{base: c, texts: strings.Split(c.Text, spec.TurnSep), given: make([]bool, len(ss.inform))}
	st.llm = ss.userSim(c)
	first := ss.turn(st, 1, ss.pickText(st, ss.opening, 1), "opened")
	return &schema.Script{ID: c.ID, Source: ss.t.Name, SourceKind: spec.KindScenario, Turns: []*schema.Case{first}, Next: ss.next, FinalState: ss.final}, nil
}

// turn is user turn n of the instance st.base: text said for reason.
func (ss *scenarioSource) turn(st *agendaState, n int, text, reason string) *schema.Case {
	tc := *st.base
	tc.ID = st.base.ID + "/" + strconv.Itoa(n)
	tc.Template, tc.Source, tc.SourceKind = "", ss.t.Name, spec.KindScenario
	tc.Script, tc.Turn, tc.Text, tc.Reason = st.base.ID, n, text, reason
	tc.Expect = st.base.Expect // the final-state expectations, or none
	tc.Agenda, tc.UserSim = st, st.llm
	return &tc
}

// pick chooses one of n options for turn `turn` of the instance, the same
// every time (seeded by the instance's id and the scenario's seed).
func (ss *scenarioSource) pick(id string, turn, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d", id, turn, ss.t.Seed)
	return int(h.Sum64() % uint64(n))
}

func (ss *scenarioSource) pickText(st *agendaState, parts []int, turn int) string {
	return part(st.texts, parts[ss.pick(st.base.ID, turn, len(parts))])
}

// next is the script's Next: the simulated user's answer to the bot's
// reply in r, or nil when the scenario succeeded or reached max_turns.
func (ss *scenarioSource) next(_ int, r *schema.Result) *schema.Case {
	st, ok := r.Agenda.(*agendaState)
	if !ok || r.Turn >= ss.maxTurns || ss.Succeeded(r) {
		return nil
	}
	if st.llm != nil {
		return ss.nextLLM(st, r)
	}
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	n := r.Turn + 1
	ns := &agendaState{base: st.base, texts: st.texts, given: slices.Clone(st.given), requested: st.requested, cycle: st.cycle}
	switch slot, asked := ss.classify(reply); {
	case asked && slot == "":
		return ss.turn(ns, n, ss.pickText(ns, ss.affirm, n), "affirmed")
	case asked:
		i := slices.Index(ss.inform, slot)
		ns.given[i] = true
		return ss.turn(ns, n, ss.answer(ns, i, n), fmt.Sprintf("answered ask %q", slot))
	}
	if i := slices.Index(ns.given, false); i >= 0 {
		ns.given[i] = true
		return ss.turn(ns, n, ss.answer(ns, i, n), fmt.Sprintf("volunteered %q", ss.inform[i]))
	}
	if len(ss.requests) > 0 {
		name := ss.requests[ns.requested%len(ss.requests)]
		ns.requested++
		return ss.turn(ns, n, strings.ReplaceAll(ss.requestText, "{name}", name), fmt.Sprintf("requested %q", name))
	}
	i := ns.cycle % len(ss.inform)
	ns.cycle++
	return ss.turn(ns, n, ss.answer(ns, i, n), fmt.Sprintf("volunteered %q", ss.inform[i]))
}

// classify finds the first asks or confirm phrase in the reply (by
// position; at one position the longer phrase): asked is false when there
// is none, slot is "" for a confirmation.
func (ss *scenarioSource) classify(reply string) (slot string, asked bool) {
	folded := spec.Fold(reply)
	best, bestLen := -1, 0
	for _, p := range ss.phrases {
		if p.text == "" {
			continue
		}
		at := strings.Index(folded, p.text)
		if at < 0 || (best >= 0 && (at > best || (at == best && len(p.text) <= bestLen))) {
			continue
		}
		best, bestLen, slot, asked = at, len(p.text), p.slot, true
	}
	return slot, asked
}

// answer is what the user says to give inform slot i at turn n: one of
// its answer paraphrases, or its inform text.
func (ss *scenarioSource) answer(st *agendaState, i, n int) string {
	if parts := ss.answers[ss.inform[i]]; len(parts) > 0 {
		return ss.pickText(st, parts, n)
	}
	return part(st.texts, i)
}

// Succeeded reports whether the scenario's success condition holds on the
// turn r (the condition sees what assert conditions see).
// The verdict is memoised on r (Result.SuccessMemo): the simulator's
// check decides whether to stop, and the evaluator reuses it for the
// live run; a result read back from a record (eval, --resume) has no
// memo and is checked again. r.Error is tested on every call because
// evaluation sets it on a response that is not JSON.
func (ss *scenarioSource) Succeeded(r *schema.Result) bool {
	if r.Error != nil || ss.success == nil {
		return false
	}
	return r.SuccessMemo(ss.succeeded)
}

// succeeded evaluates the success condition on r.
func (ss *scenarioSource) succeeded(r *schema.Result) bool {
	ctx := ss.s.CheckContext(&r.Case)
	resp := cty.NullVal(cty.DynamicPseudoType)
	if len(r.Response) > 0 {
		if v, err := spec.JSONToCty(r.Response); err == nil {
			resp = v
		}
	}
	ctx.Variables["response"] = resp
	ctx.Variables["reply"] = cty.StringVal(r.Reply)
	ctx.Variables["http"] = cty.ObjectVal(map[string]cty.Value{"status": cty.NumberIntVal(int64(r.Status)), "headers": cty.MapValEmpty(cty.String)})
	ctx.Variables["latency_ms"] = cty.NumberFloatVal(r.LatencyMS)
	v, diags := ss.success.Condition.Value(ctx)
	v = spec.Unmark(v)
	return !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.Bool && v.True()
}

// Goal is the goal of the scenario instance case c is a turn of, for
// transcripts: the inform slots with their values, then the requests.
func (ss *scenarioSource) Goal(c *schema.Case) string {
	var parts []string
	for _, name := range ss.inform {
		parts = append(parts, name+" = "+strconv.Quote(ss.informValue(c, name)))
	}
	out := "inform { " + strings.Join(parts, ", ") + " }"
	if len(ss.requests) > 0 {
		out += " request [" + strings.Join(ss.requests, ", ") + "]"
	}
	return out
}

// informValue is what the user says for inform slot name in case c: its
// inform text with c's slot values.
func (ss *scenarioSource) informValue(c *schema.Case, name string) string {
	return ss.informWith(c, name, func(sl schema.Slot) string { return sl.Value })
}

// informWith is inform slot name's text in case c with each placeholder
// replaced by value of its slot ("" for no inform slot name; the text as
// written when its placeholders do not parse).
func (ss *scenarioSource) informWith(c *schema.Case, name string, value func(schema.Slot) string) string {
	i := slices.Index(ss.inform, name)
	if i < 0 {
		return ""
	}
	lits, phs, err := spec.ParsePlaceholders(ss.informText[i].s)
	if err != nil {
		return ss.informText[i].s
	}
	var b strings.Builder
	for j, ph := range phs {
		b.WriteString(lits[j])
		b.WriteString(value(c.Slots[ph.Key]))
	}
	b.WriteString(lits[len(lits)-1])
	return b.String()
}

// Rebuild returns the turn the scenario now generates for a saved turn:
// the instance with the saved slots must have the saved id. A turn's text
// is the simulator's answer to the recorded replies, so the saved text is
// kept (eval never simulates again); the opening must still be one of
// the scenario's openings.
func (ss *scenarioSource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	script, turn, text := saved.Script, saved.Turn, saved.Text
	in := spec.Saved{ID: script, Text: spec.AnyText, Slots: saved.Slots}
	if saved.Case != nil {
		script, turn, text = saved.Case.Script, saved.Case.Turn, saved.Case.Text
		in = spec.Saved{Case: &schema.Case{ID: script, Text: spec.AnyText, Slots: saved.Case.Slots}}
	}
	if turn < 1 || turn > ss.maxTurns {
		return nil, false
	}
	joined, ok := ss.ts.Rebuild(in)
	if !ok {
		return nil, false
	}
	sc, err := ss.script(joined, spec.NewSplitter(ss.s))
	if err != nil {
		return nil, false
	}
	st := sc.Turns[0].Agenda.(*agendaState)
	if turn == 1 && !slices.ContainsFunc(ss.opening, func(i int) bool { return part(st.texts, i) == text }) {
		return nil, false
	}
	c := ss.turn(st, turn, text, "")
	c.Agenda, c.UserSim = nil, nil
	return c, true
}

// part is text i of a joined case's texts ("" past their end).
func part(texts []string, i int) string {
	if i < len(texts) {
		return texts[i]
	}
	return ""
}
