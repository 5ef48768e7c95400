package spec

import "github.com/hashicorp/hcl/v2"

// The template-generation API for source kinds built on templates
// (template, conversation, memory, scenario): a kind decodes its block's
// generation settings into a Template (Decoder.GenerationSettings),
// generates its slot assignments through spec/generate's Template with a
// ScriptOf that turns each case into its script, and rebuilds saved cases
// through the Source generate.NewSource makes for the same Template.

// GenerationSettings decodes what a block that generates from a template
// says about its cases and how they are drawn into t: level, core, scene,
// tags, strategy (default uniq), limit, count, seed, material_levels
// (checked against the suite's levels) and reviewed, reporting mistakes
// at their attributes.
func (d *Decoder) GenerationSettings(t *Template, c *hcl.BodyContent, b *hcl.Block) {
	d.l.generationSettings(t, c, b)
}

// generationSettings reads what every template-like block (template,
// conversation, memory) says about its cases and how they are drawn:
// level, core, scene, tags, strategy (default uniq), limit, count, seed,
// material_levels (checked against the suite's levels) and reviewed.
func (l *loader) generationSettings(t *Template, c *hcl.BodyContent, b *hcl.Block) {
	s := l.suite
	t.Level = l.str(c.Attributes, "level", s.Defaults.Level)
	t.Core = l.boolean(c.Attributes, "core", false)
	t.Scene = l.strList(c.Attributes, "scene")
	t.Tags = l.strList(c.Attributes, "tags")
	t.Strategy = l.strategy(c.Attributes, s.Defaults.Strategy)
	if t.Strategy == "" {
		t.Strategy = "uniq"
	}
	t.Limit = l.integer(c.Attributes, "limit", s.Defaults.Limit, 0)
	t.Count = l.integer(c.Attributes, "count", 0, 0)
	t.Seed = uint64(l.integer(c.Attributes, "seed", 0, 0))
	t.MaterialLevels = l.materialLevels(c.Attributes)
	if t.Strategy == "random" && t.Count == 0 {
		l.errorf(b.DefRange.Ptr(), "Random strategy needs count", "strategy = \"random\" draws count cases; add count = N (and seed = S to choose another draw).")
	}
	t.Reviewed = l.boolean(c.Attributes, "reviewed", true)
}
