package scenario

import (
	"github.com/nlutest/nlutest/sources/template"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
)

// The helpers of the package's tests: a suite loads with spec's source
// kinds and this one (extensions, which builds nlutest's set, imports
// this package, so its tests cannot import extensions).

// load loads the suite at dir with the scenario kind.
func load(dir string) (*spec.Suite, hcl.Diagnostics) {
	return spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, Kind{}}})
}

// loadAnnotSuite loads one suite file and fails the test on any error.
func loadAnnotSuite(t *testing.T, src string) *spec.Suite {
	t.Helper()
	s, diags := load(writeSuite(t, src))
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return s
}

// writeSuite writes src as s.nlutest.hcl in a new temporary directory
// and returns the directory.
func writeSuite(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
