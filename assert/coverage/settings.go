package coverage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/botmodel"
	"github.com/zclconf/go-cty/cty"
)

// This file is the coverage block, the family's settings block
// (spec.SettingsBlock): the bot's own model (a Rasa domain, its NLU data
// and flows, or a plain list of items for another engine) whose items
// metrics.coverage counts as exercised by the suite or not
// (docs/language.md#coverage).
//
//	coverage {
//	  domain = "domain.yml"          # a file or a directory; or a list
//	  nlu    = "data/nlu.yml"
//	  flows  = "data/flows"
//	  items  = "items.yml"           # the plain list, for other engines
//	}

// Block is the coverage block's type.
const Block = "coverage"

// Settings is the suite's coverage block.
type Settings struct {
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

// Of returns the coverage block s was loaded with (or a command set,
// SetOf), nil without one.
func Of(s *spec.Suite) *Settings {
	if s == nil {
		return nil
	}
	c, _ := s.Settings(Block).(*Settings)
	return c
}

// SetOf makes c the suite's coverage settings: the coverage command's
// --domain and --items name the model instead of the suite's block.
func SetOf(s *spec.Suite, c *Settings) { s.SetSettings(Block, c) }

// Memo returns what build derives from the block, built once: the
// coverage family's index of the suite, shared by every node's
// accumulator.
func (c *Settings) Memo(build func() any) any {
	c.memoOnce.Do(func() { c.memo = build() })
	return c.memo
}

// Settings declares the family's coverage block.
func (Family) Settings() spec.SettingsBlock { return settingsBlock{} }

// settingsBlock decodes the coverage block.
type settingsBlock struct{}

func (settingsBlock) Block() string { return Block }

// Default is no coverage: a suite without the block has no model.
func (settingsBlock) Default() any { return nil }

var coverageSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "domain"}, {Name: "nlu"}, {Name: "flows"}, {Name: "items"},
	{Name: "intent_dimension"}, {Name: "entity_dimension"},
}}

// Decode reads the coverage block and loads the model it names.
func (settingsBlock) Decode(d *spec.Decoder, b *hcl.Block) any {
	s := d.Suite()
	errs := d.Errors()
	c, ok := d.Content(b, coverageSchema)
	if !ok {
		return nil
	}
	cov := &Settings{DeclRange: b.DefRange,
		IntentDimension: d.String(c.Attributes, "intent_dimension", "intent"),
		EntityDimension: d.String(c.Attributes, "entity_dimension", "entity")}
	cov.Paths.Domain = coveragePaths(d, c.Attributes["domain"], "domain")
	cov.Paths.NLU = coveragePaths(d, c.Attributes["nlu"], "NLU data")
	cov.Paths.Flows = coveragePaths(d, c.Attributes["flows"], "flows")
	cov.Paths.Items = coveragePaths(d, c.Attributes["items"], "items list")
	if _, ok := c.Attributes["domain"]; !ok {
		if _, ok := c.Attributes["items"]; !ok {
			d.Errorf(b.DefRange.Ptr(), "Coverage without a model", "A coverage block names the bot's model it counts: domain = \"domain.yml\" (a Rasa domain, with nlu and flows if you have them), or items = \"items.yml\" (a plain list of intents, entities, slots, responses and actions, for another engine).")
			return nil
		}
	}
	checkCoverageDims(d, cov, c.Attributes)
	if d.Errors() > errs {
		return cov
	}
	m, diags := botmodel.Load(cov.Paths, func(p string) ([]byte, error) {
		b, _, err := s.Access.Read("", p, spec.MaxSuiteFileBytes)
		return b, err
	})
	for f, src := range m.Sources {
		s.Sources[f] = src
	}
	d.Report(diags...)
	cov.Model = m
	return cov
}

// coveragePaths reads a path attribute (a string or a list of strings),
// resolved from the suite file's directory and checked under the suite's
// file rules: a file, or a directory inside the suite directory.
func coveragePaths(d *spec.Decoder, a *hcl.Attribute, what string) []string {
	if a == nil {
		return nil
	}
	var rels []string
	if v, diags := a.Expr.Value(d.StaticContext()); !diags.HasErrors() && v.Type() == cty.String {
		rels = []string{d.String(hcl.Attributes{a.Name: a}, a.Name, "")}
	} else {
		rels = d.Strings(hcl.Attributes{a.Name: a}, a.Name)
	}
	var out []string
	for _, rel := range rels {
		if rel == "" {
			d.Errorf(a.Expr.Range().Ptr(), "Empty path", "%s names a file or directory; it is empty.", a.Name)
			continue
		}
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(a.Range.Filename), rel)
		}
		if !checkCoveragePath(d, a.Expr.Range(), what, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// checkCoveragePath checks a file as Decoder.CheckFile does, or a
// directory: that it exists and, unless --allow-outside, is inside the
// suite directory.
func checkCoveragePath(d *spec.Decoder, rng hcl.Range, what, p string) bool {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		if errors.Is(err, fs.ErrNotExist) {
			d.Errorf(&rng, "Cannot read "+what, "%s does not exist. The path is resolved from the directory of the suite file that names it.", p)
			return false
		}
		return d.CheckFile(rng, what, p, spec.MaxSuiteFileBytes, true)
	}
	access := d.Suite().Access
	if !access.AllowOutside {
		if err := access.Inside(p); err != nil {
			d.Errorf(&rng, "Cannot read "+what, "%s.", spec.FileError(err))
			return false
		}
	}
	return true
}

// checkCoverageDims checks the dimensions the block names: a label and an
// items dimension of the suite's schema, when it names them (the defaults
// may be absent: a webhook suite reads intents from the tracker).
func checkCoverageDims(d *spec.Decoder, cov *Settings, attrs hcl.Attributes) {
	for _, x := range []struct {
		attr, name, kind string
	}{{"intent_dimension", cov.IntentDimension, schema.KindLabel}, {"entity_dimension", cov.EntityDimension, schema.KindItems}} {
		a, ok := attrs[x.attr]
		if !ok {
			continue
		}
		var dim *spec.Dimension
		var names []string
		if sc := d.Suite().Schema; sc != nil {
			for _, y := range sc.Dimensions {
				names = append(names, y.Name)
				if y.Name == x.name {
					dim = y
				}
			}
		}
		switch {
		case dim == nil:
			d.Errorf(a.Expr.Range().Ptr(), "Unknown dimension", "%s names a %s dimension of the suite's schema; the schema has no dimension %q.%s", x.attr, x.kind, x.name, spec.DidYouMean(x.name, names))
		case dim.Kind != x.kind:
			d.Errorf(a.Expr.Range().Ptr(), "Wrong kind of dimension", "%s names a %s dimension; %q is a %s dimension.", x.attr, x.kind, x.name, dim.Kind)
		}
	}
}
