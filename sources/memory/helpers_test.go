package memory

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

// load loads the suite at dir with the memory kind.
func load(dir string) (*spec.Suite, hcl.Diagnostics) {
	return spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, Kind{}}})
}

// loadSuite loads one suite file and fails the test on any error.
func loadSuite(t *testing.T, src string) *spec.Suite {
	t.Helper()
	s, diags := load(writeFiles(t, map[string]string{"s.nlutest.hcl": src}))
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return s
}

// writeFiles writes files (by path relative to a new temporary
// directory) and returns the directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
