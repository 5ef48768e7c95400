// Package memory is the memory case source kind (SPEC §13, the chatbot
// memory-test patent 一种测试方法、装置、设备及计算机可读存储介质): facts
// told to the bot, filler turns, then questions about the facts, each
// answer judged against the fact. One case is one slot assignment × one
// distance, run as one session: every fact's sentence, `distance` filler
// turns cycling through the filler list, then every question in order.
//
// Like a conversation, the block is generated as a template whose text is
// the facts' sentences, the questions and the expected answers joined by
// spec.TurnSep (so strategies, limits and ids are the template's); each
// generated case is then cut into one script per distance. The kind is
// built on spec's public API alone (spec.Decoder, the template-generation
// API); its block type, spec.KindMemory, and spec.Fold stay in spec, where
// assert's memory family and the scenario kind read them.
package memory

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/zclconf/go-cty/cty"
)

// Built-in memory judges; any other judge names a judge target.
const (
	JudgeContains = "contains"
	JudgeRegex    = "regex"
)

// Kind is the memory source kind: memory "NAME" { fact { … } … } blocks.
type Kind struct{}

// Block is the kind's block type, spec.KindMemory.
func (Kind) Block() string { return spec.KindMemory }

// SourceGroup: metrics.memory is the memory family's, so a memory
// block's node is metrics.memory_source["NAME"].
func (Kind) SourceGroup() string { return "memory_source" }

var memorySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"}, {Name: "strategy"}, {Name: "limit"},
		{Name: "count"}, {Name: "seed"}, {Name: "material_levels"},
		{Name: "filler"}, {Name: "distance"}, {Name: "judge"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "fact"}, rubric.BlockType},
}

var factSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "say", Required: true}, {Name: "ask", Required: true}, {Name: "expect", Required: true}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "reply"}},
}

// Fact is one fact block of a memory source.
type Fact struct {
	Say    string
	Ask    []string
	Expect string
	// slot is the index in the joined template's slots of the placeholder
	// the expect is made of when it is exactly one placeholder, else -1:
	// its normalised form is a right answer too, and the other values of
	// its materials are contradictions.
	slot int
	// Reply is the fact's reply block, checked on the answers to its
	// questions (nil without one).
	Reply *reply.Check
}

// memorySource is a memory block as a case source.
type memorySource struct {
	s        *spec.Suite
	t        *spec.Template
	facts    []*Fact
	filler   []string
	distance []int
	judge    string
	// exclusive is the contains judge's exclusive setting: an answer that
	// also names another value of the expected slot's materials is
	// contradicted, even when it names the right one.
	exclusive bool
	// judgeBy is the judge target (judge = "NAME"); nil for a built-in judge.
	judgeBy *spec.Target
	// questionFact[i] is the fact of the i-th question.
	questionFact []int
	info         spec.SourceInfo
	ts           spec.Source
	// others caches, per materials name, the values of the materials as
	// the contains judge looks for them.
	others  sync.Map
	regexps sync.Map
	// hasReply: some fact has a reply block.
	hasReply bool
}

// Decode decodes a memory block: its generation settings, facts, filler,
// distances, judge and rubric blocks.
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, memorySchema)
	if !ok {
		return nil
	}
	s := d.Suite()
	t := &spec.Template{Name: spec.BlockLabel(b), DeclRange: b.DefRange, TextRange: b.DefRange}
	d.GenerationSettings(t, c, b)
	if len(c.Blocks) == 0 {
		d.Errorf(b.DefRange.Ptr(), "Memory without facts", "A memory block needs at least one fact block: fact { say = \"我叫{姓名}。\", ask = \"我叫什么名字？\", expect = \"{姓名}\" }.")
		return nil
	}
	ms := &memorySource{s: s, t: t, filler: d.Strings(c.Attributes, "filler")}
	ms.distance = ms.decodeDistance(d, c.Attributes)
	ms.judge = ms.decodeJudge(d, c.Attributes)
	var facts hcl.Blocks
	var rubrics []*rubric.Spec
	seen := map[string]hcl.Range{}
	for _, fb := range c.Blocks {
		if fb.Type != rubric.BlockType.Type {
			facts = append(facts, fb)
		} else if r := d.RubricBlock(fb, seen); r != nil {
			rubrics = append(rubrics, r)
		}
	}
	if len(facts) == 0 {
		d.Errorf(b.DefRange.Ptr(), "Memory without facts", "A memory block needs at least one fact block: fact { say = \"我叫{姓名}。\", ask = \"我叫什么名字？\", expect = \"{姓名}\" }.")
		return nil
	}
	if len(ms.filler) == 0 && slicesMax(ms.distance) > 0 {
		d.Errorf(b.DefRange.Ptr(), "Memory without filler", "A distance above 0 needs filler turns to say between the facts and the questions: filler = [\"今天天气怎么样？\", …].")
	}
	if !ms.decodeFacts(d, facts) {
		return nil
	}
	ms.info = spec.SourceInfo{Level: t.Level, Core: t.Core, Scene: t.Scene, Slots: t.SlotKeys(), Reviewed: true, Judge: ms.Judge, JudgeTarget: ms.judgeTarget(),
		Rubrics: rubrics, RubricQuestionsOnly: true}
	if ms.hasReply {
		ms.info.Reply = ms.questionReply
	}
	ms.ts = generate.NewSource(s, t)
	return ms
}

func slicesMax(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// decodeDistance reads the distance list (default [0]).
func (ms *memorySource) decodeDistance(d *spec.Decoder, attrs hcl.Attributes) []int {
	a, ok := attrs["distance"]
	if !ok {
		return []int{0}
	}
	v, ok := d.Value(a, cty.List(cty.Number), "\"distance\" attribute")
	if !ok || v.IsNull() {
		return []int{0}
	}
	var out []int
	seen := map[int]bool{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		f := -1.0
		if !e.IsNull() {
			f, _ = e.AsBigFloat().Float64()
		}
		if f < 0 || f != float64(int(f)) || f > 1000 {
			d.Errorf(a.Expr.Range().Ptr(), "Invalid distance", "Each distance is a whole number of filler turns from 0 to 1000; %s is not.", e.GoString())
			continue
		}
		if !seen[int(f)] {
			seen[int(f)] = true
			out = append(out, int(f))
		}
	}
	if len(out) == 0 {
		return []int{0}
	}
	return out
}

// decodeJudge reads the judge: contains (default), regex, or the name of
// a target with a judge block (targets are decoded before sources),
// written as the name or as { name = "…", exclusive = true } (exclusive:
// contains only).
func (ms *memorySource) decodeJudge(d *spec.Decoder, attrs hcl.Attributes) string {
	a, ok := attrs["judge"]
	if !ok {
		return JudgeContains
	}
	j, ok := ms.judgeSetting(d, a)
	if !ok {
		return JudgeContains
	}
	rng := a.Expr.Range().Ptr()
	if ms.exclusive && j != JudgeContains {
		d.Errorf(rng, "Setting of another judge", "exclusive is a setting of the contains judge; judge %q does not take it. Remove exclusive, or use name = \"contains\".", j)
		ms.exclusive = false
	}
	if j == JudgeContains || j == JudgeRegex {
		return j
	}
	var judges []string
	for _, t := range d.Suite().Targets {
		if t.Name != j {
			if t.Judge != nil {
				judges = append(judges, t.Name)
			}
			continue
		}
		if t.Judge == nil {
			d.Errorf(rng, "Target is not a judge", "Target %q has no judge block, so it cannot judge answers: add judge { verdict = response.label } to it (the expression reads the verdict from its response; default: its reply), or use judge = \"contains\".", j)
			return JudgeContains
		}
		ms.judgeBy = t
		return j
	}
	if d.IsBroken("target", j) {
		return JudgeContains // the target's own error is reported
	}
	names := append([]string{JudgeContains, JudgeRegex}, judges...)
	d.Errorf(rng, "Unknown judge",
		"judge is \"contains\", \"regex\" or the name of a target with a judge block; %q is none of them.%s", j, spec.DidYouMean(j, names))
	return JudgeContains
}

// judgeSettings are the members of a judge given as an object.
var judgeSettings = []string{"name", "exclusive"}

// judgeSetting reads the judge attribute: a name, or an object with the
// name and the contains judge's exclusive setting (set on ms).
func (ms *memorySource) judgeSetting(d *spec.Decoder, a *hcl.Attribute) (string, bool) {
	v, ok := d.Value(a, cty.DynamicPseudoType, "\"judge\" attribute")
	if !ok || v.IsNull() {
		return "", false
	}
	rng := a.Expr.Range().Ptr()
	const how = `Write the judge's name, judge = "contains", or an object: judge = { name = "contains", exclusive = true }.`
	if v.Type() == cty.String {
		return v.AsString(), true
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		d.Errorf(rng, "Invalid judge", "The judge is %s. %s", spec.TypeName(v.Type()), how)
		return "", false
	}
	name := ""
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		switch key := k.AsString(); key {
		case "name":
			if e.IsNull() || e.Type() != cty.String {
				d.Errorf(rng, "Invalid judge", "The judge's name must be a string: \"contains\", \"regex\" or a judge target's name. %s", how)
				return "", false
			}
			name = e.AsString()
		case "exclusive":
			if e.IsNull() || e.Type() != cty.Bool {
				d.Errorf(rng, "Invalid judge", "exclusive must be true or false. %s", how)
				return "", false
			}
			ms.exclusive = e.True()
		default:
			d.Errorf(rng, "Unknown judge setting", "A judge object has name and exclusive; %q is neither.%s", key, spec.DidYouMean(key, judgeSettings))
			return "", false
		}
	}
	if name == "" {
		d.Errorf(rng, "Judge without a name", "The judge object needs its name: judge = { name = \"contains\", exclusive = true }.")
		return "", false
	}
	return name, true
}

func (ms *memorySource) judgeTarget() string {
	if ms.judgeBy == nil {
		return ""
	}
	return ms.judgeBy.Name
}

// decodeFacts reads the fact blocks and builds the joined template: the
// sentences, then every question, then every expected answer. A fact with
// a mistake does not stop the checks of the others, nor of its reply
// block (placeholders then go unchecked: the slots are not all known).
func (ms *memorySource) decodeFacts(d *spec.Decoder, blocks hcl.Blocks) bool {
	type text struct {
		s   string
		rng hcl.Range
	}
	var says, asks, expects []text
	var bodies, bad []*hcl.BodyContent
	for i, fb := range blocks {
		fc, ok := d.Content(fb, factSchema)
		if !ok {
			bad = append(bad, fc)
			continue
		}
		f := &Fact{Say: d.String(fc.Attributes, "say", ""), Expect: d.String(fc.Attributes, "expect", ""), slot: -1}
		f.Ask = ms.decodeAsk(d, fc.Attributes["ask"])
		if len(f.Ask) == 0 || f.Expect == "" {
			d.Errorf(fb.DefRange.Ptr(), "Incomplete fact", "A fact needs say, at least one question in ask, and a non-empty expect.")
			bad = append(bad, fc)
			continue
		}
		bodies = append(bodies, fc)
		ms.facts = append(ms.facts, f)
		says = append(says, text{f.Say, fc.Attributes["say"].Expr.Range()})
		for _, q := range f.Ask {
			asks = append(asks, text{q, fc.Attributes["ask"].Expr.Range()})
			ms.questionFact = append(ms.questionFact, i)
		}
		expects = append(expects, text{f.Expect, fc.Attributes["expect"].Expr.Range()})
	}
	index := map[string]int{}
	all := append(append(says, asks...), expects...)
	for i, x := range all {
		if !d.AppendTurnText(ms.t, x.s, x.rng, i, index) {
			bad = append(bad, nil)
		}
	}
	if len(bad) > 0 {
		d.SlotsUnknown(true)
		for _, fc := range append(bodies, bad...) {
			if fc != nil {
				d.ReplyBlocks(fc.Blocks, nil, false)
			}
		}
		d.SlotsUnknown(false)
		return false
	}
	ms.t.Parts = append(ms.t.Parts, spec.Part{Literal: "", Slot: -1})
	for i, f := range ms.facts {
		if f.Reply = d.ReplyBlocks(bodies[i].Blocks, ms.t.SlotKeys(), false); f.Reply != nil {
			ms.hasReply = true
		}
		if lits, phs, err := spec.ParsePlaceholders(f.Expect); err == nil && len(phs) == 1 && lits[0] == "" && lits[1] == "" {
			f.slot = index[phs[0].Key]
		}
	}
	return true
}

// decodeAsk reads ask: one question or a list of them.
func (ms *memorySource) decodeAsk(d *spec.Decoder, a *hcl.Attribute) []string {
	v, ok := d.Value(a, cty.DynamicPseudoType, "\"ask\" attribute")
	if !ok || v.IsNull() {
		return nil
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}
	}
	return d.Strings(hcl.Attributes{"ask": a}, "ask")
}

func (ms *memorySource) Name() string           { return ms.t.Name }
func (ms *memorySource) Kind() string           { return spec.KindMemory }
func (ms *memorySource) DeclRange() hcl.Range   { return ms.t.DeclRange }
func (ms *memorySource) Info() *spec.SourceInfo { return &ms.info }

// Generate yields one script per slot assignment and distance, the
// distances of one assignment together in the order of the distance list.
func (ms *memorySource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	base := func(c *schema.Case, sp *spec.Splitter) (*schema.Script, error) {
		if err := sp.Assign(c); err != nil {
			return nil, err
		}
		return &schema.Script{ID: c.ID, Turns: []*schema.Case{c}}, nil
	}
	return generate.Template(ms.s, ms.t, g, func(sc *schema.Script) error {
		for _, d := range ms.distance {
			if err := yield(ms.script(sc.Turns[0], d)); err != nil {
				return err
			}
		}
		return nil
	}, base)
}

// ScriptTurns is the number of turns of the script at c's distance: the
// facts told, the fillers, the questions (spec.ScriptTurner).
func (ms *memorySource) ScriptTurns(c *schema.Case) int {
	return len(ms.facts) + c.Distance + len(ms.questionFact)
}

// scriptID is the id of the script of case id at distance d.
func scriptID(id string, d int) string { return id + "-d" + strconv.Itoa(d) }

// script cuts the joined case c into the turns of its run at distance d.
func (ms *memorySource) script(c *schema.Case, d int) *schema.Script {
	texts := strings.Split(c.Text, spec.TurnSep)
	nf, nq := len(ms.facts), len(ms.questionFact)
	id := scriptID(c.ID, d)
	n := nf + d + nq
	sc := &schema.Script{ID: id, Source: ms.t.Name, SourceKind: spec.KindMemory, Turns: make([]*schema.Case, n)}
	turns := make([]schema.Case, n)
	for i := range turns {
		tc := &turns[i]
		*tc = *c
		tc.ID = id + "/" + strconv.Itoa(i+1)
		tc.Template, tc.Source, tc.SourceKind = "", ms.t.Name, spec.KindMemory
		tc.Script, tc.Turn, tc.Distance = id, i+1, d
		tc.Expect = nil
		switch {
		case i < nf:
			tc.Text = part(texts, i)
		case i < nf+d:
			tc.Text = ms.filler[(i-nf)%len(ms.filler)]
		default:
			q := i - nf - d
			f := ms.questionFact[q]
			tc.Text = part(texts, nf+q)
			tc.Fact = part(texts, f)
			tc.Expected = part(texts, nf+nq+f)
		}
		sc.Turns[i] = tc
	}
	return sc
}

func part(texts []string, i int) string {
	if i < len(texts) {
		return texts[i]
	}
	return ""
}

// Rebuild returns the turn the memory block now generates for a saved
// turn: the slot assignment with the saved slots must have the saved id,
// the distance must still be listed, and the turn must have the saved text.
func (ms *memorySource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	script, turn, text, slots := saved.Script, saved.Turn, saved.Text, saved.Slots
	in := spec.Saved{Text: spec.AnyText, Slots: slots}
	if saved.Case != nil {
		script, turn, text = saved.Case.Script, saved.Case.Turn, saved.Case.Text
	}
	at := strings.LastIndex(script, "-d")
	if at < 0 {
		return nil, false
	}
	d, err := strconv.Atoi(script[at+2:])
	if err != nil || !containsInt(ms.distance, d) {
		return nil, false
	}
	in.ID = script[:at]
	if saved.Case != nil {
		in = spec.Saved{Case: &schema.Case{ID: in.ID, Text: spec.AnyText, Slots: saved.Case.Slots}}
	}
	joined, ok := ms.ts.Rebuild(in)
	if !ok {
		return nil, false
	}
	if err := ms.s.AssignSplits(joined); err != nil {
		return nil, false
	}
	sc := ms.script(joined, d)
	if turn < 1 || turn > len(sc.Turns) || sc.Turns[turn-1].Text != text {
		return nil, false
	}
	return sc.Turns[turn-1], true
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Judge gives the verdict of the answer reply to the memory question turn
// r, and what decided it when that is not plain: by the source's built-in
// judge (contains or regex), or by reading the judgement r.Judge its judge
// target gave. "" for a turn that is not a question.
func (ms *memorySource) Judge(r *schema.Result, reply string) (verdict, detail string) {
	c := &r.Case
	if c.Fact == "" {
		return "", ""
	}
	if strings.TrimSpace(reply) == "" {
		return schema.Unanswered, ""
	}
	if ms.judgeBy != nil {
		in := &schema.JudgeInput{Fact: c.Fact, Question: c.Text, Answer: reply, Expect: c.Expected}
		return judgeVerdict(ms.s, ms.judgeBy, in, r.Judge)
	}
	if ms.judge == JudgeRegex {
		return ms.judgeRegex(c.Expected, reply), ""
	}
	return ms.judgeContains(c, reply), ""
}

func (ms *memorySource) judgeRegex(expected, reply string) string {
	var re *regexp.Regexp
	if v, ok := ms.regexps.Load(expected); ok {
		re = v.(*regexp.Regexp)
	} else {
		re, _ = regexp.Compile(expected)
		ms.regexps.Store(expected, re)
	}
	if re != nil && re.MatchString(reply) {
		return schema.Entailed
	}
	return schema.Neutral
}

// judgeContains: entailed when the reply contains the expected answer raw
// or normalised (folded: lower case, full-width forms as ASCII, no white
// space), or the slot's normalised value; contradicted when it contains
// another value of the expected slot's materials; neutral otherwise. With
// exclusive, a reply that contains the expected answer and another value
// too (a hedge naming every city) is contradicted.
func (ms *memorySource) judgeContains(c *schema.Case, reply string) string {
	f := ms.factOf(c)
	folded := spec.Fold(reply)
	rights := []string{c.Expected}
	var slot *schema.Slot
	if f != nil && f.slot >= 0 {
		if sv, ok := c.Slots[ms.t.Slots[f.slot].Key]; ok {
			slot = &sv
			rights = append(rights, sv.Value, sv.Normalized)
		}
	}
	entailed := false
	for _, r := range rights {
		if r != "" && (strings.Contains(reply, r) || strings.Contains(folded, spec.Fold(r))) {
			entailed = true
			break
		}
	}
	switch {
	case entailed && (!ms.exclusive || slot == nil):
		return schema.Entailed
	case slot == nil:
		return schema.Neutral
	}
	rest := folded
	if entailed {
		// The right value is taken out first, so another value written
		// inside it (北京 in 北京市) is not counted as named.
		for _, r := range rights {
			if fr := spec.Fold(r); fr != "" {
				rest = strings.ReplaceAll(rest, fr, "\x00")
			}
		}
	}
	for _, o := range ms.otherValues(ms.t.Slots[f.slot].Material) {
		if o == spec.Fold(slot.Value) || o == spec.Fold(slot.Normalized) {
			continue
		}
		if strings.Contains(rest, o) {
			return schema.Contradicted
		}
	}
	if entailed {
		return schema.Entailed
	}
	return schema.Neutral
}

// questionReply is SourceInfo.Reply: the reply block of the fact a
// question turn asks about (nil on other turns).
func (ms *memorySource) questionReply(c *schema.Case) *reply.Check {
	if c.Fact == "" {
		return nil
	}
	if f := ms.factOf(c); f != nil {
		return f.Reply
	}
	return nil
}

// factOf is the fact a question turn asks about.
func (ms *memorySource) factOf(c *schema.Case) *Fact {
	q := c.Turn - len(ms.facts) - c.Distance - 1
	if q < 0 || q >= len(ms.questionFact) {
		return nil
	}
	return ms.facts[ms.questionFact[q]]
}

// otherValues lists the folded values (and normalised values) of the
// materials named name.
func (ms *memorySource) otherValues(name string) []string {
	if v, ok := ms.others.Load(name); ok {
		return v.([]string)
	}
	var out []string
	if m := ms.s.Materials[name]; m != nil {
		for _, v := range m.Values {
			if f := spec.Fold(v.Value); f != "" {
				out = append(out, f)
			}
			for _, n := range v.Normalize {
				if f := spec.Fold(n); f != "" {
					out = append(out, f)
				}
			}
		}
	}
	ms.others.Store(name, out)
	return out
}
