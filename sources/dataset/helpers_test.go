package dataset

import (
	"runtime"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// load loads the suite at dir with the template kind and this one
// (extensions, which builds nlutest's set, imports this package, so its
// tests cannot import extensions).
func load(dir string) (*spec.Suite, hcl.Diagnostics) { return kindtest.Load(dir, Kind{}) }

// genSuite loads one suite file and fails the test on any error.
func genSuite(t *testing.T, src string, files ...string) *spec.Suite {
	t.Helper()
	m := map[string]string{"s.nlutest.hcl": src}
	for i := 0; i+1 < len(files); i += 2 {
		m[files[i]] = files[i+1]
	}
	return kindtest.MustLoad(t, m, Kind{})
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
