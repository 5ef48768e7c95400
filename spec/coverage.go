package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/botmodel"
	"github.com/zclconf/go-cty/cty"
)

// This file is the coverage block: the bot's own model (a Rasa domain,
// its NLU data and flows, or a plain list of items for another engine)
// whose items metrics.coverage counts as exercised by the suite or not
// (docs/language.md#coverage; the family is assert/coverage).
//
//	coverage {
//	  domain = "domain.yml"          # a file or a directory; or a list
//	  nlu    = "data/nlu.yml"
//	  flows  = "data/flows"
//	  items  = "items.yml"           # the plain list, for other engines
//	}

// Coverage is the suite's coverage block.
type Coverage struct {
	// Paths are the files named, resolved from the suite file.
	Paths botmodel.Paths
	// Model is the bot's model they declare.
	Model *botmodel.Model
	// IntentDimension and EntityDimension name the schema's label
	// dimension whose expected labels are intents and items dimension
	// whose expected items' types are entities ("intent" and "entity",
	// as the rasa schema names them).
	IntentDimension, EntityDimension string
	DeclRange                        hcl.Range

	memoOnce sync.Once
	memo     any
}

// Memo returns what build derives from the block, built once: the
// coverage family's index of the suite, shared by every node's
// accumulator.
func (c *Coverage) Memo(build func() any) any {
	c.memoOnce.Do(func() { c.memo = build() })
	return c.memo
}

var coverageSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "domain"}, {Name: "nlu"}, {Name: "flows"}, {Name: "items"},
	{Name: "intent_dimension"}, {Name: "entity_dimension"},
}}

// decodeCoverage reads the coverage block (at most one).
func (l *loader) decodeCoverage(blocks []*hcl.Block) {
	if len(blocks) == 0 {
		return
	}
	for _, extra := range blocks[1:] {
		l.errorf(extra.DefRange.Ptr(), "Duplicate coverage block", "A suite has one coverage block; the first is at %s.", rangeString(blocks[0].DefRange))
	}
	b := blocks[0]
	before := len(l.diags)
	c, ok := l.content(b.Body, coverageSchema)
	if !ok {
		return
	}
	cov := &Coverage{DeclRange: b.DefRange,
		IntentDimension: l.str(c.Attributes, "intent_dimension", "intent"),
		EntityDimension: l.str(c.Attributes, "entity_dimension", "entity")}
	cov.Paths.Domain = l.coveragePaths(c.Attributes["domain"], "domain")
	cov.Paths.NLU = l.coveragePaths(c.Attributes["nlu"], "NLU data")
	cov.Paths.Flows = l.coveragePaths(c.Attributes["flows"], "flows")
	cov.Paths.Items = l.coveragePaths(c.Attributes["items"], "items list")
	if _, ok := c.Attributes["domain"]; !ok {
		if _, ok := c.Attributes["items"]; !ok {
			l.errorf(b.DefRange.Ptr(), "Coverage without a model", "A coverage block names the bot's model it counts: domain = \"domain.yml\" (a Rasa domain, with nlu and flows if you have them), or items = \"items.yml\" (a plain list of intents, entities, slots, responses and actions, for another engine).")
			return
		}
	}
	l.checkCoverageDims(cov, c.Attributes)
	if l.diags[before:].HasErrors() {
		l.suite.Coverage = cov
		return
	}
	m, diags := botmodel.Load(cov.Paths, func(p string) ([]byte, error) {
		b, _, err := l.suite.Access.Read("", p, MaxSuiteFileBytes)
		return b, err
	})
	for f, src := range m.Sources {
		l.suite.Sources[f] = src
	}
	l.diags = append(l.diags, diags...)
	cov.Model = m
	l.suite.Coverage = cov
}

// coveragePaths reads a path attribute (a string or a list of strings),
// resolved from the suite file's directory and checked under the suite's
// file rules: a file, or a directory inside the suite directory.
func (l *loader) coveragePaths(a *hcl.Attribute, what string) []string {
	if a == nil {
		return nil
	}
	var rels []string
	if v, diags := a.Expr.Value(l.staticCtx()); !diags.HasErrors() && v.Type() == cty.String {
		rels = []string{l.str(hcl.Attributes{a.Name: a}, a.Name, "")}
	} else {
		rels = l.strList(hcl.Attributes{a.Name: a}, a.Name)
	}
	var out []string
	for _, rel := range rels {
		if rel == "" {
			l.errorf(a.Expr.Range().Ptr(), "Empty path", "%s names a file or directory; it is empty.", a.Name)
			continue
		}
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(a.Range.Filename), rel)
		}
		if !l.checkCoveragePath(a.Expr.Range(), what, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// checkCoveragePath checks a file as checkPath does, or a directory: that
// it exists and, unless --allow-outside, is inside the suite directory.
func (l *loader) checkCoveragePath(rng hcl.Range, what, p string) bool {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		if errors.Is(err, fs.ErrNotExist) {
			l.errorf(&rng, "Cannot read "+what, "%s does not exist. The path is resolved from the directory of the suite file that names it.", p)
			return false
		}
		return l.checkPath(rng, what, p, MaxSuiteFileBytes, true)
	}
	if !l.suite.Access.AllowOutside {
		if err := l.suite.Access.inside(p); err != nil {
			l.errorf(&rng, "Cannot read "+what, "%s.", FileError(err))
			return false
		}
	}
	return true
}

// checkCoverageDims checks the dimensions the block names: a label and an
// items dimension of the suite's schema, when it names them (the defaults
// may be absent: a webhook suite reads intents from the tracker).
func (l *loader) checkCoverageDims(cov *Coverage, attrs hcl.Attributes) {
	for _, d := range []struct {
		attr, name, kind string
	}{{"intent_dimension", cov.IntentDimension, schema.KindLabel}, {"entity_dimension", cov.EntityDimension, schema.KindItems}} {
		a, ok := attrs[d.attr]
		if !ok {
			continue
		}
		var dim *Dimension
		var names []string
		if sc := l.suite.Schema; sc != nil {
			for _, x := range sc.Dimensions {
				names = append(names, x.Name)
				if x.Name == d.name {
					dim = x
				}
			}
		}
		switch {
		case dim == nil:
			l.errorf(a.Expr.Range().Ptr(), "Unknown dimension", "%s names a %s dimension of the suite's schema; the schema has no dimension %q.%s", d.attr, d.kind, d.name, didYouMean(d.name, names))
		case dim.Kind != d.kind:
			l.errorf(a.Expr.Range().Ptr(), "Wrong kind of dimension", "%s names a %s dimension; %q is a %s dimension.", d.attr, d.kind, d.name, dim.Kind)
		}
	}
}
