package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/perturb"
	"github.com/zclconf/go-cty/cty"
)

// This file decodes a perturb block (package perturb makes the variants).
// Robustness (the YD/T draft "面向应用场景的自然语言处理模型评估方法":
// R = (D1 + S1) / (D + S) over original and perturbed inputs): a perturb
// block in a template or dataset adds, after each case, count variants per
// kind of its text.

var perturbSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "kinds", Required: true}, {Name: "count"}, {Name: "seed"}, {Name: "synonyms"}, {Name: "homophones"},
}}

// decodePerturb reads a perturb block: nil when its kinds are missing or
// unknown, or synonyms names no materials block, each reported.
func (l *loader) decodePerturb(b *hcl.Block) *perturb.Block {
	// ok false (kinds missing, or a kind unknown) leaves no perturb; the
	// rest of the block is still checked.
	c, ok := l.content(b.Body, perturbSchema)
	p := &perturb.Block{DeclRange: b.DefRange}
	p.Kinds = l.strList(c.Attributes, "kinds")
	for _, k := range p.Kinds {
		if !slices.Contains(perturb.Kinds, k) {
			l.errorf(c.Attributes["kinds"].Expr.Range().Ptr(), "Unknown perturbation kind", "%q is not a perturbation kind (kinds: %s).%s", k, strings.Join(perturb.Kinds, ", "), didYouMean(k, perturb.Kinds))
			ok = false
			break
		}
	}
	p.Count = l.integer(c.Attributes, "count", 1, 1)
	p.Seed = uint64(l.integer(c.Attributes, "seed", 0, 0))
	if a, has := c.Attributes["synonyms"]; has {
		name := l.str(c.Attributes, "synonyms", "")
		m, found := l.suite.Materials[name]
		switch {
		case name == "":
			ok = false // an error of its own, reported
		case !found:
			l.errorf(a.Expr.Range().Ptr(), "Unknown materials", "synonyms names the materials block whose values are synonym groups (\"订|预订|预定\"); there is no materials %q.%s", name, didYouMean(name, l.suite.MatOrder))
			ok = false
		default:
			for _, v := range m.Values {
				if g := strings.Split(v.Value, "|"); len(g) > 1 {
					p.Synonyms = append(p.Synonyms, g)
				}
			}
		}
	} else if slices.Contains(p.Kinds, "synonym") {
		l.errorf(b.DefRange.Ptr(), "synonym needs synonyms", "The synonym kind replaces words by others of their group: set synonyms = \"MATERIALS\", a materials block whose values are groups such as \"订|预订|预定\".")
		ok = false
	}
	p.Homophones = perturb.DefaultHomophones
	if a, has := c.Attributes["homophones"]; has {
		p.Homophones = l.stringGroups(a)
	}
	if !ok {
		return nil
	}
	return p
}

// stringGroups reads a list of lists of strings.
func (l *loader) stringGroups(a *hcl.Attribute) [][]string {
	v, diags := a.Expr.Value(l.staticCtx())
	l.diags = append(l.diags, diags...)
	var out [][]string
	if diags.HasErrors() || v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		l.errorf(a.Expr.Range().Ptr(), "Invalid homophones", "homophones is a list of groups of characters that sound alike, e.g. [[\"在\", \"再\"], [\"的\", \"地\", \"得\"]].")
		return nil
	}
	for it := v.ElementIterator(); it.Next(); {
		_, g := it.Element()
		xs, err := ctyStrings(g)
		if err != nil || g.Type() == cty.String || len(xs) < 2 {
			l.errorf(a.Expr.Range().Ptr(), "Invalid homophones", "Each group of homophones lists two or more strings.")
			return nil
		}
		out = append(out, xs)
	}
	return out
}
