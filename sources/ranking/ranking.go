// Package ranking owns the ranking case source kind: questions with graded
// candidate responses (Li, Zhang, Song (Tencent AI Lab),
// "面向非任务型对话系统的人工标注中文数据集": response selection scored by P@1,
// MAP and MRR with positive = grade ≥ N), read from a JSONL file the
// target scores or orders, or a TREC qrels and run pair read at report
// time. It is built on spec's public Decoder alone; assert's ranking
// family turns its cases into metrics.ranking, and extensions.Default
// lists the kind.
package ranking

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// This file is the ranking case source kind: questions with graded
// candidate responses (Li, Zhang, Song (Tencent AI Lab),
// "面向非任务型对话系统的人工标注中文数据集": response selection scored by P@1,
// MAP and MRR with positive = grade ≥ N). The target scores each
// (question, candidate) pair (score = EXPR: one case per pair, case.text
// the question, case.candidate the candidate) or orders each question's
// candidates (order = EXPR: one case per question, case.candidates). A
// TREC qrels and run pair needs no target: the run file's scores rank the
// documents, read at report time (trec.go). assert's ranking
// family turns them into metrics.ranking.

// Block is the block type and source kind of ranking blocks.
const Block = "ranking"

// Kind is the ranking source kind (a spec.SourceKind).
type Kind struct{}

// Block is "ranking".
func (Kind) Block() string { return Block }

// MetricsGroup is false: metrics.ranking is the ranking family's value
// (with its per-block entries), not a node per ranking block.
func (Kind) MetricsGroup() bool { return false }

var rankingSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "source"}, {Name: "qrels"}, {Name: "run"}, {Name: "positive_grade"}, {Name: "score"},
	{Name: "order"}, {Name: "drop_single_class"}, {Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"},
}}

// Source is a ranking block.
type Source struct {
	s    *spec.Suite
	name string
	rng  hcl.Range
	info spec.SourceInfo
	tags []string
	// Path is the JSONL file of questions; Qrels and Run the TREC pair
	// (Path empty then).
	Path, Qrels, Run string
	// Levels are the positive grades (positive = grade ≥ N), the first
	// the block's headline figures.
	Levels []float64
	// DropSingle is the paper's rule: drop (and count) questions whose
	// candidates are all one class at N; false is trec_eval's.
	DropSingle bool
	// Score scores one (question, candidate) pair from the response;
	// Order orders a question's candidates (one is set, unless the block
	// is a TREC pair).
	Score, Order hcl.Expression
	// Questions are the questions of the JSONL file, in file order.
	Questions []Question
	ids       map[string][2]int
	// qrelsAt and runAt locate the qrels and run attributes, for problems
	// found when the files are read (at report time).
	qrelsAt, runAt hcl.Range
}

// Question is one question and its graded candidates, in file order.
type Question struct {
	ID, Query  string
	Candidates []Candidate
	Line       int
}

// Candidate is one candidate response and its grade.
type Candidate struct {
	Text  string
	Grade float64
}

// Decode decodes a ranking block.
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, rankingSchema)
	if !ok {
		return nil
	}
	s := d.Suite()
	rs := &Source{s: s, name: b.Labels[0], rng: b.DefRange, ids: map[string][2]int{}}
	rs.Path, rs.Qrels, rs.Run = d.FilePath(c.Attributes, "source"), d.FilePath(c.Attributes, "qrels"), d.FilePath(c.Attributes, "run")
	if a, has := c.Attributes["qrels"]; has {
		rs.qrelsAt = a.Expr.Range()
		d.CheckFile(rs.qrelsAt, "TREC qrels file", rs.Qrels, spec.MaxDataBytes, false)
	}
	if a, has := c.Attributes["run"]; has {
		rs.runAt = a.Expr.Range()
		d.CheckFile(rs.runAt, "TREC run file", rs.Run, spec.MaxDataBytes, false)
	}
	rs.DropSingle = d.Bool(c.Attributes, "drop_single_class", true)
	rs.Levels = decodeLevels(d, c.Attributes["positive_grade"])
	core := d.Bool(c.Attributes, "core", false)
	rs.info = spec.SourceInfo{Core: core, Level: d.String(c.Attributes, "level", s.Defaults.Level), Scene: d.Strings(c.Attributes, "scene"), Slots: []string{}, Reviewed: true}
	rs.tags = d.Strings(c.Attributes, "tags")
	condRoots := []string{"var", "case", "slot", "response", "http", "latency_ms"}
	if a, has := c.Attributes["score"]; has {
		rs.Score = a.Expr
		d.CheckExpr(a.Expr, "ranking score", condRoots, []string{})
	}
	if a, has := c.Attributes["order"]; has {
		rs.Order = a.Expr
		d.CheckExpr(a.Expr, "ranking order", condRoots, []string{})
	}
	if !rs.checkMode(d, b, c) {
		return nil
	}
	if rs.Path != "" && !rs.load(d, c.Attributes["source"]) {
		return nil
	}
	return rs
}

// decodeLevels reads positive_grade: one number or a list (default 4).
func decodeLevels(d *spec.Decoder, a *hcl.Attribute) []float64 {
	if a == nil {
		return []float64{4}
	}
	v, ok := d.Value(a, cty.DynamicPseudoType, "positive_grade")
	bad := func() []float64 {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid positive_grade", "positive_grade is a grade N (candidates graded N or more are positive) or a list of them, e.g. [3, 4, 5].")
		return []float64{4}
	}
	if !ok || v.IsNull() {
		return bad()
	}
	if v.Type() == cty.Number {
		f, _ := v.AsBigFloat().Float64()
		return []float64{f}
	}
	if !v.CanIterateElements() || v.LengthInt() == 0 {
		return bad()
	}
	var out []float64
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.Number {
			return bad()
		}
		f, _ := e.AsBigFloat().Float64()
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// checkMode checks that the block is either a JSONL source with score or
// order, or a TREC qrels and run pair.
func (rs *Source) checkMode(d *spec.Decoder, b *hcl.Block, c *hcl.BodyContent) bool {
	switch {
	case rs.Path != "" && (rs.Qrels != "" || rs.Run != ""):
		d.Errorf(b.DefRange.Ptr(), "Two ranking sources", "A ranking block reads either source (JSONL questions the target ranks) or a TREC qrels and run pair, not both.")
	case rs.Path == "" && (rs.Qrels == "") != (rs.Run == ""):
		d.Errorf(b.DefRange.Ptr(), "Incomplete TREC pair", "A TREC ranking needs both qrels (the graded judgments) and run (the scores to rank by).")
	case rs.Path == "" && rs.Qrels == "":
		d.Errorf(b.DefRange.Ptr(), "Missing ranking source", "A ranking block needs source = \"questions.jsonl\" (with score or order), or qrels and run (a TREC pair).")
	case rs.Path != "" && (rs.Score == nil) == (rs.Order == nil):
		d.Errorf(b.DefRange.Ptr(), "Score or order", "A ranking over source needs exactly one of score = EXPR (the target scores each candidate: case.text, case.candidate) and order = EXPR (it orders a question's candidates: case.candidates).")
	case rs.Path == "" && (rs.Score != nil || rs.Order != nil):
		rng := c.Attributes["score"]
		if rng == nil {
			rng = c.Attributes["order"]
		}
		d.Errorf(rng.Range.Ptr(), "No target for a TREC pair", "A TREC qrels and run pair is ranked by the run file's scores; score and order are for source = JSONL questions.")
	default:
		return true
	}
	return false
}

// rankRow is one line of the JSONL file.
type rankRow struct {
	ID         json.RawMessage `json:"id"`
	Query      string          `json:"query"`
	Candidates []struct {
		Text  string   `json:"text"`
		Grade *float64 `json:"grade"`
	} `json:"candidates"`
}

// load reads the questions; a bad line is a diagnostic at its line.
func (rs *Source) load(d *spec.Decoder, a *hcl.Attribute) bool {
	f, err := rs.s.Access.Open("", rs.Path, spec.MaxDataBytes)
	if err != nil {
		d.Errorf(a.Expr.Range().Ptr(), "Cannot read ranking file", "%s. The path is resolved from the directory of the suite file that names it.", spec.FileError(err))
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	ok := true
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !rs.addRow(d, line, n) {
			ok = false
		}
	}
	if err := sc.Err(); err != nil {
		d.Errorf(a.Expr.Range().Ptr(), "Cannot read ranking file", "%s: %s.", rs.Path, err)
		return false
	}
	return ok
}

func (rs *Source) addRow(d *spec.Decoder, line []byte, n int) bool {
	p := hcl.Pos{Line: n, Column: 1}
	at := &hcl.Range{Filename: rs.Path, Start: p, End: p}
	var row rankRow
	if err := json.Unmarshal(line, &row); err != nil {
		d.Errorf(at, "Invalid ranking row", "Each line is {\"query\": \"…\", \"candidates\": [{\"text\": \"…\", \"grade\": 4}, …]}: %s.", err)
		return false
	}
	if row.Query == "" || len(row.Candidates) == 0 {
		d.Errorf(at, "Invalid ranking row", "The row needs a query and at least one candidate.")
		return false
	}
	q := Question{ID: strconv.Itoa(n), Query: row.Query, Line: n}
	if len(row.ID) > 0 {
		var s string
		if json.Unmarshal(row.ID, &s) != nil {
			s = string(row.ID)
		}
		q.ID = s
	}
	for i, c := range row.Candidates {
		if c.Grade == nil {
			d.Errorf(at, "Missing grade", "Candidate %d of question %s has no grade.", i+1, q.ID)
			return false
		}
		q.Candidates = append(q.Candidates, Candidate{Text: c.Text, Grade: *c.Grade})
	}
	qi := len(rs.Questions)
	for ci := range q.Candidates {
		id := rs.caseID(q.ID, ci, rs.Order != nil)
		if _, dup := rs.ids[id]; dup {
			d.Errorf(at, "Duplicate question", "Question id %s appears twice in %s.", q.ID, rs.Path)
			return false
		}
		rs.ids[id] = [2]int{qi, ci}
		if rs.Order != nil {
			break
		}
	}
	rs.Questions = append(rs.Questions, q)
	return true
}

// caseID is the stable id of a question's case (order) or of one of its
// candidates (score).
func (rs *Source) caseID(qid string, ci int, perQuestion bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "ranking\x00%s\x00%s\x00", rs.name, qid)
	if !perQuestion {
		fmt.Fprintf(h, "%d", ci)
	}
	var sum [32]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// Lookup returns the question and candidate indexes of a case of the
// block (candidate 0 for a case of order mode).
func (rs *Source) Lookup(id string) (q, c int, ok bool) {
	v, ok := rs.ids[id]
	return v[0], v[1], ok
}

func (rs *Source) Name() string           { return rs.name }
func (rs *Source) Kind() string           { return Block }
func (rs *Source) DeclRange() hcl.Range   { return rs.rng }
func (rs *Source) Info() *spec.SourceInfo { return &rs.info }

// build makes the case of question qi (candidate ci in score mode).
func (rs *Source) build(c *schema.Case, qi, ci int) {
	q := &rs.Questions[qi]
	*c = schema.Case{ID: rs.caseID(q.ID, ci, rs.Order != nil), Suite: rs.s.Name, Source: rs.name, SourceKind: Block,
		Text: q.Query, Level: rs.info.Level, Core: rs.info.Core, Scene: rs.info.Scene, Tags: rs.tags, Schema: rs.s.SchemaName}
	if rs.Order != nil {
		c.Candidates = make([]string, len(q.Candidates))
		for i, cd := range q.Candidates {
			c.Candidates[i] = cd.Text
		}
		return
	}
	c.Candidate = q.Candidates[ci].Text
}

// Generate yields one case per (question, candidate) with score, one per
// question with order, none for a TREC pair.
func (rs *Source) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	for qi := range rs.Questions {
		n := len(rs.Questions[qi].Candidates)
		if rs.Order != nil {
			n = 1
		}
		for ci := range n {
			sc, c := schema.NewSingle()
			rs.build(c, qi, ci)
			in, err := g.Admit(c)
			if err != nil {
				return err
			}
			if !in {
				continue
			}
			if err := yield(sc.Seal()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rebuild builds the saved case again from the file as it is now.
func (rs *Source) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	id, text := saved.ID, saved.Text
	if saved.Case != nil {
		id, text = saved.Case.ID, saved.Case.Text
	}
	qc, ok := rs.ids[id]
	if !ok {
		return nil, false
	}
	c := &schema.Case{}
	rs.build(c, qc[0], qc[1])
	if rs.s.AssignSplits(c) != nil {
		return nil, false
	}
	return c, c.Text == text
}
