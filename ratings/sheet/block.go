package sheet

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
)

// This file is the ratings block (`ratings "NAME" { source, format,
// scale, dimensions, keep_if_diff_at_most, raters }`): filled rating
// sheets (people's scores of a run's replies, YD/T 4394.2-2023's 5-point
// ratings by 3–5 raters; the two raters of Li, Zhang and Song's
// "面向非任务型对话系统的人工标注中文数据集") imported at report time and
// joined to the run's cases by id. The ratings family (assert) declares
// it through Settings, a labelled settings block (spec.LabelledSettingsBlock).

// Block is the ratings block's type.
const Block = "ratings"

// Ratings is a ratings block.
type Ratings struct {
	Name string
	// Path is the sheet, resolved from the suite file's directory; Format
	// is csv or jsonl.
	Path, Format string
	// Scale is the top of the scale (scores are whole numbers 1..Scale).
	Scale int
	// Dimensions are the rated dimensions, in the sheet's column order.
	Dimensions []string
	// KeepIfDiffAtMost keeps an item only when, in every dimension, its
	// raters' scores differ by at most this much; -1 keeps every item.
	KeepIfDiffAtMost int
	// Raters is the number of rater slots `ratings export` writes.
	Raters    int
	DeclRange hcl.Range
	// access reads the sheet under the suite's file rules (the zero
	// value, outside a suite load: spec.OwnFiles).
	access spec.FileAccess
}

// YDTDimensions are YD/T 4394.2-2023's rated dimensions of dialogue
// experience (anthropomorphism, professionalism, interest, satisfaction,
// sensitivity), the default of a ratings block.
var YDTDimensions = []string{"拟人性", "专业性", "趣味性", "满意度", "敏感性"}

// Of returns the ratings blocks of s in declaration order (none for a nil
// suite or one loaded without Settings).
func Of(s *spec.Suite) []*Ratings {
	if s == nil {
		return nil
	}
	rs, _ := s.Settings(Block).([]*Ratings)
	return rs
}

// Settings declares and decodes the ratings blocks: a labelled,
// repeatable settings block whose settings are the suite's []*Ratings
// (Of reads them back). A suite names each block once; the loader refuses
// a repeated name.
type Settings struct{}

// Block is "ratings".
func (Settings) Block() string { return Block }

// LabelName is the block's label, its name.
func (Settings) LabelName() string { return "name" }

// Default is no ratings blocks.
func (Settings) Default() any { return []*Ratings(nil) }

// Append adds one block's Ratings to those before it.
func (Settings) Append(settings, v any) any {
	rs, _ := settings.([]*Ratings)
	return append(rs, v.(*Ratings))
}

var ratingsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "source", Required: true}, {Name: "format"}, {Name: "scale"}, {Name: "dimensions"},
	{Name: "keep_if_diff_at_most"}, {Name: "raters"},
}}

// Decode reads one ratings block; a block without source (or with a
// broken label) is still checked through, then left out (nil).
func (Settings) Decode(d *spec.Decoder, b *hcl.Block) any {
	c, ok := d.Content(b, ratingsSchema)
	name := ""
	if len(b.Labels) > 0 {
		name = b.Labels[0]
	}
	r := &Ratings{Name: name, DeclRange: b.DefRange, access: d.Suite().Access}
	rel := d.String(c.Attributes, "source", "")
	if a, has := c.Attributes["source"]; has {
		r.Path = rel
		if rel != "" && !filepath.IsAbs(rel) {
			r.Path = filepath.Join(filepath.Dir(a.Range.Filename), rel)
		}
		d.CheckFile(a.Expr.Range(), "rating sheet", r.Path, spec.MaxDataBytes, false)
	}
	def := "csv"
	if ext := strings.ToLower(filepath.Ext(rel)); ext == ".jsonl" || ext == ".ndjson" {
		def = "jsonl"
	}
	r.Format = d.String(c.Attributes, "format", def)
	if r.Format != "csv" && r.Format != "jsonl" {
		d.Errorf(c.Attributes["format"].Expr.Range().Ptr(), "Unknown ratings format", "format is \"csv\" or \"jsonl\", not %q.", r.Format)
	}
	r.Scale = d.Int(c.Attributes, "scale", 5, 2)
	r.Raters = d.Int(c.Attributes, "raters", 3, 1)
	r.KeepIfDiffAtMost = d.Int(c.Attributes, "keep_if_diff_at_most", -1, 0)
	r.Dimensions = d.Strings(c.Attributes, "dimensions")
	if _, ok := c.Attributes["dimensions"]; !ok {
		r.Dimensions = slices.Clone(YDTDimensions)
	}
	for _, dim := range r.Dimensions {
		if dim == "case" || dim == "rater" || dim == "" {
			d.Errorf(c.Attributes["dimensions"].Expr.Range().Ptr(), "Invalid dimension", "A dimension is named, and not \"case\" or \"rater\" (the sheet's first columns).")
		}
	}
	if !ok {
		return nil
	}
	return r
}
