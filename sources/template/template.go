// Package template owns the template case source kind (SPEC §4): a block
// whose text names materials as placeholders ({城市}), each case one draw
// of their values under the block's strategy, with the expectations,
// reply and tools checks, rubrics, perturbations and asserts every case
// of it carries. It decodes the block through spec's public Decoder and
// hands the template to generate.NewSource, the Source every kind built
// on a template shares: the generation engine (strategies, case ids,
// filled expectations) and the rebuild of saved cases are spec/generate's,
// which every template-based kind (conversation, memory, scenario) uses;
// splits, nested and composed materials and perturbation stay in spec.
package template

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/generate"
	"github.com/nlutest/nlutest/spec/rubric"
)

// Kind decodes template blocks. It is the first of the kinds nlutest
// ships (extensions.Default).
type Kind struct{}

// Block is the kind's block type, schema.KindTemplate.
func (Kind) Block() string { return schema.KindTemplate }

// Decode decodes a template block into its source; nil when the block
// has errors that leave no template.
func (Kind) Decode(d *spec.Decoder, b *hcl.Block) spec.Source {
	t := decodeTemplate(d, b)
	if t == nil {
		return nil
	}
	return generate.NewSource(d.Suite(), t)
}

var templateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "text", Required: true}, {Name: "level"}, {Name: "core"}, {Name: "scene"}, {Name: "tags"},
		{Name: "strategy"}, {Name: "limit"}, {Name: "count"}, {Name: "seed"}, {Name: "material_levels"},
		{Name: "expect"}, {Name: "reviewed"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "perturb"}, {Type: "reply"}, rubric.BlockType, {Type: "tools"}},
}

// decodeTemplate decodes a template block; nil when it has errors that
// leave no template. A template without a usable text (none, or a bad
// placeholder in it) is still checked through: its expect, reply checks,
// asserts, perturb and rubrics, with placeholders not checked against the
// text (SlotsUnknown).
func decodeTemplate(d *spec.Decoder, b *hcl.Block) *spec.Template {
	c, ok := d.Content(b, templateSchema)
	t := &spec.Template{Name: spec.BlockLabel(b), DeclRange: b.DefRange}
	ta, hasText := c.Attributes["text"]
	if hasText {
		t.TextRange = ta.Expr.Range()
		t.Text = d.String(c.Attributes, "text", "")
	}
	d.GenerationSettings(t, c, b)
	textOK := hasText && templateParts(d, t)
	d.SlotsUnknown(!textOK)
	templateChecks(d, t, c)
	d.SlotsUnknown(false)
	if !ok || !textOK {
		d.KeepLooseAsserts(t.Asserts)
		return nil
	}
	s := d.Suite()
	s.Templates = append(s.Templates, t)
	return t
}

// templateParts splits the template's text into literals and slots; false
// when a placeholder is malformed (reported). A placeholder naming no
// materials is reported and left out of the parts.
func templateParts(d *spec.Decoder, t *spec.Template) bool {
	s := d.Suite()
	lits, phs, err := spec.ParsePlaceholders(t.Text)
	if err != nil {
		d.Errorf(t.TextRange.Ptr(), "Invalid placeholder", "%s.", spec.Capitalize(err.Error()))
		return false
	}
	index := map[string]int{}
	for i, ph := range phs {
		t.Parts = append(t.Parts, spec.Part{Literal: lits[i], Slot: -1})
		if _, ok := s.Materials[ph.Material]; !ok {
			rng := d.SubRange(t.TextRange, "{"+ph.Key+"}")
			d.Errorf(&rng, "Unknown materials",
				"The placeholder {%s} names no materials block.%s Declare materials %q { values = [...] } or fix the name.",
				ph.Key, didYouMeanBrace(ph.Material, s.MatOrder), ph.Material)
			continue
		}
		k, ok := index[ph.Key]
		if !ok {
			k = len(t.Slots)
			index[ph.Key] = k
			t.Slots = append(t.Slots, spec.SlotRef{Key: ph.Key, Material: ph.Material, Draw: ph.Draw})
		}
		t.Parts = append(t.Parts, spec.Part{Slot: k})
	}
	t.Parts = append(t.Parts, spec.Part{Literal: lits[len(lits)-1], Slot: -1})
	for _, sr := range t.Slots {
		if sr.Draw > 1 {
			m := s.Materials[sr.Material]
			if len(m.Values) < sr.Draw && !m.Broken() {
				rng := d.SubRange(t.TextRange, "{"+sr.Key+"}")
				d.Errorf(&rng, "Not enough values for distinct draws", "{%s} asks for a %d-th distinct value of %q, which has %d values.", sr.Key, sr.Draw, sr.Material, len(m.Values))
			}
		}
	}
	return true
}

// templateChecks reads the template's expect, reply checks, rubrics,
// perturb and assert blocks.
func templateChecks(d *spec.Decoder, t *spec.Template, c *hcl.BodyContent) {
	if a, ok := c.Attributes["expect"]; ok {
		t.Expect = d.Expect(a, t.SlotKeys())
	}
	t.Reply = d.ReplyBlocks(c.Blocks, t.SlotKeys(), false)
	var args []*spec.ExpectSpec
	t.Tools, args = d.ToolsBlocks(c.Blocks, t.SlotKeys(), false)
	t.Expect = append(t.Expect, args...)
	seen := map[string]hcl.Range{}
	for _, ab := range c.Blocks {
		switch ab.Type {
		case rubric.BlockType.Type:
			if r := d.RubricBlock(ab, seen); r != nil {
				t.Rubrics = append(t.Rubrics, r)
			}
		case "reply", "tools":
		case "perturb":
			if t.Perturb != nil {
				d.Errorf(ab.DefRange.Ptr(), "Duplicate perturb block", "A template has one perturb block; list every kind in its kinds.")
			} else {
				t.Perturb = d.Perturb(ab)
			}
		default:
			if as := d.Assert(ab); as != nil {
				t.Asserts = append(t.Asserts, as)
			}
		}
	}
}

// didYouMeanBrace is " Did you mean {NAME}?" for the materials name
// closest to name, or "".
func didYouMeanBrace(name string, options []string) string {
	if s := spec.SuggestName(name, options); s != "" {
		return fmt.Sprintf(" Did you mean {%s}?", s)
	}
	return ""
}
