// Package extensions owns the one value that says what a program built on
// nlutest can read, call, measure and write: its case source kinds, target
// kinds, metric families, report renderers and importers. cmd/nlutest
// builds the default set, checks it (Validate) and passes its parts down —
// to spec.Load (source kinds, target kinds, the families' shapes), to the
// pipeline and the collector (families), to report writing (renderers)
// and to `nlutest import` (importers) — so no package keeps a registry of
// its own, and a test builds a set with its own additions without
// touching any other test.
package extensions

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/coverage"
	"github.com/nlutest/nlutest/assert/usage"
	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/dataset"
	"github.com/nlutest/nlutest/sources/memory"
	"github.com/nlutest/nlutest/sources/ranking"
	"github.com/nlutest/nlutest/sources/scenario"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// Set is one program's extension points.
type Set struct {
	// Sources are the case source kinds suites may declare (template,
	// dataset, conversation, ranking, memory…), in the order messages list
	// them.
	Sources []spec.SourceKind
	// Targets are the target kinds (http, rasa, exec, replay, demo,
	// openai…), in the order messages list them.
	Targets []targets.Kind
	// Families are the metric families, in the order of the metrics tree
	// and of the report's sections; the first four are the node families
	// (cases, dimension, label, latency).
	Families assert.Families
	// Renderers are the report formats, each a --report-NAME flag.
	Renderers []reporters.Renderer
	// Importers are the test sets `nlutest import NAME` reads (botium,
	// rasa-e2e…), in the order usage lines and messages list them.
	Importers []importer.Format
}

// Default returns the extension points nlutest ships.
func Default() *Set {
	return &Set{
		Sources:   builtinSources(),
		Targets:   targets.DefaultKinds(),
		Families:  assert.InOrder(schema.BuiltinFamilies(), builtinFamilies()),
		Renderers: reporters.DefaultRenderers(),
		Importers: importer.DefaultFormats(),
	}
}

// builtinSources are the case source kinds nlutest ships, in the order
// messages list them, each in a package of its own (sources/…); spec
// has none built in.
func builtinSources() []spec.SourceKind {
	return []spec.SourceKind{template.Kind{}, dataset.Kind{}, conversation.Kind{}, ranking.Kind{}, memory.Kind{}, scenario.Kind{}}
}

// builtinFamilies are the metric families nlutest ships: assert's and
// those in packages of their own. Default orders them by the shapes
// schema lists (the reports' order) and keeps the others after them, so a
// family needs no line outside its file but its entry in a list here or
// in assert.DefaultFamilies.
func builtinFamilies() assert.Families {
	return append(assert.DefaultFamilies(), usage.Family{}, coverage.Family{})
}

// LoadOptions returns o with the set's source kinds, target kinds,
// families' shapes and families' settings blocks: a suite loaded with
// them knows every block, kind and metrics.* name of the set.
func (x *Set) LoadOptions(o spec.Options) spec.Options {
	o.SourceKinds = x.Sources
	o.TargetKinds = targets.Decoders(x.Targets)
	o.Families = x.Families.Shapes()
	o.Settings = x.Families.SettingsBlocks()
	return o
}

// Tree returns the metrics tree's descriptor the set gives a suite (its
// families and a group per source kind): what reads back a report the
// set's program wrote.
func (x *Set) Tree() (*schema.Tree, error) {
	return spec.NewTree(x.Families.Shapes(), x.Sources)
}

// Validate reports a set whose parts do not fit together, every problem
// in one error: two target kinds, renderers or importers of one name, a
// renderer whose name cannot be a flag (--report-NAME) or that writes
// nothing, and what the metrics tree refuses (two families of one name,
// a source kind whose block type or group is taken). These are mistakes
// in the program built on nlutest, not in its user's suite or command
// line: the program checks its set once, before it reads anything
// (cmd/nlutest does, before every command), rather than crash on the
// command that first trips over it.
func (x *Set) Validate() error {
	var errs []error
	if _, err := x.Tree(); err != nil {
		errs = append(errs, err)
	}
	kinds := map[string]int{}
	for i, k := range x.Targets {
		if j, dup := kinds[k.Name()]; dup {
			errs = append(errs, fmt.Errorf("target kinds %d and %d are both named %q", j+1, i+1, k.Name()))
		}
		kinds[k.Name()] = i
	}
	names := map[string]int{}
	for i, r := range x.Renderers {
		switch j, dup := names[r.Name]; {
		case dup:
			errs = append(errs, fmt.Errorf("renderers %d and %d are both named %q, so both would be --report-%s", j+1, i+1, r.Name, r.Name))
		case !flagName.MatchString(r.Name):
			errs = append(errs, fmt.Errorf("renderer %d is named %q: a renderer's name makes the flag --report-NAME, so it is lower-case letters, digits and inner dashes", i+1, r.Name))
		case r.Write == nil:
			errs = append(errs, fmt.Errorf("renderer %q has no Write", r.Name))
		}
		names[r.Name] = i
	}
	if err := spec.CheckSettingsBlocks(x.Families.SettingsBlocks(), x.Sources); err != nil {
		errs = append(errs, fmt.Errorf("families' settings blocks: %w", err))
	}
	formats := map[string]int{}
	for i, f := range x.Importers {
		switch j, dup := formats[f.Name()]; {
		case dup:
			errs = append(errs, fmt.Errorf("importers %d and %d are both named %q, so both would be `import %s`", j+1, i+1, f.Name(), f.Name()))
		case !flagName.MatchString(f.Name()):
			errs = append(errs, fmt.Errorf("importer %d is named %q: an importer's name is the word after `nlutest import`, so it is lower-case letters, digits and inner dashes", i+1, f.Name()))
		}
		formats[f.Name()] = i
	}
	return errors.Join(errs...)
}

// flagName is what a renderer's name may be.
var flagName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
