package spec

import "github.com/hashicorp/hcl/v2"

// The template-generation API for source kinds built on templates
// (conversation, memory, scenario): a kind decodes its block's generation
// settings into a Template (Decoder.GenerationSettings), generates its
// slot assignments through Suite.GenerateTemplate with a ScriptOf that
// turns each case into its script, and rebuilds saved cases through the
// Source NewTemplateSource makes for the same Template.

// GenerationSettings decodes what a block that generates from a template
// says about its cases and how they are drawn into t: level, core, scene,
// tags, strategy (default uniq), limit, count, seed, material_levels
// (checked against the suite's levels) and reviewed, reporting mistakes
// at their attributes.
func (d *Decoder) GenerationSettings(t *Template, c *hcl.BodyContent, b *hcl.Block) {
	d.l.generationSettings(t, c, b)
}

// NewTemplateSource returns template t of suite s as a case source: the
// template kind's own (its Info from t, Generate through
// Suite.GenerateTemplate, Rebuild of saved cases with their slot values).
// A kind built on a template keeps one to rebuild its saved cases' text.
func NewTemplateSource(s *Suite, t *Template) Source { return newTemplateSource(s, t) }
