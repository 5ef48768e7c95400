package assert

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
)

// Evaluator checks results against a suite's expectations and conditions.
// It is safe for concurrent use: the runner calls it from every worker.
type Evaluator struct {
	suite *spec.Suite
	// sources holds what the evaluator needs of each case source.
	sources map[sourceKey]*sourceChecks
	// paths caches compiled JSONPaths by their text (expectations of saved
	// results are compiled once, not per case).
	paths sync.Map
	// dims is set when the suite's schema declares dimensions.
	dims *dimIndex
	// docs pools parsed responses; walkers the path tries of dimension
	// analysis.
	docs, walkers sync.Pool
	// prefixes numbers the prefixes of simple paths ($.data, $.data[0],
	// …) as they are compiled, so paths that share steps are seen to by
	// comparing numbers (see response.lookup).
	prefixMu sync.Mutex
	prefixes map[string]uint32
	// stateless are the suite's targets that record no dialogue state
	// (spec.Target.State false): their results skip state checks.
	stateless map[string]bool
}

// NewEvaluator prepares an evaluator for s.
func NewEvaluator(s *spec.Suite) *Evaluator {
	e := &Evaluator{suite: s, sources: make(map[sourceKey]*sourceChecks, len(s.CaseSources)), stateless: map[string]bool{}}
	for _, t := range s.Targets {
		if !t.State {
			e.stateless[t.Name] = true
		}
	}
	e.docs.New = func() any { return &jsondoc.Doc{} }
	if s.Schema != nil && len(s.Schema.Dimensions) > 0 {
		e.dims = newDimIndex(s.Schema)
		e.walkers.New = func() any { return newWalker(e.dims) }
	}
	for _, src := range s.CaseSources {
		info := src.Info()
		sc := &sourceChecks{file: src.DeclRange().Filename, asserts: info.Asserts, turnAsserts: info.TurnAsserts, judge: info.Judge, where: map[string]hcl.Range{}, expect: make([]*compiled, len(info.Expect)),
			minimums: info.TextMinimums, reply: info.Reply, captures: info.CaptureFailures, tools: info.Tools, scriptTools: info.ScriptTools}
		if len(info.Rubrics) > 0 || len(info.TurnRubrics) > 0 {
			sc.rubrics = info
		}
		if info.Success != nil {
			sc.scenario = info
		}
		for i, x := range info.Expect {
			sc.where[x.Path] = x.Range
			c := e.compileKey(tools.CheckKey{X: x.Expr, State: x.State, Tool: x.Tool, Final: x.Final})
			c.text = x.Path
			sc.expect[i] = &c
			e.paths.Store(x.Path, sc.expect[i])
		}
		e.sources[sourceKey{src.Kind(), src.Name()}] = sc
	}
	return e
}

// sourceKey identifies a case source: its kind and name.
type sourceKey struct{ kind, name string }

// sourceChecks is what evaluating a case of one source needs.
type sourceChecks struct {
	// file is the suite file declaring the source, for failure reports.
	file string
	// expect holds the source's compiled expectations in order: a case
	// built from the source has the same paths, found without a lookup by
	// text.
	expect []*compiled
	// where locates expectations for failure reports: path → range.
	where   map[string]hcl.Range
	asserts []*spec.Assert
	// turnAsserts, for a conversation, are the asserts of each turn.
	turnAsserts [][]*spec.Assert
	// judge, for a memory source, judges its question turns' answers.
	judge func(r *schema.Result, reply string) (verdict, detail string)
	// minimums are the source's per-case text minimums (min_f1 …).
	minimums []spec.TextMinimum
	// reply gives a case's reply checks (nil: the source has none).
	reply func(*schema.Case) *reply.Check
	// captures gives the failures of a turn's captures that selected
	// nothing (nil: the source captures nothing).
	captures func(*schema.Result) []schema.Failure
	// rubrics is the source's info when it has rubric blocks.
	rubrics *spec.SourceInfo
	// scenario is a scenario source's info (nil for other sources): its
	// success is checked on the turn that ends a scenario.
	scenario *spec.SourceInfo
	// tools gives a case's tools block (nil: the source has none);
	// scriptTools is the conversation's or scenario's own.
	tools       func(*schema.Case) *tools.Checks
	scriptTools *tools.Checks
}

// sourceOf returns the checks of r's source, nil when the suite no longer
// declares it.
func (e *Evaluator) sourceOf(r *schema.Result) *sourceChecks {
	kind, name := r.SourceOf()
	return e.sources[sourceKey{kind, name}]
}

// pathMode says how a path is evaluated: on the parsed tape directly
// (simple paths of names and indices, and those with wildcards and
// equality filters too) or on the response built as Go values (other
// filters, descent, unions, slices).
type pathMode uint8

const (
	modeSimple pathMode = iota // $ then .name and [n] steps
	modeTape                   // simple steps and wildcards
	modeTree                   // anything else
	// modeFilter: simple steps, wildcards and equality filters
	// (tapeFilters); set by compile, never by modeOf.
	modeFilter
)

func modeOf(x jp.Expr) pathMode {
	m := modeSimple
	for i, f := range x {
		switch f.(type) {
		case jp.Root:
			if i > 0 {
				return modeTree
			}
		case jp.Bracket, jp.Child, jp.Nth:
		case jp.Wildcard:
			m = modeTape
		default:
			return modeTree
		}
	}
	if len(x) == 0 {
		return modeTree
	}
	if _, ok := x[0].(jp.Root); !ok {
		return modeTree
	}
	return m
}

type compiled struct {
	text  string // the path as the expectation spells it
	x     jp.Expr
	multi bool
	mode  pathMode
	// canon is the path's canonical text, as response leaves print.
	canon string
	// dim is the index of the schema dimension the path belongs to, or -1.
	dim int
	// item locates an items dimension's expectation: the item's path and
	// the key under it (set only when the path is the item's direct key).
	item     bool
	itemPath string
	itemKey  string
	// state: the path addresses the result's dialogue state ("state:$…"),
	// never a schema dimension; tool, a tools block's args entry, names
	// the tool whose arguments it reads ("tool:NAME:$…"); final, a
	// final_state entry, reads the final state ("final:$…").
	state bool
	tool  string
	final bool
	// collection is set for a path that is an items dimension's
	// collection ($.entities): the expected items as a multiset; whole
	// when that dimension has no keys (items compared whole: words).
	collection, whole bool
	// eqs, for modeFilter, is the equality filter of each step (nil for
	// other steps).
	eqs []*eqFilter
	// at, for modeSimple, holds for each name step the position in its
	// object of the member found there last (responses of one shape list
	// their members in the same order): tried first, before comparing
	// the keys from the first member on. Shared by every goroutine that
	// evaluates, hence atomic.
	at []atomic.Uint32
	// prefix, for modeSimple, numbers each prefix of the path: two simple
	// paths share their first j+1 steps when prefix[j] is the same.
	prefix []uint32
}

func (e *Evaluator) compile(x jp.Expr) compiled {
	c := compiled{x: x, multi: multiNode(x), mode: modeOf(x), canon: x.String(), dim: -1}
	if c.mode == modeSimple {
		c.at = make([]atomic.Uint32, len(x))
		c.prefix = e.numberPrefixes(x)
	}
	if c.mode == modeTree {
		if eqs, ok := tapeFilters(x); ok {
			c.mode, c.eqs = modeFilter, eqs
		}
	}
	if e.dims == nil {
		return c
	}
	dim := e.dims.of(c.canon, x)
	if dim == nil {
		if cd := e.suite.Schema.CollectionOf(x); cd != nil {
			c.dim, c.collection, c.whole = e.dims.index[cd], true, len(cd.Keys) == 0
		}
		return c
	}
	c.dim = e.dims.index[dim]
	if dim.Kind == schema.KindItems && dim.Items != nil && !c.multi {
		n, ok := jsonpath.MatchPrefix(dim.Items.Expr, x)
		if !ok || n >= len(x) {
			return c
		}
		key, ok := x[n].(jp.Child)
		if !ok {
			return c
		}
		c.item, c.itemPath = true, x[:n].String()
		if n == len(x)-1 {
			c.itemKey = string(key)
		}
	}
	return c
}

// numberPrefixes returns the number of each prefix of x (see
// compiled.prefix).
func (e *Evaluator) numberPrefixes(x jp.Expr) []uint32 {
	e.prefixMu.Lock()
	defer e.prefixMu.Unlock()
	if e.prefixes == nil {
		e.prefixes = map[string]uint32{}
	}
	ids := make([]uint32, len(x))
	var key []byte // each step spelled unambiguously: its type, then its name or index
	for j, f := range x {
		switch t := f.(type) {
		case jp.Child:
			key = strconv.AppendQuote(append(key, 'c'), string(t))
		case jp.Nth:
			key = strconv.AppendInt(append(key, 'n'), int64(t), 10)
		default:
			key = append(key, 'o') // the root, brackets: no value of their own
			key = append(key, fmt.Sprintf("%T;", f)...)
		}
		p := string(key)
		id, ok := e.prefixes[p]
		if !ok {
			id = uint32(len(e.prefixes))
			e.prefixes[p] = id
		}
		ids[j] = id
	}
	return ids
}

// path returns the compiled form of expectation i of a case of source sc
// (nil when unknown), whose path is p.
func (e *Evaluator) path(sc *sourceChecks, i int, p string) (*compiled, error) {
	if sc != nil && i < len(sc.expect) && sc.expect[i].text == p {
		return sc.expect[i], nil
	}
	if c, ok := e.paths.Load(p); ok {
		return c.(*compiled), nil
	}
	k, err := spec.CompileCheckKey(p)
	if err != nil {
		return nil, err
	}
	c := e.compileKey(k)
	c.text = p
	e.paths.Store(p, &c)
	return &c, nil
}

var nullJSON = []byte("null")

// response is one parsed response: the tape, and the Go values built from
// it on first need (paths the tape does not evaluate).
type response struct {
	doc   *jsondoc.Doc
	tree  any
	built bool
	// state is the result's dialogue state as Go values, read on the
	// first "state:" expectation (stateRead); stateErr when it is not JSON.
	state     any
	stateRead bool
	stateErr  error
	// last is the prefix numbers of the simple path looked up last, and
	// refs the values of its first steps steps: the expectations of a
	// case share most of their steps ($.data[0].content.…), which are
	// then followed once.
	last  []uint32
	steps int
	refs  [16]jsondoc.Ref
	// found holds what refsOf found last, in foundBuf while it fits.
	found    []jsondoc.Ref
	foundBuf [4]jsondoc.Ref
}

// lookup is lookup(rs.doc, c.x) for a simple path (modeSimple),
// following only the steps after those it shares with the path looked up
// before, and trying each name at the member position c.at remembers.
func (rs *response) lookup(c *compiled) (jsondoc.Ref, bool) {
	x, ids := c.x, c.prefix
	n := 0
	for n < rs.steps && n < len(ids) && ids[n] == rs.last[n] {
		n++
	}
	r := rs.doc.Root()
	if n > 0 {
		r = rs.refs[n-1]
	}
	rs.last, rs.steps = ids, n
	for j := n; j < len(x); j++ {
		ok := true
		switch t := x[j].(type) {
		case jp.Child:
			r, ok = getAt(rs.doc, r, string(t), &c.at[j])
		case jp.Nth:
			r, ok = rs.doc.Index(r, int(t))
		}
		if !ok {
			return 0, false
		}
		if j < len(rs.refs) {
			rs.refs[j], rs.steps = r, j+1
		}
	}
	return r, true
}

// getAt is d.Get(r, key) that tries the member at position *at first,
// and remembers in *at where it found the key when that was elsewhere.
func getAt(d *jsondoc.Doc, r jsondoc.Ref, key string, at *atomic.Uint32) (jsondoc.Ref, bool) {
	if d.Kind(r) != jsondoc.Object || d.RepeatsKeys(r) {
		return d.Get(r, key) // a repeated key counts at its last occurrence
	}
	n := d.Len(r)
	h := int(at.Load())
	k := r + 1
	if h < n {
		for range h {
			k = d.Next(k + 1)
		}
		if sameKey(d, k, key) {
			return k + 1, true
		}
		k = r + 1
	}
	for i := range n {
		if sameKey(d, k, key) {
			at.Store(uint32(i))
			return k + 1, true
		}
		k = d.Next(k + 1)
	}
	return 0, false
}

// sameKey is d.EqualString(k, key), inlined for keys without escapes.
func sameKey(d *jsondoc.Doc, k jsondoc.Ref, key string) bool {
	if d.Plain(k) {
		return string(d.StrBytes(k)) == key
	}
	return d.EqualString(k, key)
}

func (rs *response) value() any {
	if !rs.built {
		rs.tree, rs.built = rs.doc.Value(rs.doc.Root()), true
	}
	return rs.tree
}

// find returns the values x selects, as matches does: one value for a
// single-node path, the list of matches in document and key order for the
// others. (Evaluate compares simple paths in place instead, and a path on
// the tape — wildcards, equality filters — in place when it meets the
// expectation, so for those find builds values only to report a failure.)
func (rs *response) find(c *compiled) ([]any, bool) {
	switch c.mode {
	case modeTape, modeFilter:
		refs := rs.refsOf(c)
		if len(refs) == 0 {
			return nil, false
		}
		out := make([]any, len(refs))
		for i, r := range refs {
			out[i] = rs.doc.Value(r)
		}
		return out, true
	}
	return matches(c.x, rs.value(), c.multi)
}

// Evaluate sets r.Outcome and r.Failures. A result whose call failed stays
// an error; a response that is not JSON becomes one. It returns what the
// collector needs of the case beyond its outcome (nil when the suite's
// schema declares no dimensions, or the result is an error).
func (e *Evaluator) Evaluate(r *schema.Result) *Evaluation {
	return e.EvaluateParsed(r, nil)
}

// EvaluateParsed is Evaluate of a result whose response the caller has
// already parsed: doc, when not nil, is r.Response parsed (eval's replay
// builds the tape while it decodes the record, so the response is read
// once). The evaluation keeps no reference to doc once it returns. A nil
// doc is Evaluate.
func (e *Evaluator) EvaluateParsed(r *schema.Result, doc *jsondoc.Doc) *Evaluation {
	r.Failures, r.Verdict, r.StateChecksSkipped = nil, "", 0
	if r.Error != nil {
		r.Outcome = schema.Error
		if r.Fact != "" {
			r.Verdict = schema.Unanswered
		}
		return nil
	}
	if doc == nil {
		doc = e.docs.Get().(*jsondoc.Doc)
		defer e.docs.Put(doc)
		src := []byte(r.Response)
		if len(src) == 0 {
			src = nullJSON
		}
		if err := doc.Parse(src); err != nil {
			r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: fmt.Sprintf("response is not JSON: %v", err)}
			r.Outcome = schema.Error
			return nil
		}
	}
	rs := &response{doc: doc}
	sc := e.sourceOf(r)
	var w *walker // the dimension analysis's, which notes each expectation's path and outcome
	if e.dims != nil {
		w = e.walkers.Get().(*walker)
		defer e.walkers.Put(w)
		w.a.met, w.a.paths = grow(w.a.met, len(r.Expect)), grow(w.a.paths, len(r.Expect))
	}
	for i := range r.Expect {
		ok, c := e.expectation(r, rs, sc, i)
		if w != nil {
			w.a.met[i], w.a.paths[i] = ok, c
		}
	}
	e.textMinimums(r, sc)
	e.replyChecks(r, sc)
	e.toolChecks(r, sc)
	if sc != nil && sc.captures != nil {
		e.captureFailures(r, sc.captures(r))
	}
	var ev *Evaluation
	if e.dims != nil {
		ev = e.analyse(r, rs, w)
		e.confidences(ev, r, rs)
	}
	e.conditions(r, sc)
	if sc != nil && sc.judge != nil && r.Fact != "" {
		judgeAnswer(r, sc.judge)
	}
	if len(r.Rubrics) > 0 || (sc != nil && sc.rubrics != nil) {
		e.rubrics(r, sc)
	}
	if sc != nil && sc.scenario != nil {
		scenarioOutcome(r, sc.scenario)
	}
	if len(r.Failures) > 0 {
		r.Outcome = schema.Fail
	} else {
		r.Outcome = schema.Pass
	}
	return ev
}

// expectation checks r.Expect[i] against the response; when it is not met
// it adds the failure to r.Failures and returns false. It returns the
// path's compiled form too (nil when the path does not compile). The failure is
// built only then: a met expectation costs no lookup of its line.
func (e *Evaluator) expectation(r *schema.Result, rs *response, sc *sourceChecks, i int) (bool, *compiled) {
	x := &r.Expect[i]
	c, err := e.path(sc, i, x.Path)
	if err != nil {
		f := e.failure(sc, x, -1)
		f.Message = fmt.Sprintf("invalid JSONPath: %v", err)
		r.Failures = append(r.Failures, f)
		return false, nil
	}
	if c.tool != "" || c.final {
		return true, c // checked with the calls and the final state (tools.go)
	}
	if c.state {
		if e.skipState(r) {
			r.StateChecksSkipped++
			return true, c
		}
		return stateExpectation(r, rs, c, x.Value, e.failure(sc, x, -1)), c
	}
	if c.listsItems(x.Value) {
		return e.collectionExpectation(r, rs, c, x.Value, e.failure(sc, x, c.dim)), c
	}
	if x.Value == nil && e.fallbackExpected(c, rs) {
		return true, c // null on a label path: no prediction (labelconf.go)
	}
	if c.mode == modeSimple {
		// The common case compares in place, building nothing.
		ref, found := rs.lookup(c)
		if found && equalDoc(x.Value, rs.doc, ref) {
			return true, c
		}
		f := e.failure(sc, x, c.dim)
		if found {
			f.Actual = rs.doc.Value(ref)
		} else {
			f.Missing = true
		}
		r.Failures = append(r.Failures, f)
		return false, c
	}
	if (c.mode == modeTape || c.mode == modeFilter) && equalRefs(x.Value, rs.doc, rs.refsOf(c)) {
		return true, c // compared in place; a failure builds the values below
	}
	got, found := rs.find(c)
	if !found {
		f := e.failure(sc, x, c.dim)
		f.Missing = true
		r.Failures = append(r.Failures, f)
		return false, c
	}
	var actual any = got[0]
	if c.multi {
		actual = got
	}
	if Equal(x.Value, actual) {
		return true, c
	}
	f := e.failure(sc, x, c.dim)
	f.Actual = actual
	r.Failures = append(r.Failures, f)
	return false, c
}

// failure is the failure of expectation x of a case of source sc (nil when
// unknown), in dimension dim (-1 for none), before its finding.
func (e *Evaluator) failure(sc *sourceChecks, x *schema.Expectation, dim int) schema.Failure {
	f := schema.Failure{Kind: "expect", Path: x.Path, Expected: x.Value}
	if sc != nil {
		f.File = sc.file
		if rng, ok := sc.where[x.Path]; ok {
			f.Line = rng.Start.Line
		}
	}
	if dim >= 0 {
		f.Dimension = e.suite.Schema.Dimensions[dim].Name
	}
	return f
}

// conditions evaluates the assert blocks of the case's source and of the
// suite.
func (e *Evaluator) conditions(r *schema.Result, sc *sourceChecks) {
	var asserts []*spec.Assert
	if sc != nil {
		asserts = sc.asserts
		if sc.turnAsserts != nil {
			asserts = nil
			if r.Turn >= 1 && r.Turn <= len(sc.turnAsserts) {
				asserts = sc.turnAsserts[r.Turn-1]
			}
		}
	}
	if len(asserts)+len(e.suite.Asserts) == 0 {
		return
	}
	ctx := e.conditionContext(r)
	for _, a := range asserts {
		e.condition(r, a, ctx)
	}
	for _, a := range e.suite.Asserts {
		e.condition(r, a, ctx)
	}
}

// conditionContext is the context of assert conditions: var, case, slot,
// response, http and latency_ms.
func (e *Evaluator) conditionContext(r *schema.Result) *hcl.EvalContext {
	ctx := e.suite.CheckContext(&r.Case)
	resp := cty.NullVal(cty.DynamicPseudoType)
	if len(r.Response) > 0 {
		if v, err := spec.JSONToCty(r.Response); err == nil {
			resp = v
		}
	}
	hdrs := map[string]cty.Value{}
	for k, v := range r.Headers {
		hdrs[strings.ToLower(k)] = cty.StringVal(v)
	}
	ctx.Variables["response"] = resp
	ctx.Variables["http"] = cty.ObjectVal(map[string]cty.Value{
		"status":  cty.NumberIntVal(int64(r.Status)),
		"headers": headerMap(hdrs),
	})
	ctx.Variables["latency_ms"] = cty.NumberFloatVal(r.LatencyMS)
	ctx.Variables["reply"] = cty.StringVal(r.Reply)
	ctx.Variables["state"] = stateValue(r)
	return ctx
}

func headerMap(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	return cty.MapVal(m)
}

// condition evaluates one assert block. A condition that cannot be
// evaluated (a field the response lacks, say) is a failure of the case: the
// service answered, but not with what the suite relies on.
func (e *Evaluator) condition(r *schema.Result, a *spec.Assert, ctx *hcl.EvalContext) {
	if e.skipState(r) && readsState(a.Condition) {
		r.StateChecksSkipped++
		return
	}
	f := schema.Failure{Kind: "assert", Dimension: a.Dimension, File: a.DeclRange.Filename, Line: a.DeclRange.Start.Line}
	v, diags := a.Condition.Value(ctx)
	v = spec.Unmark(v)
	src := exprSource(e.suite, a.Condition)
	switch {
	case diags.HasErrors() && readsState(a.Condition) && stateMissing(r) != "":
		f.Message = fmt.Sprintf("%s reads state, but %s", src, stateMissing(r))
	case diags.HasErrors():
		f.Message = fmt.Sprintf("%s could not be evaluated: %s", src, diagSummary(diags))
		if m := e.suite.MissingCapture(&r.Case, diags); m != "" {
			f.Message = fmt.Sprintf("%s could not be evaluated: %s", src, m)
		}
	case !v.IsKnown() || v.IsNull():
		f.Message = fmt.Sprintf("%s has no value", src)
	case v.Type() != cty.Bool:
		f.Message = fmt.Sprintf("%s is %s, not true or false", src, v.Type().FriendlyName())
	case v.True():
		return
	default:
		msg := a.Message
		if msg == "" {
			msg = "condition is false"
		}
		f.Message = fmt.Sprintf("%s: %s%s", msg, src, usedValues(a.Condition, ctx))
	}
	// A message built from a diagnostic or a value may quote a secret.
	f.Message = e.suite.Redactor().String(f.Message)
	r.Failures = append(r.Failures, f)
}

func diagSummary(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			parts = append(parts, strings.TrimSuffix(d.Detail, "."))
		}
	}
	return strings.Join(parts, "; ")
}

// exprSource returns the source text of an expression.
func exprSource(s *spec.Suite, e hcl.Expression) string {
	r := e.Range()
	src := s.Sources[r.Filename]
	if src == nil || r.End.Byte > len(src) || r.Start.Byte >= r.End.Byte {
		return "condition"
	}
	return string(src[r.Start.Byte:r.End.Byte])
}

// usedValues renders " (with response.intent.name = "x", …)" for the names
// a condition used, so a failure explains itself.
func usedValues(e hcl.Expression, ctx *hcl.EvalContext) string {
	seen := map[string]bool{}
	var parts []string
	for _, tr := range e.Variables() {
		name := address(tr)
		if seen[name] || tr.RootName() == "var" {
			continue
		}
		seen[name] = true
		v, diags := tr.TraverseAbs(ctx)
		if diags.HasErrors() {
			parts = append(parts, name+" is missing")
			continue
		}
		parts = append(parts, name+" = "+ShowValue(v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return " (with " + strings.Join(parts, ", ") + ")"
}

// ShowValue renders a cty value briefly for messages.
func ShowValue(v cty.Value) string {
	if !v.IsKnown() {
		return "(unknown)"
	}
	if v.IsNull() {
		return "null"
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case ty == cty.Number:
		return v.AsBigFloat().Text('g', 10)
	case ty == cty.Bool:
		return fmt.Sprintf("%t", v.True())
	}
	if b, err := ctyJSON(v); err == nil {
		if len(b) > 200 {
			return string(b[:200]) + "…"
		}
		return string(b)
	}
	return ty.FriendlyName()
}

// judgeAnswer sets the verdict of a memory question turn; an answer that
// is not entailed is a failure naming the verdict, the fact, the question,
// the answer and, for a judge target, what the judge said.
func judgeAnswer(r *schema.Result, judge func(r *schema.Result, reply string) (string, string)) {
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	v, detail := judge(r, reply)
	if v == "" {
		return
	}
	r.Verdict = v
	if v != schema.Entailed {
		msg := fmt.Sprintf("%s: fact %q, question %q, answer %q", v, r.Fact, r.Text, reply)
		if detail != "" {
			msg += " (" + detail + ")"
		}
		r.Failures = append(r.Failures, schema.Failure{Kind: "memory", Expected: r.Expected, Actual: reply, Message: msg})
	}
}

// scenarioOutcome fails the turn that ends a scenario (the turn stamped
// with its script's turn count) when the scenario's success condition
// does not hold on it: the simulator stops as soon as it holds, so a
// scenario that succeeded ends on a turn where it does. The failure says
// how many turns ran and what the simulated user last did.
func scenarioOutcome(r *schema.Result, info *spec.SourceInfo) {
	if r.Turn < 1 || r.Turn != r.ScriptTurns || info.Success(r) {
		return
	}
	why := "the simulated user stopped"
	if r.Simulator != nil && strings.Contains(r.Simulator.Reply, spec.StopWord) {
		why = "the simulated user answered the stop word " + spec.StopWord
	}
	if r.Turn >= info.MaxTurns {
		why = fmt.Sprintf("stuck: max_turns %d reached", info.MaxTurns)
	}
	if r.Reason != "" {
		why += fmt.Sprintf("; the last user turn %s", r.Reason)
	}
	r.Failures = append(r.Failures, schema.Failure{Kind: "scenario", File: info.SuccessRange.Filename, Line: info.SuccessRange.Start.Line,
		Message: fmt.Sprintf("did not succeed in %d turns (%s)", r.Turn, why)})
}
