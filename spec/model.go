package spec

import (
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/redact"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/drift"
	"github.com/nlutest/nlutest/spec/materials"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
)

// Suite is a loaded, checked suite: every block of every file, in source order.
type Suite struct {
	// Tree describes the suite's metrics tree: the families it was loaded
	// with (Options.Families) and a group per source kind.
	Tree *schema.Tree
	// kinds are the case source kinds it was loaded with, by block type.
	kinds map[string]SourceKind
	// settingBlocks are the families' settings blocks it was loaded with;
	// settings their values by block type (Settings).
	settingBlocks []SettingsBlock
	settings      map[string]any

	Name        string
	Description string
	// RunTargets are the suite block's targets = ["a", "b"]: the targets
	// run calls when no --target is given, each a run of its own, compared
	// side by side (empty: the first target block alone).
	RunTargets      []string
	RunTargetsRange hcl.Range
	// SchemaName is the suite's response schema name as written (may be empty).
	SchemaName string
	// Schema is the resolved response schema, nil when the suite names none.
	Schema   *Schema
	Tags     []string
	Defaults Defaults
	// Dir is the suite directory; Files are the suite files read, in order.
	Dir   string
	Files []string
	// Access says which other files the suite may read (materials
	// sources, file()).
	Access FileAccess
	// Sources holds every file read (suite files and material sources), for
	// diagnostics snippets.
	Sources map[string][]byte

	Variables []*Variable
	Targets   []*Target
	Materials map[string]*Materials
	MatOrder  []string
	// Templates are the template blocks; each is also in CaseSources.
	Templates []*Template
	// CaseSources are every case source (template and other kinds) in
	// declaration order: what Generate walks.
	CaseSources []Source
	Splits      []*Split
	Thresholds  []*Threshold
	// Tools are the tool blocks (mock tools) by name, ToolOrder their
	// names in declaration order.
	Tools     map[string]*tools.Tool
	ToolOrder []string
	// Asserts are suite-level assert blocks, applied to every call.
	Asserts []*Assert

	// Vars holds the resolved value of every variable (var.NAME).
	Vars map[string]cty.Value
	// Secrets lists the text forms of sensitive variables' values, for
	// redaction (see Redactor).
	Secrets []string

	DeclRange hcl.Range

	base           *hcl.EvalContext
	baseOnce       sync.Once
	check          *hcl.EvalContext
	checkOnce      sync.Once
	red            *redact.Redactor
	redOnce        sync.Once
	splitNeeds     Needs
	splitNeedsOnce sync.Once
	// gen caches each template prepared for generation (Prepared), so
	// several goroutines may generate from one suite.
	gen genCache
}

// Defaults are the suite's defaults for templates.
type Defaults struct {
	Level    string
	Strategy string
	Limit    int
	// LevelLimit caps the cases generated per template of a level.
	LevelLimit map[string]int
}

// Variable is a `variable` block.
type Variable struct {
	Name        string
	Default     cty.Value
	Description string
	Sensitive   bool
	DeclRange   hcl.Range

	// badDefault: the default has an error (reported), or the block
	// misspells default; without another value the variable is unset,
	// and that is not a second error.
	badDefault bool
}

// Materials is a `materials` block: the values one slot name draws from.
type Materials struct {
	Name   string
	Tag    string
	Level  string
	Values []materials.Value
	Source string
	// Compose lists the block's compose patterns ("{姓}{名}"); their values
	// follow the block's own values in Values. ComposeRange is the compose
	// attribute's range.
	Compose      []string
	ComposeRange hcl.Range
	DeclRange    hcl.Range

	compose *materials.Composition
	// broken: the block has errors (reported) or could not be read, so
	// its values are not all there; checks of them are skipped.
	broken bool
}

// Template is a `template` block.
type Template struct {
	Name           string
	Text           string
	Parts          []Part
	Slots          []SlotRef
	Level          string
	Core           bool
	Scene          []string
	Tags           []string
	Strategy       string
	Limit          int
	Count          int
	Seed           uint64
	MaterialLevels []string
	Expect         []*ExpectSpec
	Asserts        []*Assert
	Reviewed       bool
	Perturb        *perturb.Block
	// Tools is the template's tools block (nil without one); its args
	// expectations are in Expect.
	Tools *tools.Checks
	// Reply is the template's reply block (nil without one).
	Reply *reply.Check
	// Rubrics are the template's rubric blocks.
	Rubrics   []*rubric.Spec
	DeclRange hcl.Range
	TextRange hcl.Range
}

// Part is a piece of a template text: a literal or a slot reference.
type Part struct {
	Literal string
	// Slot indexes Template.Slots when >= 0; -1 for a literal.
	Slot int
}

// SlotRef is a distinct placeholder of a template text: {NAME} or {NAME#2}.
type SlotRef struct {
	// Key is the placeholder as written inside braces, e.g. "城市#2".
	Key string
	// Material is the materials block it draws from.
	Material string
	// Draw is 1 for {NAME}, N for {NAME#N}.
	Draw int
}

// ExpectSpec is one `path = value` entry of an expect map.
type ExpectSpec struct {
	// Path is the JSONPath after `.[` normalisation, with its "state:"
	// prefix (jsonpath.StatePrefix) when it addresses the dialogue state.
	Path string
	// Expr is the compiled JSONPath (after the prefix).
	Expr jp.Expr
	// State is set for a "state:$.path" key: the path is evaluated on the
	// turn's dialogue state (schema.Result.State), not its response.
	State bool
	// Value is the expected value with placeholders still in its strings.
	Value cty.Value
	// Tool, for a tools block's args entry (Path "tool:NAME:$.path"),
	// names the tool whose calls' arguments the path reads.
	Tool string
	// Final is set for a final_state block's expectation (Path
	// "final:$.path"): the path reads the script's final state.
	Final bool
	// HasPlaceholders is true when some string in Value has a {slot}.
	HasPlaceholders bool
	Dimension       string
	Range           hcl.Range
}

// Assert is an `assert` block: a condition checked per call.
type Assert struct {
	Condition hcl.Expression
	Message   string
	Dimension string
	DeclRange hcl.Range
}

// Split is a `split` block: a named subset of cases.
type Split struct {
	Name     string
	Where    hcl.Expression
	Fraction float64
	Seed     string
	// lo and hi bound the split's share of the unit interval: splits with
	// the same seed partition it in declaration order.
	lo, hi float64
	// templateOnly: Where reads only template attributes of the case.
	templateOnly bool
	DeclRange    hcl.Range
}

// Threshold is a `threshold` block: a gate over the metrics tree.
type Threshold struct {
	Name      string
	Condition hcl.Expression
	Message   string
	Severity  string
	// History is the threshold's history block (the drift gate); nil
	// without one.
	History   *drift.Gate
	DeclRange hcl.Range
}

// Schema is a response schema: its name and, when declared, the response
// type used to check `response.*` references before anything runs.
type Schema struct {
	Name     string
	Response cty.Type
	// HasType is false when the schema declares no response type.
	HasType bool
	// Dimensions are the metric dimensions, in declaration order: an
	// expectation or response leaf belongs to the first that matches.
	Dimensions []*Dimension
	// Ignore lists paths dropped from responses before dimensions and
	// pre-annotation look at them.
	Ignore []Pattern
	// Extends names the preset this schema builds on.
	Extends   string
	Builtin   bool
	DeclRange hcl.Range
}

// FileLine returns the file and line a range starts at, for reports.
func FileLine(r hcl.Range) (string, int) { return r.Filename, r.Start.Line }

// SplitByName returns the split named name, or nil.
func (s *Suite) SplitByName(name string) *Split {
	for _, sp := range s.Splits {
		if sp.Name == name {
			return sp
		}
	}
	return nil
}

// SplitNames lists the suite's splits in declaration order.
func (s *Suite) SplitNames() []string {
	out := make([]string, len(s.Splits))
	for i, sp := range s.Splits {
		out[i] = sp.Name
	}
	return out
}

// Range is hcl.Range, re-exported for callers that only need positions.
type Range = hcl.Range
