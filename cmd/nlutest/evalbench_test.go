package main

import (
	"os"
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/spec"
)

// writeEvalBench writes the eval bench's suite and run directory under dir
// (pipelinetest.WriteEvalBench).
func writeEvalBench(dir string, n int, noDims bool) (*spec.Suite, string, error) {
	return pipelinetest.WriteEvalBench(dir, n, noDims)
}

// TestWriteEvalBench writes the eval bench's suite and run directory to
// $NLUTEST_BENCH_RUN (NLUTEST_BENCH_N results, default 1,000,000), for
// timing the command itself (docs/performance.md):
//
//	NLUTEST_BENCH_RUN=/tmp/eval-1m go test ./cmd/nlutest -run TestWriteEvalBench
//	go build -o /tmp/nlutest ./cmd/nlutest && /usr/bin/time -v /tmp/nlutest eval /tmp/eval-1m/run
//
// BenchmarkEvalResults (pipeline/replay_test.go) times the replay itself.
func TestWriteEvalBench(t *testing.T) {
	dir := os.Getenv("NLUTEST_BENCH_RUN")
	if dir == "" {
		t.Skip("set NLUTEST_BENCH_RUN=DIR to write the eval bench there")
	}
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	if _, _, err := writeEvalBench(dir, n, os.Getenv("NLUTEST_BENCH_NODIMS") != ""); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d results to %s/run", n, dir)
}
