package assert_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// BenchmarkCollectorCases measures Collector.Cases — sorting the listed
// cases and making their reports, the longest step of building the report
// of the 1,000,000-result eval bench — on 200,000 listed passing cases of
// the bench's suite (what that report lists). With -test.cpu 1 it works
// in one piece, with -test.cpu 2 in two halves at once:
//
//	go test -run '^$' -bench CollectorCases -benchtime 10x -cpu 1,2 ./assert
func BenchmarkCollectorCases(b *testing.B) {
	col := benchCollector(b, benchSuite(b))
	b.ResetTimer()
	for b.Loop() {
		if cs := col.Cases(); len(cs) == 0 {
			b.Fatal("no cases")
		}
	}
}

// BenchmarkReportAfterResults measures what follows the results of the
// 1,000,000-result eval bench, on the same 200,000 results as
// BenchmarkCollectorCases: BuildReport (metrics, thresholds, groups, the
// listed cases sorted) and report.json's rendering (reporters.JSON into
// io.Discard: no file, no fsync) of the report built once:
//
//	go test -run '^$' -bench ReportAfterResults -benchtime 10x -cpu 1,2 ./assert
func BenchmarkReportAfterResults(b *testing.B) {
	s := benchSuite(b)
	col := benchCollector(b, s)
	b.Run("BuildReport", func(b *testing.B) {
		withCPU(b, func() {
			if rep := assert.BuildReport(s, col, schema.RunInfo{}, "dev", nil); rep.NumCases() == 0 {
				b.Fatal("no cases")
			}
		})
	})
	rep := assert.BuildReport(s, col, schema.RunInfo{}, "dev", nil)
	b.Run("JSON", func(b *testing.B) {
		withCPU(b, func() {
			if err := reporters.JSON(io.Discard, rep); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// withCPU runs fn b.N times and reports, besides the wall time, the CPU
// time of the whole process per call (cpu-ms/op, every core's), which a
// busy machine inflates less than the wall time.
func withCPU(b *testing.B, fn func()) {
	cpu0, ok := cputime.Process()
	for b.Loop() {
		fn()
	}
	if cpu1, ok1 := cputime.Process(); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}

func benchSuite(b *testing.B) *spec.Suite {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(pipelinetest.BenchSuite), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	return s
}

// benchCollector is a collector of the first 200,000 cases of the eval
// bench's suite, passing.
func benchCollector(b *testing.B, s *spec.Suite) *assert.Collector {
	const n = 200000
	enough := errors.New("enough")
	var rs []schema.Result
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		rs = append(rs, schema.Result{Case: *c, Target: "iao", Response: []byte(pipelinetest.SeedResponse), Status: 200,
			LatencyMS: float64(len(rs)%500) / 10, Attempts: 1})
		if len(rs) == n {
			return enough
		}
		return nil
	})
	if err != nil && err != enough {
		b.Fatal(err)
	}
	ev := assert.NewEvaluator(s)
	col := assert.NewCollector(s, nil)
	for i := range rs {
		e := ev.Evaluate(&rs[i])
		col.Add(&rs[i], e)
		e.Release()
	}
	rs = nil
	runtime.GC()
	return col
}
