package assert

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// nodeAcc accumulates one node of the metrics tree: one accumulator per
// family of the collector, in the descriptor's order (accs[0] counts
// outcomes); nil for a family that does not apply to the suite
// (Family.NewAcc).
type nodeAcc struct {
	accs []Acc
}

// newNode returns an empty node of c's families.
func (c *Collector) newNode() *nodeAcc {
	n := &nodeAcc{accs: make([]Acc, len(c.fams))}
	for i, f := range c.fams {
		n.accs[i] = f.NewAcc(c.suite)
	}
	return n
}

func (n *nodeAcc) add(o *Observation) {
	for _, a := range n.accs {
		if a != nil {
			a.Add(o)
		}
	}
}

// merge adds o's results to n.
func (n *nodeAcc) merge(o *nodeAcc) {
	for i, a := range n.accs {
		if a != nil {
			a.Merge(o.accs[i])
		}
	}
}

func (n *nodeAcc) counts() *counts { return n.accs[0].(*counts) }

func (n *nodeAcc) fill() *schema.Node {
	out := &schema.Node{}
	for _, a := range n.accs {
		if a != nil {
			a.Fill(out)
		}
	}
	return out
}

// node returns the node's figures with their intervals, addr being the
// node's canonical address (metrics, metrics.split["smoke"]).
func (c *Collector) node(n *nodeAcc, addr string) *schema.Node {
	out := n.fill()
	setIntervals(c.suite.Tree, StatisticsOf(c.suite), out, addr, n.accs)
	return out
}

// Collector accumulates the metrics tree, per-source groups and per-case
// outcomes over a run's results. It is fed one result at a time from a
// single goroutine.
type Collector struct {
	suite    *spec.Suite
	fams     Families
	root     *nodeAcc
	split    map[string]*nodeAcc
	level    map[string]*nodeAcc
	scene    map[string]*nodeAcc
	core     *nodeAcc
	noncore  *nodeAcc
	template map[string]*nodeAcc
	obs      Observation // the case being added, shared by its nodes
	// sources holds a node per case source of the other kinds: the keyed
	// map metrics.KIND their kind registers (schema.Tree.RegisterSourceKind).
	sources map[sourceKey]*nodeAcc
	groups  map[sourceKey]*sourceTally // per case source, unreviewed cases included
	// cells, cellKey and direct: see cell.
	cells    map[string]*cell
	cellKey  []byte
	direct   []int
	cases    caseList
	next     int64 // sequence number of the next result Add is given
	sceneKey []byte
	// srcOrder is each case source's index in the suite's CaseSources.
	srcOrder map[sourceKey]int
	eval     *Evaluator // made on first need (see Add)
	// MaxBody caps the response text kept for a failing case.
	MaxBody int
	// IncludeUnreviewed counts cases of unreviewed templates in the metrics
	// (and so in thresholds); by default they are reported apart only.
	IncludeUnreviewed bool
	unreviewed        int
	cached            int // results answered from the response cache
	// stateSkipped counts the state checks skipped (on stateSkippedTurns
	// results) because their target records no dialogue state.
	stateSkipped, stateSkippedTurns int
	// kept counts the passing and the non-passing cases listed; omitted
	// the ones beyond schema.MaxReportCases.
	keptPass, keptBad, omitted int
	// forks are the collectors forked from this one; progress is this
	// collector's entry among its parent's forks (nil for one not forked).
	forks    *forkGroup
	progress *forkProgress
	// units records each unit's contributions for paired comparisons
	// (RecordUnits); nil when not asked.
	units *unitRecorder
}

// NewCollector prepares a collector for suite s with the metric families
// fams, which must be those whose shapes s was loaded with
// (spec.Options.Families), in the same order: it panics otherwise, as that
// is a mistake in the program, not in the suite. Nil fams means this
// package's DefaultFamilies, in the order of s's tree (Ordered): a family
// of the tree defined elsewhere (assert/usage, a program's own) then gives
// no figures.
func NewCollector(s *spec.Suite, fams Families) *Collector {
	if fams == nil {
		fams = Ordered(s.Tree.Families, DefaultFamilies())
	}
	if got, want := fams.Shapes(), s.Tree.Families; !slices.Equal(got, want) {
		panic(fmt.Sprintf("assert: the collector's %d metric families are not the %d the suite was loaded with", len(got), len(want)))
	}
	c := &Collector{suite: s, fams: fams, split: map[string]*nodeAcc{}, level: map[string]*nodeAcc{}, scene: map[string]*nodeAcc{},
		template: map[string]*nodeAcc{}, sources: map[sourceKey]*nodeAcc{}, groups: map[sourceKey]*sourceTally{}, srcOrder: map[sourceKey]int{},
		cells: map[string]*cell{}, MaxBody: 4 << 10}
	for i, src := range s.CaseSources {
		c.srcOrder[sourceKey{src.Kind(), src.Name()}] = i
	}
	c.root, c.core, c.noncore = c.newNode(), c.newNode(), c.newNode()
	for i, a := range c.root.accs {
		if _, exact := a.(exactMerger); a != nil && !exact {
			c.direct = append(c.direct, i)
		}
	}
	return c
}

// sourceTally is what a collector counts of one case source: its
// outcomes, and its call time in whole nanoseconds, so that the sum does
// not depend on the order results arrive in.
type sourceTally struct {
	counts
	nanos int64
}

func (c *Collector) get(m map[string]*nodeAcc, k string) *nodeAcc {
	n := m[k]
	if n == nil {
		n = c.newNode()
		m[k] = n
	}
	return n
}

// Add records one evaluated result, the next in order after those added,
// with its evaluation (what Evaluator.Evaluate returned for it). The
// collector only reads ev: the caller releases it once every collector
// has it. A nil ev for a result that needs one (the suite's schema
// declares dimensions) is re-derived, so no metric is lost; passing the
// evaluation saves that work.
func (c *Collector) Add(r *schema.Result, ev *Evaluation) {
	c.AddAt(r, ev, c.next)
}

// AddAt records one evaluated result that is number seq in the run's order.
// Collectors forked from one collector and fed disjoint results with their
// sequence numbers merge into the same figures as one collector fed them
// all; the cap on listed cases keeps the lowest numbers. The collector
// keeps no reference to r's slot map or expectations: the caller may
// reuse them for its next result.
func (c *Collector) AddAt(r *schema.Result, ev *Evaluation, seq int64) {
	if ev == nil && c.needsEvaluation(r) {
		ev = c.evaluator().Analyse(r)
		defer ev.Release()
	}
	c.next = seq + 1
	kind, name := r.SourceOf()
	cl := c.cellOf(r, kind, name)
	c.addCase(r, seq, sourceKey{kind, name}, cl.src)
	clear(c.obs.memo)
	c.obs = Observation{Result: r, Eval: ev, Latency: metrics.NewSample(metrics.InputLength(r.Text), r.LatencyMS), memo: c.obs.memo[:0]}
	o := &c.obs
	cl.src.add(r.Outcome)
	if r.Cached {
		c.cached++
	}
	if r.StateChecksSkipped > 0 {
		c.stateSkipped += int(r.StateChecksSkipped)
		c.stateSkippedTurns++
	}
	if r.Unreviewed && !c.IncludeUnreviewed {
		c.unreviewed++
		return
	}
	if cl.nodes == nil {
		cl.nodes = c.nodesOf(r, kind, name)
	}
	cl.acc.add(o)
	for _, n := range cl.nodes {
		for _, i := range c.direct {
			n.accs[i].Add(o)
		}
	}
	if c.units != nil {
		c.units.add(o, kind, name)
	}
}

// RecordUnits makes the collector keep, for a paired comparison with
// another run recorded with the same pairing, each unit's contributions
// to the figures the comparison tests at the pairing's nodes (paired.go).
// Call it before the first result is added; forks record too.
func (c *Collector) RecordUnits(p *Pairing) {
	c.units = newUnitRecorder(c.suite, c.fams, p)
}

// Units returns what RecordUnits had the collector keep of the results
// added; nil when it was not asked to.
func (c *Collector) Units() *Units {
	if c.units == nil {
		return nil
	}
	return c.units.units()
}

// nodesOf returns the nodes a result of source kind/name counts in:
// root, its splits, its level, each prefix of its scene, core or noncore,
// and its source's node — made when new.
func (c *Collector) nodesOf(r *schema.Result, kind, name string) []*nodeAcc {
	nodes := []*nodeAcc{c.root}
	for _, sp := range r.Split {
		nodes = append(nodes, c.get(c.split, sp))
	}
	if r.Level != "" {
		nodes = append(nodes, c.get(c.level, r.Level))
	}
	c.sceneKey = c.sceneKey[:0]
	for i, part := range r.Scene {
		if i > 0 {
			c.sceneKey = append(c.sceneKey, '/')
		}
		c.sceneKey = append(c.sceneKey, part...)
		nodes = append(nodes, c.get(c.scene, string(c.sceneKey)))
	}
	if r.Core {
		nodes = append(nodes, c.core)
	} else {
		nodes = append(nodes, c.noncore)
	}
	if kind == schema.KindTemplate {
		return append(nodes, c.get(c.template, name))
	}
	key := sourceKey{kind, name}
	n := c.sources[key]
	if n == nil {
		n = c.newNode()
		c.sources[key] = n
	}
	return append(nodes, n)
}

// needsEvaluation reports whether r counts towards metrics that need its
// evaluation: the dimension metrics of a result that is not an error.
func (c *Collector) needsEvaluation(r *schema.Result) bool {
	sc := c.suite.Schema
	return sc != nil && len(sc.Dimensions) > 0 && r.Outcome != schema.Error
}

// evaluator is the evaluator that re-derives evaluations not given to Add.
func (c *Collector) evaluator() *Evaluator {
	if c.eval == nil {
		c.eval = NewEvaluator(c.suite)
	}
	return c.eval
}

// Unreviewed is the number of results kept out of the metrics because
// their template's expectations are unreviewed drafts.
func (c *Collector) Unreviewed() int { return c.unreviewed }

// Cached is the number of results answered from the response cache
// (--cache); their latencies are left out of the latency metrics.
func (c *Collector) Cached() int { return c.cached }

// StateChecksSkipped is the number of state checks skipped, and of the
// results they were skipped on, because the results' target records no
// dialogue state (Result.StateChecksSkipped).
func (c *Collector) StateChecksSkipped() (checks, results int) {
	return c.stateSkipped, c.stateSkippedTurns
}

// addCase keeps the per-case outcome for the report, up to
// schema.MaxReportCases passing and as many non-passing cases.
func (c *Collector) addCase(r *schema.Result, seq int64, key sourceKey, src *sourceTally) {
	if ms := r.LatencyMS; !math.IsNaN(ms) && !math.IsInf(ms, 0) {
		src.nanos += int64(math.Round(ms * 1e6))
	}
	kind, kept := 0, &c.keptPass
	if r.Outcome != schema.Pass {
		kind, kept = 1, &c.keptBad
	}
	if *kept >= schema.MaxReportCases || c.progress.listedBefore(kind, seq) >= schema.MaxReportCases {
		c.omitted++
		return
	}
	*kept++
	c.progress.kept(kind, seq)
	cr := schema.CaseReport{ID: r.ID, Template: r.Template, Scene: slices.Clip(r.Scene), Text: r.Text, Outcome: r.Outcome, LatencyMS: r.LatencyMS, Cached: r.Cached}
	if key.kind != schema.KindTemplate {
		cr.Source, cr.SourceKind = key.name, key.kind
	}
	if r.Outcome == schema.Fail || r.Outcome == schema.Error {
		cr.Error = r.Error
		cr.Failures = r.Failures
		cr.Request = r.Request
		// A copy: the caller may reuse r's slot map for its next result
		// (eval's replay does).
		cr.Slots = maps.Clone(r.Slots)
		cr.Response = c.keptBody(r)
	}
	if i, ok := c.srcOrder[key]; ok {
		rng := c.suite.CaseSources[i].DeclRange()
		cr.File, cr.Line = rng.Filename, rng.Start.Line
		if r.Turn > 0 {
			info := c.suite.CaseSources[i].Info()
			cr.Turns = info.Turns
			if r.Turn == 1 && info.Goal != nil {
				cr.Goal = info.Goal(&r.Case)
			}
		}
	}
	if r.Turn > 0 {
		c.keepTurn(&cr, r)
	}
	// A single case's repetition too (--repeat): the reports tell the
	// repetitions apart and JUnit joins them into one testcase.
	cr.Repeat = r.Repeat
	cr.Rubrics = reportedRubrics(r.Rubrics)
	c.cases.add(c.entry(seq, &cr, key))
}

// reportedRubrics are a result's rubric verdicts as a report lists them:
// without the judge calls, and without judgements of rubrics the suite no
// longer has.
func reportedRubrics(rs []schema.RubricVerdict) []schema.RubricVerdict {
	var out []schema.RubricVerdict
	for _, v := range rs {
		if v.Verdict != "" {
			v.Judge = nil
			out = append(out, v)
		}
	}
	return out
}

// Next is the sequence number after the last result added: where results
// added with AddAt continue the order.
func (c *Collector) Next() int64 { return c.next }

// Fork returns an empty collector with c's settings, to be fed part of
// the results and merged back with Merge. The forks of c are fed disjoint
// results and all merged back: each stops listing cases of a kind once the
// forks together listed the report's cap of them before it (forkGroup).
func (c *Collector) Fork() *Collector {
	f := NewCollector(c.suite, c.fams)
	f.MaxBody, f.IncludeUnreviewed = c.MaxBody, c.IncludeUnreviewed
	if c.forks == nil {
		c.forks = &forkGroup{}
	}
	f.progress = c.forks.add()
	if c.units != nil {
		f.units = c.units.fork()
	}
	return f
}

// Merge adds the results o collected to c.
func (c *Collector) Merge(o *Collector) {
	c.flush()
	o.flush()
	c.root.merge(o.root)
	c.core.merge(o.core)
	c.noncore.merge(o.noncore)
	for k, n := range o.sources {
		cn := c.sources[k]
		if cn == nil {
			cn = c.newNode()
			c.sources[k] = cn
		}
		cn.merge(n)
	}
	for _, m := range []struct{ dst, src map[string]*nodeAcc }{{c.split, o.split}, {c.level, o.level}, {c.scene, o.scene}, {c.template, o.template}} {
		for k, n := range m.src {
			c.get(m.dst, k).merge(n)
		}
	}
	for k, g := range o.groups {
		cg := c.groups[k]
		if cg == nil {
			cg = &sourceTally{}
			c.groups[k] = cg
		}
		cg.Merge(&g.counts)
		cg.nanos += g.nanos
	}
	c.unreviewed += o.unreviewed
	c.cached += o.cached
	c.stateSkipped += o.stateSkipped
	c.stateSkippedTurns += o.stateSkippedTurns
	c.next = max(c.next, o.next)
	c.omitted += o.omitted
	c.mergeCases(o)
	if c.units != nil && o.units != nil {
		c.units.merge(o.units)
	}
}

// keepTurn keeps what a transcript shows of a conversation's turn: its
// place, the reply, and the response even when the turn passed.
func (c *Collector) keepTurn(cr *schema.CaseReport, r *schema.Result) {
	cr.Script, cr.Turn, cr.Conversation, cr.Repeat, cr.Event, cr.Reason = r.Script, r.Turn, r.Conversation, r.Repeat, r.Event, r.Reason
	cr.Reply = excerpt(r.Reply, c.MaxBody)
	if cr.Response == "" {
		cr.Response = c.keptBody(r)
	}
}

// keptBody is the response a listed case keeps: the JSON response, else
// the non-JSON body, cut at MaxBody. Only the excerpt is copied: a
// response of megabytes is not turned into a string to keep 4 KiB of it.
func (c *Collector) keptBody(r *schema.Result) string {
	if len(r.Response) > 0 {
		return excerpt(r.Response, c.MaxBody)
	}
	return excerpt(r.Body, c.MaxBody)
}

// excerpt is s whole when it is at most n bytes, else its first n bytes
// (fewer, to end on a whole UTF-8 character) and "…".
func excerpt[T ~string | ~[]byte](s T, n int) string {
	if len(s) <= n {
		return string(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return string(s[:n]) + "…"
}

// Omitted is the number of cases left out of Cases by the cap.
func (c *Collector) Omitted() int { return c.omitted }

// Total is the number of results added.
func (c *Collector) Total() int {
	c.flush()
	return c.root.counts().total
}

// Metrics returns the metrics tree, with the intervals of its metrics
// (the suite's statistics settings).
func (c *Collector) Metrics() *schema.Metrics {
	c.flush()
	m := &schema.Metrics{Node: *c.node(c.root, "metrics")}
	conv := func(group string, src map[string]*nodeAcc) map[string]*schema.Node {
		if len(src) == 0 {
			return nil
		}
		out := make(map[string]*schema.Node, len(src))
		for k, v := range src {
			out[k] = c.node(v, groupAddr(group, k))
		}
		return out
	}
	m.Split, m.Level, m.Scene, m.Template = conv("split", c.split), conv("level", c.level), conv("scene", c.scene), conv("template", c.template)
	c.sourceNodes(m)
	if len(c.suite.Splits) > 0 {
		if m.Split == nil {
			m.Split = map[string]*schema.Node{}
		}
		for _, sp := range c.suite.Splits {
			if m.Split[sp.Name] == nil {
				m.Split[sp.Name] = c.node(c.newNode(), groupAddr("split", sp.Name))
			}
		}
	}
	if c.core.counts().total > 0 {
		m.Core = c.node(c.core, "metrics.core")
	}
	if c.noncore.counts().total > 0 {
		m.Noncore = c.node(c.noncore, "metrics.noncore")
	}
	return m
}

// groupAddr is the canonical address of the node key of a keyed group
// (metrics.split["smoke"]), as schema.Tree.ReadMetrics writes it.
func groupAddr(group, key string) string {
	return fmt.Sprintf("metrics.%s[%q]", group, key)
}

// sourceNodes sets metrics.KIND["NAME"] for the sources of kinds other
// than template: a map per kind in Metrics.Sources, every declared
// source of the kind present.
func (c *Collector) sourceNodes(m *schema.Metrics) {
	for _, src := range c.suite.CaseSources {
		kind := src.Kind()
		group := c.suite.Tree.SourceGroup(kind)
		if kind == schema.KindTemplate || c.suite.Tree.Group(group) == nil {
			continue
		}
		if m.Sources == nil {
			m.Sources = map[string]map[string]*schema.Node{}
		}
		byName := m.Sources[group]
		if byName == nil {
			byName = map[string]*schema.Node{}
			m.Sources[group] = byName
		}
		if n := c.sources[sourceKey{kind, src.Name()}]; n != nil {
			byName[src.Name()] = c.node(n, groupAddr(group, src.Name()))
		}
	}
}

// Groups returns the per-source summaries (Kind is the source kind) in
// declaration order.
func (c *Collector) Groups() []schema.Group {
	var out []schema.Group
	for _, src := range c.suite.CaseSources {
		key := sourceKey{src.Kind(), src.Name()}
		n := c.groups[key]
		if n == nil {
			continue
		}
		rng := src.DeclRange()
		g := schema.Group{Kind: key.kind, Name: key.name, File: rng.Filename, Line: rng.Start.Line,
			Total: n.total, Passed: n.passed, Failed: n.failed, Errored: n.errored, Seconds: float64(n.nanos) / 1e9, Unreviewed: !src.Info().Reviewed}
		g.Outcome = schema.Pass
		if n.failed > 0 {
			g.Outcome = schema.Fail
		}
		if n.errored > 0 {
			g.Outcome = schema.Error
		}
		out = append(out, g)
	}
	return out
}
