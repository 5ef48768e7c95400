package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/ohler55/ojg/jp"
	"golang.org/x/text/unicode/norm"
)

// Dimension is a `dimension` block of a schema: a family of response
// values that metrics are computed for (SPEC §6).
type Dimension struct {
	Name string
	// Kind is schema.KindLeaf, KindItems, KindLabel or KindCase.
	Kind string
	// Paths are the patterns of leaf and case dimensions.
	Paths []Pattern
	// Items and Keys define an items dimension: the objects Items selects,
	// compared on Keys; without Keys the items (objects or scalars: words)
	// are compared whole.
	Items *Pattern
	Keys  []string
	// TypeKey is the key of an items dimension whose value is the item's
	// type (rasa: "entity"): per-type figures, averages and the scope.
	TypeKey string
	// Scope lists the types the suite annotates (nil: every type). Items
	// of other types in a response are neither charged nor compared; they
	// are counted as out of scope.
	Scope []string
	// Collection is the path of the array an items dimension's pattern
	// takes the elements of ($.entities for $.entities[*]), when the
	// pattern is a simple path followed by [*]: an expectation on it is
	// compared as a multiset (see assert).
	Collection *Pattern
	// Label, Ranking and Confidence define a label dimension.
	Label      *Pattern
	Ranking    *Pattern
	Confidence *Pattern
	// RankingConfidence holds the scores of the ranking's labels, in the
	// ranking's order: top-k ranks by it (see assert/metrics.RankByScore).
	RankingConfidence *Pattern
	MinConfidence     float64
	TopK              int
	// Labels is the declared label set (scikit-learn's labels=); nil: the
	// labels seen.
	Labels []string
	// OutOfScope is the label that marks an out-of-scope utterance
	// (CLINC150's "oos", Rasa's "nlu_fallback"), in NFC; "" for none.
	OutOfScope string
	DeclRange  hcl.Range
}

// Pattern is a compiled JSONPath pattern with its source text.
type Pattern struct {
	Source string
	Expr   jp.Expr
}

// Matches reports whether the pattern matches the whole normalised path.
func (p *Pattern) Matches(path jp.Expr) bool { return jsonpath.Match(p.Expr, path) }

var dimensionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "kind", Required: true}, {Name: "paths"}, {Name: "items"}, {Name: "keys"},
		{Name: "path"}, {Name: "ranking"}, {Name: "confidence"}, {Name: "min_confidence"}, {Name: "top_k"},
		{Name: "type"}, {Name: "scope"}, {Name: "ranking_confidence"}, {Name: "labels"}, {Name: "out_of_scope"},
	},
}

var dimensionKinds = []string{schema.KindLeaf, schema.KindItems, schema.KindLabel, schema.KindCase}

func (l *loader) pattern(attrs hcl.Attributes, name string) *Pattern {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	src := l.str(attrs, name, "")
	x, norm, err := jsonpath.Compile(src)
	if err != nil {
		l.pathError(a.Expr, src, err)
		return nil
	}
	return &Pattern{Source: norm, Expr: x}
}

func (l *loader) patterns(attrs hcl.Attributes, name string) []Pattern {
	var out []Pattern
	srcs := l.strList(attrs, name)
	if len(srcs) == 0 {
		return nil
	}
	elems, _ := hcl.ExprList(attrs[name].Expr)
	for i, src := range srcs {
		x, norm, err := jsonpath.Compile(src)
		if err != nil {
			expr := attrs[name].Expr
			if len(elems) == len(srcs) {
				expr = elems[i]
			}
			l.pathError(expr, src, err)
			continue
		}
		out = append(out, Pattern{Source: norm, Expr: x})
	}
	return out
}

func (l *loader) decodeDimension(b *hcl.Block) *Dimension {
	c, ok := l.content(b.Body, dimensionSchema)
	if !ok {
		return nil
	}
	d := &Dimension{Name: label(b), DeclRange: b.DefRange, Kind: l.str(c.Attributes, "kind", "")}
	if !slices.Contains(dimensionKinds, d.Kind) {
		l.errorf(c.Attributes["kind"].Expr.Range().Ptr(), "Unknown dimension kind", "A dimension's kind is %s; %q is none of them.%s", quoteList(dimensionKinds), d.Kind, didYouMean(d.Kind, dimensionKinds))
		return nil
	}
	need := func(attr, example string) bool {
		if _, ok := c.Attributes[attr]; !ok {
			l.errorf(b.DefRange.Ptr(), "Missing dimension attribute", "A %s dimension needs %s, e.g. %s.", d.Kind, attr, example)
			return false
		}
		return true
	}
	switch d.Kind {
	case schema.KindLeaf, schema.KindCase:
		if need("paths", `paths = ["$..ont"]`) {
			d.Paths = l.patterns(c.Attributes, "paths")
		}
	case schema.KindItems:
		if need("items", `items = "$..behavior[*]"`) { // without keys, items are compared whole (words)
			d.Items = l.pattern(c.Attributes, "items")
			d.Keys = l.strList(c.Attributes, "keys")
			d.TypeKey = l.str(c.Attributes, "type", "")
			d.Scope = nfcAll(l.strList(c.Attributes, "scope"))
			d.Collection = collectionOf(d.Items)
		}
	case schema.KindLabel:
		if need("path", `path = "$.intent.name"`) {
			d.Label = l.pattern(c.Attributes, "path")
			d.Ranking = l.pattern(c.Attributes, "ranking")
			d.Confidence = l.pattern(c.Attributes, "confidence")
			d.MinConfidence = l.number(c.Attributes, "min_confidence", 0, 0, 1)
			d.TopK = l.integer(c.Attributes, "top_k", 3, 1)
			d.RankingConfidence = l.pattern(c.Attributes, "ranking_confidence")
			d.Labels = nfcAll(l.strList(c.Attributes, "labels"))
			d.OutOfScope = norm.NFC.String(l.str(c.Attributes, "out_of_scope", ""))
		}
	}
	return d
}

// nfcAll returns ss in Unicode NFC (labels and types compare in NFC).
func nfcAll(ss []string) []string {
	for i, s := range ss {
		ss[i] = norm.NFC.String(s)
	}
	return ss
}

// collectionOf returns the array path of an items pattern of the form
// SIMPLE[*] (names and indexes, then one wildcard), or nil.
func collectionOf(p *Pattern) *Pattern {
	if p == nil || len(p.Expr) < 2 {
		return nil
	}
	var x jp.Expr
	for _, f := range p.Expr {
		if _, ok := f.(jp.Bracket); !ok {
			x = append(x, f)
		}
	}
	if _, ok := x[len(x)-1].(jp.Wildcard); !ok {
		return nil
	}
	x = x[:len(x)-1]
	if _, ok := x[0].(jp.Root); !ok {
		return nil
	}
	for _, f := range x[1:] {
		switch f.(type) {
		case jp.Child, jp.Nth:
		default:
			return nil
		}
	}
	return &Pattern{Source: x.String(), Expr: x}
}

// CollectionOf returns the items dimension whose collection path is path
// (an expectation on it lists the expected items), or nil.
func (sc *Schema) CollectionOf(path jp.Expr) *Dimension {
	if sc == nil {
		return nil
	}
	s := path.String()
	for _, d := range sc.Dimensions {
		if d.Collection != nil && d.Collection.Source == s {
			return d
		}
	}
	return nil
}

// DimensionOf returns the first dimension of kind leaf, items or case whose
// patterns match path, or nil. Label dimensions own only their label path.
func (sc *Schema) DimensionOf(path jp.Expr) *Dimension {
	if sc == nil {
		return nil
	}
	for _, d := range sc.Dimensions {
		switch d.Kind {
		case schema.KindLeaf, schema.KindCase:
			for i := range d.Paths {
				if d.Paths[i].Matches(path) {
					return d
				}
			}
		case schema.KindItems:
			if d.Items != nil {
				if _, ok := jsonpath.MatchPrefix(d.Items.Expr, path); ok {
					return d
				}
			}
		case schema.KindLabel:
			if d.Label != nil && d.Label.Matches(path) {
				return d
			}
		}
	}
	return nil
}

// Ignored reports whether a normalised path falls under one of the
// schema's ignore patterns (the path itself or anything below it).
func (sc *Schema) Ignored(path jp.Expr) bool {
	if sc == nil {
		return false
	}
	for i := range sc.Ignore {
		if _, ok := jsonpath.MatchPrefix(sc.Ignore[i].Expr, path); ok {
			return true
		}
	}
	return false
}

// DimensionByName returns the schema's dimension named name.
func (sc *Schema) DimensionByName(name string) *Dimension {
	if sc == nil {
		return nil
	}
	for _, d := range sc.Dimensions {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (d *Dimension) String() string { return fmt.Sprintf("%s (%s)", d.Name, d.Kind) }
