package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/nlutest/nlutest/spec/tools"
)

// Source is a source of cases: a block of the suite that yields scripts (a
// template today; datasets and conversations are other kinds). Suite.Generate
// walks the suite's sources in declaration order; `nlutest eval` asks the
// source of each recorded case to rebuild it from the suite as it is now.
//
// A source kind is one file: its block schema, its decoding (a SourceKind)
// and its Source implementation, registered by one line in
// builtinSourceKinds (or, for a kind a test adds, one RegisterSourceKind
// call).
type Source interface {
	// Name is the block's label; Kind is the source kind (the block type).
	Name() string
	Kind() string
	DeclRange() hcl.Range
	// Info is what the rest of nlutest reads about the source: its
	// expectations and asserts (for the evaluator and validate's checks),
	// its level and scene (metrics keys), and whether it is reviewed.
	Info() *SourceInfo
	// Generate streams the source's scripts to yield, the same scripts in
	// the same order every time. It assigns each case's splits and skips
	// cases outside the selected split with g.Admit (or equivalent code).
	// It runs on a generating goroutine; g.Warn reaches the caller.
	Generate(g *Gen, yield func(*schema.Script) error) error
	// Rebuild returns the case the source now generates for a saved one,
	// or false when it no longer generates it (the caller keeps the saved
	// case). It must be safe for concurrent use.
	Rebuild(saved Saved) (*schema.Case, bool)
}

// SourceInfo describes a case source for evaluation, metrics and
// validation.
type SourceInfo struct {
	Level string
	Core  bool
	Scene []string
	// Expect are the expectation specs every case of the source carries, in
	// the order of Case.Expect (nil when cases carry their own).
	Expect []*ExpectSpec
	// Asserts are the source's assert blocks, checked on each of its cases.
	Asserts []*Assert
	// Slots lists the slot names the source's expressions may use.
	Slots []string
	// Reviewed is false when the source's expectations are drafts.
	Reviewed bool
	// Perturb is the source's perturb block (nil without one): its cases
	// are followed by their perturbed variants.
	Perturb *perturb.Block
	// References is true when the source's cases may carry references
	// (the text metrics apply).
	References bool
	// TextMinimums are per-case minimums of text metrics (a dataset's
	// min_f1 …): a case scoring below one fails.
	TextMinimums []TextMinimum
	// Turns is the number of turns of each of the source's scripts (a
	// conversation's turn blocks); 0 for a source of single cases.
	Turns int
	// TurnAsserts, when set, holds the asserts checked on each turn
	// (index Turn-1) instead of Asserts, which then lists them all for
	// validation.
	TurnAsserts [][]*Assert
	// Judge, when set, gives the verdict (schema.Entailed…) of a memory
	// question turn's answer reply, and what decided it when that is not
	// plain (a judge target's answer); "" for other turns. For a source
	// judged by a target it reads the judgement recorded in r.Judge.
	Judge func(r *schema.Result, reply string) (verdict, detail string)
	// JudgeTarget names the target that judges the source's answers (a
	// memory block's judge = "TARGET"); "" for a built-in judge. The run
	// calls it on every answered question (runner.WithJudges).
	JudgeTarget string
	// Reply, when set, returns the reply checks (a reply block) of a case
	// of the source, nil for a case without; nil for a source without
	// reply blocks.
	Reply func(c *schema.Case) *reply.Check
	// Tools, when set, returns the tools block checking a case's (a
	// turn's) tool calls, nil for a case without; ScriptTools is a
	// conversation's or scenario's own tools block, checked on the turn
	// that ends it over the calls of every turn (nil without one).
	Tools       func(c *schema.Case) *tools.Checks
	ScriptTools *tools.Checks
	// FinalState is a conversation's or scenario's final_state block (nil
	// without one): the runner reads the state after the last turn, and
	// its expectations ("final:…" keys, on the case of the turn that ends
	// the script) check it.
	FinalState *FinalStateSpec
	// CaptureFailures, when set, returns the failures of a result's
	// captures that selected nothing (a conversation turn's capture and
	// capture_reply), each failing its own turn.
	CaptureFailures func(r *schema.Result) []schema.Failure
	// Rubrics are the rubric blocks judging each case of the source
	// (RubricsFor picks a case's); TurnRubrics, when set, holds a
	// conversation's per turn (index Turn-1) instead. RubricQuestionsOnly
	// limits Rubrics to a memory block's question turns.
	Rubrics             []*rubric.Spec
	TurnRubrics         [][]*rubric.Spec
	RubricQuestionsOnly bool
	// Success, for a scenario, reports whether its success condition
	// holds on a turn; Goal describes the goal of the instance a turn
	// belongs to (for transcripts); MaxTurns is its max_turns.
	Success  func(r *schema.Result) bool
	Goal     func(c *schema.Case) string
	MaxTurns int
	// Simulator names the target whose simulator block plays a scenario's
	// user (user = "NAME"); "" for the agenda simulator and other sources.
	// The CLI opens it and adds runner.WithUserSimulators.
	Simulator string
	// SuccessRange locates a scenario's success block.
	SuccessRange hcl.Range
	// Task is a scenario's task block (nil without one): where its offer,
	// answers and booking are read for metrics.task.
	Task *TaskSpec
}

// Saved is a recorded case to rebuild: Case when the caller decoded it
// whole, else its id, text and raw slots object (schema.EachSlotValue).
type Saved struct {
	Case     *schema.Case
	ID, Text string
	Slots    []byte
	// Script and Turn place a saved turn of a conversation.
	Script string
	Turn   int
	// Into, when set, is a case the source may build the rebuilt case in
	// and return (a template source does, reusing its slot map and
	// expectations; other sources ignore it). The caller owns it and
	// must not keep its maps or slices past the next rebuild into it.
	Into *schema.Case
}

// SourceKind decodes the blocks of one case source kind.
type SourceKind interface {
	// Block is the block type (labelled with the source's name) and the
	// kind's name, as recorded in source_kind.
	Block() string
	// Decode decodes one block into a source, reporting problems through
	// d; nil means the block declares no usable source. Sources are
	// decoded after variables, schemas, materials, targets and splits.
	Decode(d *Decoder, b *hcl.Block) Source
}

// buildTree returns the metrics tree's descriptor for the families and the
// source kinds: each kind but template (whose metrics.template is built
// in) adds its keyed map metrics.KIND["NAME"] unless it has a
// MetricsGroup method returning false (a kind whose metrics are a
// family's value, as ranking's), under another name when it has a
// SourceGroup method (memory's metrics.memory_source). It also maps the
// kinds by block type, refusing a block type that is taken.
func buildTree(families []*schema.Family, kinds []SourceKind) (*schema.Tree, map[string]SourceKind, error) {
	tree, err := schema.NewTree(families)
	if err != nil {
		return nil, nil, err
	}
	byBlock := map[string]SourceKind{}
	for _, k := range kinds {
		if _, dup := byBlock[k.Block()]; dup || slices.ContainsFunc(fileSchemaBase.Blocks, func(b hcl.BlockHeaderSchema) bool { return b.Type == k.Block() }) {
			return nil, nil, fmt.Errorf("source kind %q: the block type is taken", k.Block())
		}
		byBlock[k.Block()] = k
		if g, ok := k.(interface{ MetricsGroup() bool }); (ok && !g.MetricsGroup()) || k.Block() == schema.KindTemplate {
			continue
		}
		group := k.Block()
		if g, ok := k.(interface{ SourceGroup() string }); ok {
			group = g.SourceGroup()
		}
		if err := tree.AddSourceGroup(k.Block(), group, k.Block()+" source"); err != nil {
			return nil, nil, fmt.Errorf("source kind %q: %v", k.Block(), err)
		}
	}
	return tree, byBlock, nil
}

// NewTree returns the metrics tree's descriptor for the families and the
// source kinds, as Load builds a suite's Tree: for reading reports with
// the same extensions they were written with.
func NewTree(families []*schema.Family, kinds []SourceKind) (*schema.Tree, error) {
	t, _, err := buildTree(families, kinds)
	return t, err
}

// SourceKindNames lists the suite's source kinds' block types, sorted.
func (s *Suite) SourceKindNames() []string {
	out := make([]string, 0, len(s.kinds))
	for k := range s.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// SourceByKind returns the source of the given kind and name, or nil.
func (s *Suite) SourceByKind(kind, name string) Source {
	for _, src := range s.CaseSources {
		if src.Name() == name && src.Kind() == kind {
			return src
		}
	}
	return nil
}

// ScriptTurns is the number of turns the suite now gives the script the
// recorded turn c (its source, source kind and distance) belongs to: the
// source's Info().Turns, or, for a source whose scripts differ in length
// (memory: one per distance), the length of c's script. 0 when the suite
// no longer has the source, or the length is not known before the script
// runs.
func (s *Suite) ScriptTurns(c *schema.Case) int {
	src := s.SourceByKind(c.SourceKind, c.Source)
	if src == nil {
		return 0
	}
	if n := src.Info().Turns; n > 0 {
		return n
	}
	if v, ok := src.(ScriptTurner); ok {
		return v.ScriptTurns(c)
	}
	return 0
}

// Decoder is what a SourceKind's Decode uses to read its block: the
// loader's typed attribute readers (each reports a wrong type, a name that
// is not var.*, or a sensitive variable as a diagnostic) and the shared
// decoding of expect maps and assert blocks.
type Decoder struct{ l *loader }

// Suite is the suite being loaded (materials, splits and defaults are
// decoded already).
func (d *Decoder) Suite() *Suite { return d.l.suite }

// Content reads the block's body against schema; ok is false when the
// block's label has errors or the body has errors other than arguments and
// blocks the schema does not know (reported, and decoding goes on so the
// rest of the block is checked in the same pass).
func (d *Decoder) Content(b *hcl.Block, schema *hcl.BodySchema) (c *hcl.BodyContent, ok bool) {
	c, ok = d.l.content(b.Body, schema)
	return c, d.l.checkLabel(b) && ok
}

// String reads a string attribute; def when absent.
func (d *Decoder) String(attrs hcl.Attributes, name, def string) string {
	return d.l.str(attrs, name, def)
}

// Strings reads a list of strings.
func (d *Decoder) Strings(attrs hcl.Attributes, name string) []string {
	return d.l.strList(attrs, name)
}

// Bool reads a bool attribute; def when absent.
func (d *Decoder) Bool(attrs hcl.Attributes, name string, def bool) bool {
	return d.l.boolean(attrs, name, def)
}

// Int reads a whole number of at least min; def when absent.
func (d *Decoder) Int(attrs hcl.Attributes, name string, def, min int) int {
	return d.l.integer(attrs, name, def, min)
}

// Number reads a number from min to max; def when absent. Like the other
// readers it may use only var.* and functions, never a sensitive
// variable; a value outside the range is an error naming the range
// (max math.Inf(1) for none: "at least min").
func (d *Decoder) Number(attrs hcl.Attributes, name string, def, min, max float64) float64 {
	return d.l.number(attrs, name, def, min, max)
}

// Expect reads an expect map; slots are the placeholders its values may use.
func (d *Decoder) Expect(a *hcl.Attribute, slots []string) []*ExpectSpec {
	return d.l.decodeExpect(a, slots)
}

// Assert reads an assert block.
func (d *Decoder) Assert(b *hcl.Block) *Assert { return d.l.decodeAssert(b) }

// Errorf reports an error at rng.
func (d *Decoder) Errorf(rng *hcl.Range, summary, detail string, args ...any) {
	d.l.errorf(rng, summary, detail, args...)
}

// StaticExpectations resolves expectation specs without placeholders
// into a case's expectations (a source whose cases share them may share
// the result between its cases: callers never modify expectations).
func StaticExpectations(specs []*ExpectSpec) schema.Expectations {
	if len(specs) == 0 {
		return nil
	}
	out := make(schema.Expectations, len(specs))
	for i, e := range specs {
		out[i] = schema.Expectation{Path: e.Path, Value: ctyToGeneric(e.Value)}
	}
	return out
}

// AssignSplits sets c.Split for a case rebuilt outside a generation
// (Source.Rebuild): the splits whose condition or share holds.
func (s *Suite) AssignSplits(c *schema.Case) error {
	c.Split = nil
	sp := Splitter{s: s}
	return sp.Assign(c)
}

// Gen is the generation of one Suite.Generate call, as a source sees it.
type Gen struct {
	s    *Suite
	opts GenOptions
	sp   Splitter
	// shared holds the values the generation's sources share (Shared).
	shared map[any]any
}

// Suite is the suite generating.
func (g *Gen) Suite() *Suite { return g.s }

// Split is the selected split ("" for all cases).
func (g *Gen) Split() string { return g.opts.Split }

// Warn reports a generation warning.
func (g *Gen) Warn(rng hcl.Range, msg string) {
	if g.opts.Warn != nil {
		g.opts.Warn(rng, msg)
	}
}

// Admit sets c.Split and reports whether c is in the selected split.
func (g *Gen) Admit(c *schema.Case) (bool, error) {
	if err := g.sp.Assign(c); err != nil {
		return false, err
	}
	return g.opts.Split == "" || InSplit(c, g.opts.Split), nil
}
