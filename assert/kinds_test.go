package assert

import (
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/ranking"
	"github.com/nlutest/nlutest/sources/scenario"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// testSourceKinds are the case source kinds assert's tests load suites
// with: extensions.Default's, listed here because extensions imports
// assert (an internal test of assert cannot import it).
func testSourceKinds() []spec.SourceKind {
	return []spec.SourceKind{template.Kind{}, conversation.Kind{}, ranking.Kind{}, scenario.Kind{}}
}
