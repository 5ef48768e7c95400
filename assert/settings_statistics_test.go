package assert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// loadSettings loads src (one suite file, x.nlutest.hcl) with the default
// families' settings blocks and returns the suite, its diagnostics'
// summaries joined by "|" and the diagnostics as validate prints them.
func loadSettings(t *testing.T, src string) (*spec.Suite, string, []byte) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, Settings: DefaultFamilies().SettingsBlocks()})
	var out bytes.Buffer
	var sources map[string][]byte
	if s != nil {
		sources = s.Sources
	}
	diagfmt.Write(&out, diags, sources, false)
	var sums []string
	for _, d := range diags {
		sums = append(sums, d.Summary)
	}
	return s, strings.Join(sums, "|"), out.Bytes()
}

// The statistics block sets the intervals' confidence, resamples and
// seed; without it the defaults apply; a bad value is a located error
// that says what is allowed.
func TestStatisticsBlock(t *testing.T) {
	const head = "suite \"统计\" {}\n"
	for _, c := range []struct {
		name, block string
		want        Statistics
		summary     string // wanted among the diagnostics' summaries
		detail      string // wanted in the printed diagnostics
	}{
		{"defaults", "", Statistics{Confidence: 0.95, Resamples: 1000, Seed: infer.DefaultSeed}, "", ""},
		{"all set", "statistics {\n  confidence = 0.9\n  resamples = 2000\n  seed = 18446744073709551615\n}\n",
			Statistics{Confidence: 0.9, Resamples: 2000, Seed: 18446744073709551615}, "", ""},
		{"confidence 1", "statistics {\n  confidence = 1\n}\n", Statistics{}, "Value out of range", "strictly between 0 and 1"},
		{"confidence 95", "statistics {\n  confidence = 95\n}\n", Statistics{}, "Value out of range", "between 0 and 1"},
		{"too few resamples", "statistics {\n  resamples = 10\n}\n", Statistics{}, "Value out of range", "at least 100"},
		{"too many resamples", "statistics {\n  resamples = 1000000\n}\n", Statistics{}, "Value out of range", "between 100 and 100000"},
		{"fractional resamples", "statistics {\n  resamples = 1000.5\n}\n", Statistics{}, "Whole number required", ""},
		{"seed 0", "statistics {\n  seed = 0\n}\n", Statistics{}, "Invalid seed", "from 1 to 18446744073709551615"},
		{"seed too large", "statistics {\n  seed = 18446744073709551616\n}\n", Statistics{}, "Invalid seed", ""},
		{"seed text", "statistics {\n  seed = \"abc\"\n}\n", Statistics{}, "Incorrect attribute value type", "must be a number"},
		{"unknown attribute", "statistics {\n  resampels = 2000\n}\n", Statistics{}, "Unsupported argument", "resamples"},
		{"two blocks", "statistics {}\nstatistics {}\n", Statistics{}, "Duplicate statistics block", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, sums, out := loadSettings(t, head+c.block)
			if c.summary == "" {
				if sums != "" {
					t.Fatalf("diagnostics: %s", out)
				}
				got := StatisticsOf(s)
				got.DeclRange = Statistics{}.DeclRange
				if got != c.want {
					t.Errorf("got %+v, want %+v", got, c.want)
				}
				return
			}
			if !strings.Contains(sums, c.summary) || !strings.Contains(string(out), c.detail) {
				t.Errorf("want %q (%q), got:\n%s", c.summary, c.detail, out)
			}
			if !strings.Contains(string(out), "x.nlutest.hcl:") {
				t.Errorf("no location:\n%s", out)
			}
		})
	}
}
