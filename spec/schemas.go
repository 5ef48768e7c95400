package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
)

func (l *loader) decodeSchema(b *hcl.Block) *Schema {
	c, diags := b.Body.Content(schemaBlockSchema)
	l.diags = append(l.diags, diags...)
	sc := &Schema{Name: label(b), DeclRange: b.DefRange, Response: cty.DynamicPseudoType}
	if a, ok := c.Attributes["response"]; ok {
		ty, diags := typeexpr.TypeConstraint(a.Expr)
		if diags.HasErrors() {
			l.errorf(a.Expr.Range().Ptr(), "Invalid response type", "response is a type constraint such as object({ intent = object({ name = string }) }): %s", diags[0].Detail)
		} else {
			sc.Response, sc.HasType = ty, true
		}
	}
	sc.Ignore = l.patterns(c.Attributes, "ignore")
	sc.Extends = l.str(c.Attributes, "extends", "")
	if sc.Extends != "" {
		if _, _, ok := schema.Preset(sc.Extends); !ok {
			l.errorf(c.Attributes["extends"].Expr.Range().Ptr(), "Unknown schema preset", "extends names a built-in preset (%s); %q is none of them.%s", quoteList(schema.PresetNames()), sc.Extends, didYouMean(sc.Extends, schema.PresetNames()))
			sc.Extends = ""
		}
	}
	seen := map[string]hcl.Range{}
	for _, db := range c.Blocks {
		if prev, ok := seen[label(db)]; ok {
			l.errorf(db.LabelRanges[0].Ptr(), "Duplicate dimension block", "A dimension named %q was already declared at %s.", label(db), rangeString(prev))
			continue
		}
		seen[label(db)] = db.LabelRanges[0]
		if d := l.decodeDimension(db); d != nil {
			sc.Dimensions = append(sc.Dimensions, d)
		}
	}
	l.schemas = append(l.schemas, sc)
	return sc
}

// resolveSchema finds the suite's schema among its schema blocks and the
// built-in presets (names match without regard to case).
func (l *loader) resolveSchema() {
	s := l.suite
	if s.SchemaName == "" {
		return
	}
	for _, sc := range l.schemas {
		if strings.EqualFold(sc.Name, s.SchemaName) {
			if sc.Extends != "" {
				if base := l.preset(sc.Extends); base != nil {
					sc.inherit(base)
				}
			}
			s.Schema = sc
			return
		}
	}
	if sc := l.preset(s.SchemaName); sc != nil {
		s.Schema = sc
		return
	}
	for _, n := range l.broken["schema"] {
		if strings.EqualFold(n, s.SchemaName) {
			return // the schema block's own error is reported
		}
	}
	names := append(schema.PresetNames(), l.schemaNames()...)
	l.errorf(s.DeclRange.Ptr(), "Unknown schema", "The suite's schema %q is neither a schema block of the suite nor a built-in preset.%s Built-in presets: %s.", s.SchemaName, didYouMean(s.SchemaName, names), quoteList(schema.PresetNames()))
}

// inherit fills what sc leaves out from base: the response type, ignore
// paths, and every dimension sc does not redeclare (sc's own come first).
func (sc *Schema) inherit(base *Schema) {
	if !sc.HasType {
		sc.Response, sc.HasType = base.Response, base.HasType
	}
	sc.Ignore = append(append([]Pattern{}, base.Ignore...), sc.Ignore...)
	for _, d := range base.Dimensions {
		if sc.DimensionByName(d.Name) == nil {
			sc.Dimensions = append(sc.Dimensions, d)
		}
	}
}

// preset parses a built-in schema preset, or returns nil.
func (l *loader) preset(name string) *Schema {
	src, file, ok := schema.Preset(name)
	if !ok {
		return nil
	}
	f, diags := hclparse.NewParser().ParseHCL(src, file)
	if diags.HasErrors() {
		l.diags = append(l.diags, diags...)
		return nil
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "schema", LabelNames: []string{"name"}}}})
	l.diags = append(l.diags, diags...)
	var sc *Schema
	for _, b := range content.Blocks {
		sc = l.decodeSchema(b)
		sc.Builtin = true
	}
	return sc
}

func (l *loader) schemaNames() []string {
	var out []string
	for _, sc := range l.schemas {
		out = append(out, sc.Name)
	}
	return out
}

// knownSchemaName reports whether a normalize key names a schema the suite
// could use: its own schema, a declared schema block or a preset.
func (l *loader) knownSchemaName(name string) bool {
	if strings.EqualFold(name, l.suite.SchemaName) {
		return true
	}
	for _, n := range append(schema.PresetNames(), l.schemaNames()...) {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}
