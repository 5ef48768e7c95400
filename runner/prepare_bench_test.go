package runner_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
)

// BenchmarkPrepareLive times pipeline.Prepare of BenchmarkRunVsClient's
// 20,000-case suite (the selection counted, the run directory and
// run.json, the evaluator and collector), one run directory per op:
//
//	go test -run '^$' -bench BenchmarkPrepareLive -benchmem ./runner
func BenchmarkPrepareLive(b *testing.B) {
	s := benchSuite(b, 20_000, "http://127.0.0.1:9", "")
	t := s.Target("")
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		run, err := pipeline.Prepare(s, pipeline.Options{SuitePath: "bench.nlu.hcl", Target: t,
			Out: filepath.Join(dir, fmt.Sprintf("run-%d", i)), Root: dir, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		run.Close()
	}
}
