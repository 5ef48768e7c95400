package memory

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/spec"
)

// load loads the suite at dir with the template kind and this one
// (extensions, which builds nlutest's set, imports this package, so its
// tests cannot import extensions).
func load(dir string) (*spec.Suite, hcl.Diagnostics) { return kindtest.Load(dir, Kind{}) }

// loadSuite loads one suite file and fails the test on any error.
func loadSuite(t *testing.T, src string) *spec.Suite {
	t.Helper()
	return kindtest.MustLoad(t, kindtest.Suite(src), Kind{})
}
