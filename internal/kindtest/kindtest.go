// Package kindtest holds what the tests of the source kinds' packages
// (sources/*) share: loading a suite with the template kind and the kind
// under test, writing a suite's files into a temporary directory, and
// finding diagnostics by summary and place. Those tests cannot import
// extensions (which imports every kind), and spec's own test helpers are
// internal to spec's tests; without this package each kind's tests kept
// a copy. It is imported by tests only.
package kindtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// Load loads the suite at dir with the template kind and kinds.
func Load(dir string, kinds ...spec.SourceKind) (*spec.Suite, hcl.Diagnostics) {
	return spec.Load(dir, spec.Options{SourceKinds: append([]spec.SourceKind{template.Kind{}}, kinds...)})
}

// MustLoad writes files (WriteFiles), loads the suite there with the
// template kind and kinds, and fails the test on any error.
func MustLoad(t testing.TB, files map[string]string, kinds ...spec.SourceKind) *spec.Suite {
	t.Helper()
	s, diags := Load(WriteFiles(t, files), kinds...)
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return s
}

// Suite is the files of a one-file suite: src as s.nlutest.hcl.
func Suite(src string) map[string]string {
	return map[string]string{"s" + spec.FileSuffix: src}
}

// WriteSuite writes src as s.nlutest.hcl in a new temporary directory and
// returns the directory.
func WriteSuite(t testing.TB, src string) string {
	t.Helper()
	return WriteFiles(t, Suite(src))
}

// WriteFiles writes files (by path relative to a new temporary
// directory) and returns the directory.
func WriteFiles(t testing.TB, files map[string]string) string {
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

// FindDiag is the first diagnostic with the summary, or nil.
func FindDiag(diags hcl.Diagnostics, summary string) *hcl.Diagnostic {
	for _, d := range diags {
		if d.Summary == summary {
			return d
		}
	}
	return nil
}

// ErrorPlaces lists the errors as SUMMARY@FILE:LINE (the file's base
// name; "-" for an error without a place).
func ErrorPlaces(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		place := "-"
		if d.Subject != nil {
			f := d.Subject.Filename
			if i := strings.LastIndexAny(f, `/\`); i >= 0 {
				f = f[i+1:]
			}
			place = fmt.Sprintf("%s:%d", f, d.Subject.Start.Line)
		}
		out = append(out, d.Summary+"@"+place)
	}
	return out
}
