package spec

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Target is a `target` block: how cases reach the system under test. spec
// reads the settings every kind shares; the block's one kind block (http
// { … }, rasa { … }, …) is decoded by its TargetKind, which keeps what it
// made of it in Config. spec itself never calls a target.
type Target struct {
	Name string
	// Kind is the kind block's type ("http", "rasa", …); Body is that
	// block's body and KindRange its header.
	Kind      string
	Body      hcl.Body
	KindRange hcl.Range
	// Config is the kind's decoding of Body (its own type), nil when the
	// suite was loaded without target kinds (Options.TargetKinds);
	// Decoded is the kind that decoded it (what makes its caller).
	Config  any
	Decoded TargetKind
	// PerCase are the kind's expressions evaluated per case (a request's
	// url, headers, body); the load checks the names they use once every
	// block is declared.
	PerCase []hcl.Expression
	// AfterCall are the kind's expressions evaluated per case on the
	// answer (an http target's reply): they may also use response.
	AfterCall []hcl.Expression

	Timeout          time.Duration
	Concurrency      int
	Rate             float64
	Retries          int
	RetryOn          []string
	MaxResponseBytes int64
	ErrorBudget      float64
	DeclRange        hcl.Range
	// State is set by a kind whose calls record dialogue state on their
	// results (schema.Result.State): a rasa webhook target with tracker =
	// true, a replay target (what it replays may hold state). A suite that
	// reads state with no such target gets a warning.
	State bool
	// Judge is the target's judge block: set, the target can judge memory
	// answers (a memory block's judge = "NAME"). Nil for other targets.
	Judge *TargetJudge
	// Simulator is the target's simulator block: set, the target can play
	// a scenario's user (user = "NAME", SPEC §14.6). Nil for other targets.
	Simulator *TargetSimulator
	// NoBotFirst, when not empty, says why the target cannot open a
	// conversation whose first turn is the bot's (bot_first = true): its
	// kind has no way to start a session without a user message (openai).
	NoBotFirst string
}

// TargetJudge is a target's judge block (SPEC §13): how its response to a
// judge request reads as a verdict.
//
//	judge {
//	  verdict = response.label   # over response, reply, judge and var; default: reply
//	}
type TargetJudge struct {
	// Verdict is the verdict expression; nil means the reply.
	Verdict   hcl.Expression
	DeclRange hcl.Range
}

// TargetSimulator is a target's simulator block (SPEC §14.6): the target
// (an openai one) plays a scenario's user.
//
//	simulator {
//	  system     = "…{goal}…{persona}…"   # optional; default SimulatorSystemPrompt
//	  persona    = "一位说话简短的中年乘客"   # optional
//	  max_tokens = 256                     # optional; 0 sends none
//	}
type TargetSimulator struct {
	System, Persona string
	// MaxTokens is the max_tokens sent with each simulator request
	// (DefaultSimulatorMaxTokens unless set; 0 sends none), unless the
	// target's params set max_tokens or max_completion_tokens.
	MaxTokens int
	DeclRange hcl.Range
}

// DefaultSimulatorMaxTokens is a simulator block's max_tokens when it
// sets none: a user's message is short (the prompt asks for "one short
// message"), and a model that rambles or repeats itself stops there
// instead of writing megabytes.
const DefaultSimulatorMaxTokens = 256

// simulatorBlock is the type of a target's simulator block.
const simulatorBlock = "simulator"

var simulatorSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "system"}, {Name: "persona"}, {Name: "max_tokens"}}}

// judgeBlock is the type of a target's judge block.
const judgeBlock = "judge"

var judgeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "verdict"}}}

// Target returns the target named name, or when name is empty the default
// target: the first one declared that has no judge block (a judge target
// judges answers; it is not the bot under test), else the first one; nil
// when there is none.
func (s *Suite) Target(name string) *Target {
	if name == "" {
		for _, t := range s.Targets {
			if t.Judge == nil && t.Simulator == nil {
				return t
			}
		}
	}
	for _, t := range s.Targets {
		if name == "" || t.Name == name {
			return t
		}
	}
	return nil
}

// TargetKind decodes the kind block of one kind of target. The kinds live
// outside spec (package runner/targets, next to their callers) and reach
// the load through Options.TargetKinds.
type TargetKind interface {
	// Name is the kind block's type, e.g. "http".
	Name() string
	// Decode reads the kind block through d, which reports problems the
	// way every other block's are reported. It returns the kind's settings
	// (kept as Target.Config), or ok false when the block is too broken to
	// keep the target.
	Decode(d *TargetDecoder) (config any, ok bool)
}

// TargetDecoder is what a TargetKind decodes its kind block with: the
// Decoder's attribute readers (as source kinds have them, so a kind's
// diagnostics read like every other block's: file:line:col, did-you-mean),
// the block, and what only targets need.
type TargetDecoder struct {
	*Decoder
	// Target is the target being decoded, its shared settings already read.
	Target *Target
	// Block is the kind block.
	Block *hcl.Block
}

// RefuseBotFirst marks the target as unable to open a conversation
// without a user message; why completes "The target T (KIND) cannot open
// a conversation with the bot's welcome: " and says what to do instead.
func (d *TargetDecoder) RefuseBotFirst(why string) { d.Target.NoBotFirst = why }

// StringMap reads a map of strings the way String reads a string.
func (d *TargetDecoder) StringMap(attrs hcl.Attributes, name string) map[string]string {
	return d.l.strMap(attrs, name)
}

// SecretStringMap is StringMap for a map whose values may come from
// sensitive variables, for a kind that hands the values to a process and
// never records them (an exec target's env). A function that fails on a
// sensitive value does not quote it.
func (d *TargetDecoder) SecretStringMap(attrs hcl.Attributes, name string) map[string]string {
	return d.l.strMapWith(attrs, name, d.l.staticSecret)
}

// OnlyVar reports (and returns false) when e uses a name other than var,
// or an undeclared variable; what names e in the message.
func (d *TargetDecoder) OnlyVar(e hcl.Expression, what string) bool {
	return d.l.onlyRoots(e, what, "var")
}

// SensitiveVar returns the name of the variable e is (var.NAME), which
// must be declared sensitive = true; otherwise it reports a diagnostic
// naming attribute what and returns "". Use it for credentials a kind
// sends (an API key): their value is then redacted from everything
// recorded.
func (d *TargetDecoder) SensitiveVar(e hcl.Expression, what string) string {
	tr, diags := hcl.AbsTraversalForExpr(e)
	var name string
	if !diags.HasErrors() && tr.RootName() == "var" && len(tr) == 2 {
		name, _ = stepName(tr[1])
	}
	v := d.l.varDecl[name]
	switch {
	case name == "" || v == nil:
		d.l.checkExpr(e, "target attribute", []string{"var"}, nil)
		d.Errorf(e.Range().Ptr(), "Sensitive variable required", "%s must be a variable declared with sensitive = true, written var.NAME, so its value is never printed or recorded: variable \"%s\" { sensitive = true } and --var %s=… or the environment variable %s%s.", what, what, what, EnvVarPrefix, what)
		return ""
	case !v.Sensitive:
		d.Errorf(e.Range().Ptr(), "Sensitive variable required", "%s is a credential, so var.%s must be declared sensitive: add sensitive = true to variable %q (its value is then redacted from results, reports and diagnostics).", what, name, name)
		return ""
	}
	return name
}

// PerCase records expressions evaluated per case; nil ones are skipped.
// The load checks the names they use (var, case, slot) at its end.
func (d *TargetDecoder) PerCase(es ...hcl.Expression) {
	for _, e := range es {
		if e != nil {
			d.Target.PerCase = append(d.Target.PerCase, e)
		}
	}
}

// AfterCall records expressions evaluated on a call's answer; the load
// checks the names they use (var, case, slot, response) at its end.
func (d *TargetDecoder) AfterCall(es ...hcl.Expression) {
	for _, e := range es {
		if e != nil {
			d.Target.AfterCall = append(d.Target.AfterCall, e)
		}
	}
}

// Path resolves p against the directory of the file declaring the target.
func (d *TargetDecoder) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(d.Target.DeclRange.Filename), p)
}

// EvalNow runs eval, the evaluation a kind makes once when its caller is
// made (the expressions es, which use only var: a URL, static headers, a
// model), when the suite loads, in the context run gives it (the
// variables' values and the functions), and reports its diagnostics: so
// validate finds what run would (tonumber("abc") in a header). It does
// nothing when an expression uses a variable that has no value (already
// an error). Diagnostics are redacted like every other of the load.
func (d *TargetDecoder) EvalNow(eval func(*hcl.EvalContext) hcl.Diagnostics, es ...hcl.Expression) {
	for _, e := range es {
		if e == nil {
			continue
		}
		for _, tr := range e.Variables() {
			if tr.RootName() != "var" {
				return // per case: evaluated for each case at run time
			}
			if len(tr) > 1 {
				if name, ok := stepName(tr[1]); ok && d.l.unset[name] {
					return
				}
			}
		}
	}
	d.l.diags = append(d.l.diags, eval(d.l.staticCtx())...)
}

// File reads the path attribute name as String does, resolves it as Path
// does and checks it under the suite's file rules (FileAccess), so
// validate refuses what the call would read: a path outside the suite
// directory (without --allow-outside), not a regular file (a FIFO, a
// device) or over limit bytes, and one that does not exist when
// mustExist. The problem is a diagnostic "Cannot read WHAT" at the
// attribute. Read the file with Suite().Access.Open or Read, which apply
// the same rules.
func (d *TargetDecoder) File(attrs hcl.Attributes, name, what string, limit int64, mustExist bool) string {
	p := d.Path(d.String(attrs, name, ""))
	if a, ok := attrs[name]; ok && p != "" {
		d.l.checkPath(a.Expr.Range(), what, p, limit, mustExist)
	}
	return p
}

// RetryOnValues are the conditions a target's retry_on may name.
var RetryOnValues = []string{"timeout", "reset", "429", "5xx", "500", "502", "503", "504"}

var targetAttrs = []hcl.AttributeSchema{
	{Name: "timeout"}, {Name: "concurrency"}, {Name: "rate"}, {Name: "retries"},
	{Name: "retry_on"}, {Name: "max_response_bytes"}, {Name: "error_budget"},
}

// targetSchema is a target block's schema: the shared attributes and one
// block per known kind. Loaded without kinds, any block is taken for a kind
// block and left undecoded.
func (l *loader) targetSchema(b *hcl.Block) *hcl.BodySchema {
	s := &hcl.BodySchema{Attributes: targetAttrs, Blocks: []hcl.BlockHeaderSchema{{Type: judgeBlock}, {Type: simulatorBlock}}}
	if l.opts.TargetKinds != nil {
		for _, k := range l.opts.TargetKinds {
			s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: k.Name()})
		}
		return s
	}
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		for _, kb := range sb.Blocks {
			if !slices.ContainsFunc(s.Blocks, func(h hcl.BlockHeaderSchema) bool { return h.Type == kb.Type }) {
				s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: kb.Type})
			}
		}
	}
	return s
}

// uniqueTargetKinds refuses two target kinds of one name.
func uniqueTargetKinds(kinds []TargetKind) error {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k.Name()] {
			return fmt.Errorf("target kind %q is given twice", k.Name())
		}
		seen[k.Name()] = true
	}
	return nil
}

// kindList lists the known kinds for a message: http { … }, rasa { … } or demo { … }.
func (l *loader) kindList() string {
	var names []string
	for _, k := range l.opts.TargetKinds {
		names = append(names, k.Name()+" { … }")
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func (l *loader) decodeTarget(b *hcl.Block) {
	c, diags := b.Body.Content(l.targetSchema(b))
	l.diags = append(l.diags, diags...)
	l.checkLabel(b)
	t := &Target{
		Name:        label(b),
		DeclRange:   b.DefRange,
		Timeout:     l.duration(c.Attributes, "timeout", 10*time.Second),
		Concurrency: l.integer(c.Attributes, "concurrency", 4, 1),
		Rate:        l.number(c.Attributes, "rate", 0, 0, math.MaxFloat64),
		Retries:     l.integer(c.Attributes, "retries", 0, 0),
		RetryOn:     l.strList(c.Attributes, "retry_on"),
		ErrorBudget: l.number(c.Attributes, "error_budget", 0, 0, 1),
	}
	t.MaxResponseBytes = int64(l.integer(c.Attributes, "max_response_bytes", 10<<20, 1))
	for _, r := range t.RetryOn {
		if !slices.Contains(RetryOnValues, r) {
			l.errorf(c.Attributes["retry_on"].Expr.Range().Ptr(), "Unknown retry condition", "retry_on may name %s; %q is none of them.%s", quoteList(RetryOnValues), r, didYouMean(r, RetryOnValues))
		}
	}
	kinds := l.decodeTargetJudge(t, c.Blocks)
	if len(kinds) != 1 {
		rng := b.DefRange
		if len(kinds) > 1 {
			rng = kinds[1].DefRange
		}
		l.errorf(&rng, "Target kind required", "A target has exactly one kind block: %s.", l.kindList())
		l.markBroken("target", t.Name)
		return
	}
	kb := kinds[0]
	t.Kind, t.Body, t.KindRange = kb.Type, kb.Body, kb.DefRange
	for _, k := range l.opts.TargetKinds {
		if k.Name() == kb.Type {
			cfg, ok := k.Decode(&TargetDecoder{Decoder: &Decoder{l: l}, Target: t, Block: kb})
			if !ok {
				l.markBroken("target", t.Name) // references to it are not unknown
				return
			}
			t.Config, t.Decoded = cfg, k
		}
	}
	l.suite.Targets = append(l.suite.Targets, t)
}

// decodeTargetJudge reads the target's judge block, if any, into t.Judge
// and returns the other blocks (its kind blocks).
func (l *loader) decodeTargetJudge(t *Target, blocks hcl.Blocks) hcl.Blocks {
	var kinds hcl.Blocks
	for _, jb := range blocks {
		if jb.Type == simulatorBlock {
			l.decodeTargetSimulator(t, jb)
			continue
		}
		if jb.Type != judgeBlock {
			kinds = append(kinds, jb)
			continue
		}
		if t.Judge != nil {
			l.errorf(jb.DefRange.Ptr(), "Duplicate judge block", "A target has at most one judge block; the first is at %s.", t.Judge.DeclRange)
			continue
		}
		jc, diags := jb.Body.Content(judgeSchema)
		l.diags = append(l.diags, diags...)
		t.Judge = &TargetJudge{DeclRange: jb.DefRange}
		if a, ok := jc.Attributes["verdict"]; ok {
			t.Judge.Verdict = a.Expr
		}
	}
	return kinds
}

// decodeTargetSimulator reads the target's simulator block into
// t.Simulator.
func (l *loader) decodeTargetSimulator(t *Target, b *hcl.Block) {
	if t.Simulator != nil {
		l.errorf(b.DefRange.Ptr(), "Duplicate simulator block", "A target has at most one simulator block; the first is at %s.", t.Simulator.DeclRange)
		return
	}
	c, diags := b.Body.Content(simulatorSchema)
	l.diags = append(l.diags, diags...)
	t.Simulator = &TargetSimulator{DeclRange: b.DefRange, System: l.str(c.Attributes, "system", SimulatorSystemPrompt), Persona: l.str(c.Attributes, "persona", ""),
		MaxTokens: l.integer(c.Attributes, "max_tokens", DefaultSimulatorMaxTokens, 0)}
}
