package runner_test

// The live-run floor (issue 27, target 1): a live run as `nlutest run`
// makes it against a minimal hand-written Go client, both calling the same
// in-process loopback service with the same 20,000 utterances at
// concurrency 8, in alternating rounds within one process, so other load
// on the machine falls on both:
//
//	go test -run '^$' -bench BenchmarkRunVsClient -benchtime 1x -cpu 2 ./runner
//
// The nlutest side is what `nlutest run SUITE` does once the suite is
// loaded: pipeline.Prepare (the selection counted, the run directory
// made, run.json), the target's preflight, Execute (calls, evaluation,
// results.jsonl, metrics, a progress callback), the garbage released as
// the command releases it before a report of 8,192 results or more
// (pipeline.ReleaseGarbage) and the report built and written as
// report.json. Each round starts after a garbage collection, so
// neither side is charged for the other's garbage.
//
// It reports the median requests per second of each side over the rounds
// (NLUTEST_BENCH_ROUNDS, default 5), their ratio (nlutest / client; the
// target is at least 0.8), each side's median process CPU time per
// request (the service's share included in both), and exec-ratio: the
// ratio counting only Execute's wall time (the calls), without the
// count before and the report after.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// minimalClient sends each text as {"text": ...} to url with 8 workers
// over one keep-alive transport and reads every answer whole: the least
// a test runner must do per case.
func minimalClient(b *testing.B, url string, texts []string) {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	work := make(chan string, 64)
	var wg sync.WaitGroup
	var failed sync.Once
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for text := range work {
				body, _ := json.Marshal(map[string]string{"text": text})
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil {
					failed.Do(func() { b.Error(err) })
				}
			}
		}()
	}
	for _, t := range texts {
		work <- t
	}
	close(work)
	wg.Wait()
}

// liveRun makes a run of suite s into dir as `nlutest run` does (see the
// top of this file) and returns how long Execute took. It fails the
// benchmark unless every case passed.
func liveRun(b *testing.B, s *spec.Suite, dir string) time.Duration {
	b.Helper()
	ctx := context.Background()
	t := s.Target("")
	run, err := pipeline.Prepare(s, pipeline.Options{SuitePath: "bench.nlu.hcl", Target: t, Out: dir, Root: dir, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	caller, err := targets.NewCaller(ctx, s, t, runner.CallerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer caller.Close()
	if err := caller.Preflight(ctx); err != nil {
		b.Fatal(err)
	}
	if err := run.Resume(); err != nil {
		b.Fatal(err)
	}
	tally := map[schema.Outcome]int{} // what the command's progress line counts
	start := time.Now()
	out, err := run.Execute(ctx, caller, func(r *schema.Result) { tally[r.Outcome]++ })
	exec := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	pipeline.ReleaseGarbage(run.Collector.Total())
	rep := run.Report(out)
	if err := reporters.WriteFile(filepath.Join(dir, pipeline.ReportFile), func(w io.Writer) error { return reporters.JSON(w, rep) }); err != nil {
		b.Fatal(err)
	}
	if m := run.Collector.Metrics(); m.Passed != m.Total || m.Total != run.Counts.Total {
		b.Fatalf("%d of %d cases passed (%d errored, %d selected); the benchmark measures passing calls", m.Passed, m.Total, m.Errored, run.Counts.Total)
	}
	return exec
}

// round times fn, after a garbage collection, and returns requests per
// second and process CPU µs per request for n requests. fn runs with the
// profiler label side=SIDE, which the goroutines it starts (workers,
// connections) inherit, so a CPU profile tells the sides apart:
// go tool pprof -tagfocus side=nlutest.
func round(side string, n int, fn func()) (rps, cpuPerReq float64) {
	runtime.GC()
	cpu0, _ := cputime.Process()
	start := time.Now()
	pprof.Do(context.Background(), pprof.Labels("side", side), func(context.Context) { fn() })
	wall := time.Since(start)
	cpu1, _ := cputime.Process()
	return float64(n) / wall.Seconds(), float64((cpu1 - cpu0).Microseconds()) / float64(n)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkRunVsClient: see the top of this file.
func BenchmarkRunVsClient(b *testing.B) {
	const n = 20_000
	rounds := 5
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	srv, seen := benchService(b)
	s := benchSuite(b, n, srv.URL, "")
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("第%d次订一张去北京的机票", i)
	}
	url := srv.URL + "/model/parse"
	dir := b.TempDir()
	// One untimed call of each warms the connections and the code paths.
	minimalClient(b, url, texts[:100])
	var rps, cpu [2][]float64
	var execRPS []float64
	b.ResetTimer()
	for i := range b.N * rounds {
		r, c := round("client", n, func() { minimalClient(b, url, texts) })
		rps[0], cpu[0] = append(rps[0], r), append(cpu[0], c)
		var exec time.Duration
		r, c = round("nlutest", n, func() { exec = liveRun(b, s, filepath.Join(dir, fmt.Sprintf("run-%d", i))) })
		rps[1], cpu[1] = append(rps[1], r), append(cpu[1], c)
		execRPS = append(execRPS, float64(n)/exec.Seconds())
	}
	b.StopTimer()
	if got, want := seen.Load(), int64(100+2*n*b.N*rounds); got != want {
		b.Fatalf("the service saw %d requests, want %d", got, want)
	}
	b.ReportMetric(median(rps[0]), "client-req/s")
	b.ReportMetric(median(rps[1]), "nlutest-req/s")
	b.ReportMetric(median(rps[1])/median(rps[0]), "ratio")
	b.ReportMetric(median(execRPS)/median(rps[0]), "exec-ratio")
	b.ReportMetric(median(cpu[0]), "client-cpu-µs/req")
	b.ReportMetric(median(cpu[1]), "nlutest-cpu-µs/req")
	b.ReportMetric(0, "ns/op")
}
