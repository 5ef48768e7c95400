// Package dataset owns the dataset case source kind: a team's own
// labelled test set (JSONL, CSV with a header row, or Rasa nlu.yml
// training data), one case per row (or per Rasa example), its attributes
// expressions over `row`. Rows stream from the file: generating a million
// rows keeps memory flat. It reads its blocks through spec's public
// Decoder and generates through spec.Gen, like any kind a program adds.
package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/nlutest/nlutest/spec/rubric"
	"github.com/zclconf/go-cty/cty"
)

// This file is the kind itself: its block schema, its decoding and its
// spec.Source. The row readers are in rows.go, rasa.go and guard.go, the
// expressions in expr.go, the id checks in ids.go and validate's reading
// of every row in check.go.

// KindDataset is the source kind of dataset blocks.
const KindDataset = "dataset"

// Kind is the dataset source kind (a spec.SourceKind and
// spec.DataChecker), for extensions' set.
type Kind struct{}

// Block is the block type, "dataset".
func (Kind) Block() string { return KindDataset }

var datasetSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{
		{Name: "source", Required: true}, {Name: "format"}, {Name: "text"}, {Name: "expect"},
		{Name: "references"}, {Name: "id"}, {Name: "level"}, {Name: "core"}, {Name: "scene"},
		{Name: "tags"}, {Name: "meta"},
	}, spec.TextMinimumAttrs()...),
	Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "perturb"}, {Type: "reply"}, rubric.BlockType},
}

// datasetSource is a dataset block as a case source.
type datasetSource struct {
	s      *spec.Suite
	name   string
	rng    hcl.Range
	path   string // the file, resolved
	format string // jsonl, csv or rasa
	header []string
	info   spec.SourceInfo
	core   bool

	text, id, level, references, scene, tags *rowExpr
	expect                                   []expectExpr
	meta                                     []metaExpr
	perturb                                  *perturb.Block

	// index maps ids to rows for Rebuild, made on its first call.
	once  sync.Once
	index *rowIndex
}

// metaExpr is one `KEY = EXPR` pair of a dataset's meta map.
type metaExpr struct {
	key string
	val *rowExpr
}

// expectExpr is one `path = EXPR` pair of a dataset's expect map.
type expectExpr struct {
	path string
	val  *rowExpr
}

// Decode decodes a dataset block (spec.SourceKind).
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	c, ok := d.Content(b, datasetSchema)
	ds := &datasetSource{s: d.Suite(), name: spec.BlockLabel(b), rng: b.DefRange}
	// Without a readable file (its format and CSV header unknown) the rest
	// of the block is still checked, but for what depends on the file.
	if !ds.decodeFile(d, c) {
		ok = false
		ds.format, ds.header = "", nil
	}
	ds.core = d.Bool(c.Attributes, "core", false)
	ds.info = spec.SourceInfo{Core: ds.core, Slots: []string{}, Reviewed: true}
	if !ds.decodeExprs(d, c, b) {
		ok = false
	}
	ds.decodeBlocks(d, c)
	if !ok {
		return nil
	}
	return ds
}

// decodeBlocks reads the dataset's rubric, assert, perturb and reply
// blocks and its text minimums.
func (ds *datasetSource) decodeBlocks(d *spec.Decoder, c *hcl.BodyContent) {
	seen := map[string]hcl.Range{}
	for _, ab := range c.Blocks {
		switch ab.Type {
		case rubric.BlockType.Type:
			if r := d.RubricBlock(ab, seen); r != nil {
				ds.info.Rubrics = append(ds.info.Rubrics, r)
			}
		case "assert":
			if a := d.Assert(ab); a != nil {
				ds.info.Asserts = append(ds.info.Asserts, a)
			}
		case "perturb":
			if ds.perturb != nil {
				d.Errorf(ab.DefRange.Ptr(), "Duplicate perturb block", "A dataset has one perturb block; list every kind in its kinds.")
				continue
			}
			ds.perturb = d.Perturb(ab)
		}
	}
	ds.info.Perturb = ds.perturb
	ds.info.References = ds.references != nil
	ds.info.TextMinimums = d.TextMinimums(c.Attributes, ds.info.References)
	ds.info.Reply = spec.ConstReply(d.ReplyBlocks(c.Blocks, nil, ds.info.References))
}

// decodeFile reads source and format, and a CSV file's header row.
func (ds *datasetSource) decodeFile(d *spec.Decoder, c *hcl.BodyContent) bool {
	a, ok := c.Attributes["source"]
	if !ok {
		return false // reported: a required argument
	}
	rel := d.String(c.Attributes, "source", "")
	if rel == "" {
		return false
	}
	ds.path = rel
	if !filepath.IsAbs(rel) {
		ds.path = filepath.Join(filepath.Dir(a.Range.Filename), rel)
	}
	ds.format = d.String(c.Attributes, "format", formatOf(ds.path))
	switch ds.format {
	case "jsonl", "csv", "rasa":
	case "":
		d.Errorf(a.Expr.Range().Ptr(), "Unknown dataset file type", "%s: a dataset is a .jsonl (or .ndjson), a .csv file with a header row, or a Rasa nlu.yml (.yml, .yaml); set format = \"jsonl\", \"csv\" or \"rasa\" for another extension.", rel)
		return false
	default:
		d.Errorf(c.Attributes["format"].Expr.Range().Ptr(), "Unknown dataset format", "format is \"jsonl\", \"csv\" or \"rasa\", not %q.", ds.format)
		return false
	}
	_, err := d.Suite().Access.Check(filepath.Dir(a.Range.Filename), rel, spec.MaxDataBytes)
	if err != nil {
		d.Errorf(a.Expr.Range().Ptr(), "Cannot read dataset file", "%s. The path is resolved from the directory of the suite file that names it.", err)
		return false
	}
	if ds.format == "csv" {
		h, diag := readCSVHeader(d.Suite().Access, ds.path)
		if diag != nil {
			d.Report(diag)
			return false
		}
		ds.header = h
	}
	return true
}

func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".csv":
		return "csv"
	case ".yml", ".yaml":
		return "rasa"
	}
	return ""
}

// decodeExprs compiles the row expressions; a Rasa file's text and expect
// default to its examples' text, intent and entities.
func (ds *datasetSource) decodeExprs(d *spec.Decoder, c *hcl.BodyContent, b *hcl.Block) bool {
	ok := true
	get := func(name string) *rowExpr {
		a, has := c.Attributes[name]
		if !has {
			return nil
		}
		e, good := ds.compile(d, a.Expr, name)
		ok = ok && good
		return e
	}
	ds.text = get("text")
	if ds.text == nil && ds.format != "rasa" && ds.format != "" {
		d.Errorf(b.DefRange.Ptr(), "Missing text", "A %s dataset needs text = row.COLUMN (the utterance of each row).", ds.format)
		return false
	}
	ds.id, ds.level, ds.references = get("id"), get("level"), get("references")
	ds.scene, ds.tags = get("scene"), get("tags")
	if a, has := c.Attributes["expect"]; has {
		ok = ds.decodeExpect(d, a) && ok
	}
	if a, has := c.Attributes["meta"]; has {
		ok = ds.decodeMeta(d, a) && ok
	}
	if ds.level != nil && ds.level.constant {
		ds.info.Level = ds.level.constStr
	} else if ds.level == nil {
		ds.info.Level = d.Suite().Defaults.Level
	}
	if ds.scene != nil && ds.scene.constant {
		ds.info.Scene = ds.scene.constList
	}
	return ok
}

// decodeExpect reads expect = { PATH = EXPR }: the paths are JSONPaths as
// in templates, the values expressions over row.
func (ds *datasetSource) decodeExpect(d *spec.Decoder, a *hcl.Attribute) bool {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid expect", "expect is a map from JSONPath to an expression over row, e.g. expect = { \"$.intent.name\" = row.intent }.")
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, p := range pairs {
		kv, diags := p.Key.Value(d.StaticContext())
		d.Report(diags...)
		if !diags.HasErrors() && (kv.IsNull() || kv.Type() != cty.String) {
			d.Errorf(p.Key.Range().Ptr(), "Invalid expect key", "Each expect key is a JSONPath string such as \"$.intent.name\".")
		}
		if diags.HasErrors() || kv.IsNull() || kv.Type() != cty.String {
			ok = false
			continue
		}
		x, norm, state, err := jsonpath.CompileExpect(kv.AsString())
		if err != nil {
			d.PathError(p.Key, kv.AsString(), err)
			ok = false
			continue
		}
		if seen[norm] {
			d.Errorf(p.Key.Range().Ptr(), "Duplicate expectation", "The path %s is expected twice.", norm)
			ok = false
			continue
		}
		seen[norm] = true
		e, good := ds.compile(d, p.Value, "expected value")
		if !good {
			ok = false
			continue
		}
		ds.expect = append(ds.expect, expectExpr{path: norm, val: e})
		ds.info.Expect = append(ds.info.Expect, &spec.ExpectSpec{Path: norm, Expr: x, State: state, Value: cty.DynamicVal, Range: p.Key.Range()})
	}
	return ok
}

// decodeMeta reads meta = { KEY = EXPR }: extra fields of each case.
func (ds *datasetSource) decodeMeta(d *spec.Decoder, a *hcl.Attribute) bool {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid meta", "meta is a map from a name to an expression over row, e.g. meta = { source = row.source }.")
		return false
	}
	ok := true
	for _, p := range pairs {
		key := hcl.ExprAsKeyword(p.Key)
		if key == "" {
			kv, diags := p.Key.Value(d.StaticContext())
			if diags.HasErrors() || kv.IsNull() || kv.Type() != cty.String {
				d.Errorf(p.Key.Range().Ptr(), "Invalid meta key", "Each meta key is a name or a string.")
				ok = false
				continue
			}
			key = kv.AsString()
		}
		e, good := ds.compile(d, p.Value, "meta."+key)
		if !good {
			ok = false
			continue
		}
		ds.meta = append(ds.meta, metaExpr{key: key, val: e})
	}
	return ok
}

func (ds *datasetSource) Name() string           { return ds.name }
func (ds *datasetSource) Kind() string           { return KindDataset }
func (ds *datasetSource) DeclRange() hcl.Range   { return ds.rng }
func (ds *datasetSource) Info() *spec.SourceInfo { return &ds.info }

// Generate streams the file's rows as cases, each followed by its
// perturbations (which share its splits).
func (ds *datasetSource) Generate(g *spec.Gen, yield func(*schema.Script) error) error {
	rd, err := ds.open()
	if err != nil {
		return err
	}
	defer rd.close()
	var ev rowEval
	var same occurrences
	for {
		r, err := rd.next()
		if err != nil || r == nil {
			return err
		}
		sc, c := schema.NewSingle()
		if ds.id == nil {
			r.nth = same.next(rowKey(ds.name, r.raw))
		}
		if err := ds.build(c, r, &ev); err != nil {
			return err
		}
		if ds.id != nil {
			if err := sharedIDs(g).add(ds, c.ID, r.line); err != nil {
				return err
			}
		}
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
		if ds.perturb != nil {
			if err := ds.perturb.Each(c, yield); err != nil {
				return err
			}
		}
	}
}

// build fills c from row r.
func (ds *datasetSource) build(c *schema.Case, r *dsRow, ev *rowEval) error {
	ev.reset(r)
	*c = schema.Case{Suite: ds.s.Name, Source: ds.name, SourceKind: KindDataset, Core: ds.core, Schema: ds.s.SchemaName, Level: ds.info.Level}
	var err error
	if ds.text == nil {
		c.Text = r.ex.text
	} else if c.Text, err = ds.str(ev, ds.text, true); err != nil {
		return err
	}
	if ds.id != nil {
		c.ID, err = ds.str(ev, ds.id, true)
	} else {
		c.ID = defaultID(ds.name, r.raw, r.nth)
	}
	if err != nil {
		return err
	}
	if ds.level != nil && !ds.level.constant {
		if c.Level, err = ds.str(ev, ds.level, false); err != nil {
			return err
		}
	}
	if c.Scene, err = ds.strs(ev, ds.scene); err != nil {
		return err
	}
	if c.Tags, err = ds.strs(ev, ds.tags); err != nil {
		return err
	}
	if c.References, err = ds.strs(ev, ds.references); err != nil {
		return err
	}
	if len(ds.meta) > 0 {
		c.Meta = make(map[string]string, len(ds.meta))
		for _, m := range ds.meta {
			if c.Meta[m.key], err = ds.str(ev, m.val, false); err != nil {
				return err
			}
		}
	}
	return ds.buildExpect(c, r, ev)
}

func (ds *datasetSource) buildExpect(c *schema.Case, r *dsRow, ev *rowEval) error {
	if len(ds.expect) == 0 {
		if r.ex != nil {
			c.Expect = r.ex.expect()
		}
		return nil
	}
	c.Expect = make(schema.Expectations, len(ds.expect))
	for i, x := range ds.expect {
		v, err := ds.generic(ev, x.val)
		if err != nil {
			return ds.rowError(r, x.val, err)
		}
		c.Expect[i] = schema.Expectation{Path: x.path, Value: v}
	}
	return nil
}

// rowID is the default case id: a hash of the source name and the row's
// text (identical rows share it; defaultID numbers them).
func rowID(name string, raw []byte) string {
	sum := rowSum(name, raw)
	return hex.EncodeToString(sum[:8])
}

// rowSum is the SHA-256 of a row's source name and text.
func rowSum(name string, raw []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte("dataset\x00"))
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(raw)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Rebuild finds the saved case's row by id (an index of the file made on
// the first call) and builds it again from the file as it is now; a
// perturbed case is rebuilt from its original's row. A case whose text
// changed is not rebuilt (its saved response answers another text).
func (ds *datasetSource) Rebuild(saved spec.Saved) (*schema.Case, bool) {
	id, text := saved.ID, saved.Text
	if saved.Case != nil {
		id, text = saved.Case.ID, saved.Case.Text
	}
	ds.once.Do(func() { ds.index = ds.buildIndex() })
	if ds.index == nil {
		return nil, false
	}
	rowID := id
	r, ok := ds.index.row(id)
	if !ok && ds.perturb != nil {
		if orig, isVariant := perturb.SplitID(id); isVariant {
			rowID = orig
			r, ok = ds.index.row(orig)
		}
	}
	if !ok {
		return nil, false
	}
	c := &schema.Case{}
	var ev rowEval
	if err := ds.build(c, r, &ev); err != nil || c.ID != rowID || ds.s.AssignSplits(c) != nil {
		return nil, false
	}
	if rowID != id {
		if c, ok = ds.perturb.Variant(c, id); !ok {
			return nil, false
		}
	}
	return c, c.Text == text
}
