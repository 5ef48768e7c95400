package assert_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/schema"
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
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(pipelinetest.BenchSuite), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
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
	b.ResetTimer()
	for b.Loop() {
		if cs := col.Cases(); len(cs) == 0 {
			b.Fatal("no cases")
		}
	}
}
