package dataset

import (
	"fmt"
	"github.com/nlutest/nlutest/sources/template"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The helpers of the package's tests: a suite loads with spec's source
// kinds and this one (extensions, which builds nlutest's set, imports
// this package, so its tests cannot import extensions).

// load loads the suite at dir with the dataset kind.
func load(dir string) (*spec.Suite, hcl.Diagnostics) {
	return spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, Kind{}}})
}

// genSuite loads one suite file and fails the test on any error.
func genSuite(t *testing.T, src string, files ...string) *spec.Suite {
	t.Helper()
	m := map[string]string{"s.nlutest.hcl": src}
	for i := 0; i+1 < len(files); i += 2 {
		m[files[i]] = files[i+1]
	}
	s, diags := load(writeFiles(t, m))
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	return s
}

// genCases returns every case of the suite, and the warnings.
func genCases(t *testing.T, s *spec.Suite, opts spec.GenOptions) ([]*schema.Case, []string) {
	t.Helper()
	var warns []string
	opts.Warn = func(_ hcl.Range, msg string) { warns = append(warns, msg) }
	var out []*schema.Case
	if err := s.Generate(opts, func(c *schema.Case) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out, warns
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

// findDiag is the first diagnostic with the summary, or nil.
func findDiag(diags hcl.Diagnostics, summary string) *hcl.Diagnostic {
	for _, d := range diags {
		if d.Summary == summary {
			return d
		}
	}
	return nil
}

// errorPlaces lists the errors as SUMMARY@FILE:LINE.
func errorPlaces(diags hcl.Diagnostics) []string {
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

// reportPeak reports the Go runtime's peak view of memory obtained from the
// OS as MB-sys and, on Linux, the process's peak RSS as MB-maxrss.
func reportPeak(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MB-sys")
	if rss, ok := maxRSS(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "MB-maxrss")
	}
}
