package pipeline_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline"
)

// BenchmarkReplayReader is eval's reader alone — reading the lines, keying
// them, the key set, batching — over 300,000 records of 1.8 KB with random
// generated ids (NLUTEST_BENCH_N sets the count; a million makes the key
// set's table 16 MB, as the eval bench's), the workers' side only handing
// the batches back. cpu-ns/line is the process's CPU time per line:
//
//	go test -run '^$' -bench BenchmarkReplayReader -benchtime 3x ./pipeline
func BenchmarkReplayReader(b *testing.B) {
	n := 300_000
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	path := filepath.Join(b.TempDir(), "results.jsonl")
	rng := rand.New(rand.NewPCG(27, 6))
	pad := strings.Repeat("酒店同房间", 110)
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `{"id":"%016x","suite":"iao-bench","text":"查询%d的酒店同房间人员","response":{"msg":"%s"},"latency_ms":0}`+"\n", rng.Uint64(), i, pad)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	cpu0, cpuOK := cputime.Process()
	b.ResetTimer()
	for b.Loop() {
		if err := pipeline.ReadReplay(path); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(n*b.N), "cpu-ns/line")
	}
}
