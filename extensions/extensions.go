// Package extensions owns the one value that says what a program built on
// nlutest can read, call, measure and write: its case source kinds, target
// kinds, metric families and report renderers. cmd/nlutest builds the
// default set and passes its parts down — to spec.Load (source kinds,
// target kinds, the families' shapes), to the pipeline and the collector
// (families) and to report writing (renderers) — so no package keeps a
// registry of its own, and a test builds a set with its own additions
// without touching any other test.
package extensions

import (
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/coverage"
	"github.com/nlutest/nlutest/assert/usage"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
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
}

// Default returns the extension points nlutest ships.
func Default() *Set {
	return &Set{
		Sources:   spec.DefaultSourceKinds(),
		Targets:   targets.DefaultKinds(),
		Families:  assert.Ordered(schema.BuiltinFamilies(), append(assert.DefaultFamilies(), usage.Family{}, coverage.Family{})),
		Renderers: reporters.DefaultRenderers(),
	}
}

// LoadOptions returns o with the set's source kinds, target kinds and
// families' shapes: a suite loaded with them knows every block, kind and
// metrics.* name of the set.
func (x *Set) LoadOptions(o spec.Options) spec.Options {
	o.SourceKinds = x.Sources
	o.TargetKinds = targets.Decoders(x.Targets)
	o.Families = x.Families.Shapes()
	return o
}

// Tree returns the metrics tree's descriptor the set gives a suite (its
// families and a group per source kind): what reads back a report the
// set's program wrote.
func (x *Set) Tree() (*schema.Tree, error) {
	return spec.NewTree(x.Families.Shapes(), x.Sources)
}
