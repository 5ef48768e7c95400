package pipeline_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// largeResponse is a valid JSON answer of about size bytes whose city is
// wrong (every case fails, so the report lists each with an excerpt of
// its response), padded with Chinese text.
func largeResponse(size int) []byte {
	const head, unit = `{"city":"错误","pad":"`, "晴转多云，"
	return []byte(head + strings.Repeat(unit, size/len(unit)) + `"}`)
}

// writeLargeResults writes the first n cases of s, each answered with
// resp, to a results file and returns its path.
func writeLargeResults(t *testing.T, s *spec.Suite, n int, resp []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), runner.ResultsFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enough := errors.New("enough")
	i := 0
	err = s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		if i == n {
			return enough
		}
		i++
		b, err := schema.EncodeLine(&schema.Result{Case: *c, Target: "fake", Response: resp, Status: 200, LatencyMS: 12, Attempts: 1})
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil && err != enough || i < n {
		t.Fatalf("wrote %d of %d results: %v", i, n, err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayPeak replays a results file of n large failing results and
// returns the largest live heap a worker saw after collecting a record.
func replayPeak(t *testing.T, s *spec.Suite, n int, resp []byte) uint64 {
	t.Helper()
	path := writeLargeResults(t, s, n, resp)
	var mu sync.Mutex
	var peak uint64
	restore := pipeline.SetReplayProbe(func() {
		mu.Lock()
		defer mu.Unlock()
		runtime.GC() // what is held, not garbage waiting for the collector
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	})
	defer restore()
	col := assert.NewCollector(s, nil)
	if _, err := pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), col, pipeline.NewKeySet()); err != nil {
		t.Fatal(err)
	}
	if m := col.Metrics(); m.Failed != n {
		t.Fatalf("%d of %d results failed, want all", m.Failed, n)
	}
	// What the report keeps of each: the excerpt `run` keeps.
	for _, c := range col.Cases() {
		if len(c.Response) > col.MaxBody+len("…") || !strings.HasPrefix(c.Response, `{"city":"错误","pad":"晴转多云`) || !strings.HasSuffix(c.Response, "…") {
			t.Fatalf("case %s keeps a response of %d bytes: %.60q…", c.ID, len(c.Response), c.Response)
		}
	}
	return peak
}

// Re-reading a run (eval, merge, run --resume) holds a bounded number of
// records, whatever their number: replaying 32 results of 3 MiB holds
// about what replaying 4 of them holds, not 28 × 3 MiB more (the audit of
// 2026-12-01 saw eval of 150 results of 8 MB peak at 4.6 GB: the reader
// gathered all of them into one batch). The live heap is measured after
// each record, after a collection, so the figure does not depend on timing.
func TestReplayMemoryDoesNotGrowWithLargeResponses(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 110 MB of results")
	}
	s := weatherSuite(t, 40)
	resp := largeResponse(3 << 20)
	small := replayPeak(t, s, 4, resp)
	large := replayPeak(t, s, 32, resp)
	t.Logf("peak live heap: %.1f MiB replaying 4 results of %.1f MiB, %.1f MiB replaying 32", float64(small)/(1<<20), float64(len(resp))/(1<<20), float64(large)/(1<<20))
	if bound := small + 8*uint64(len(resp)); large > bound {
		t.Errorf("replaying 32 results of %d bytes held %d bytes at its peak, 4 of them %d: memory grows with the results read (bound %d)", len(resp), large, small, bound)
	}
}

// A record longer than the in-flight budget and than the line buffer the
// reader keeps (a target with max_response_bytes over the default) is
// read and evaluated, not refused, among ordinary ones.
func TestReplayEvaluatesARecordOverTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB of results")
	}
	s := weatherSuite(t, 40)
	path := writeLargeResults(t, s, 3, largeResponse(runner.MaxReusedLine+2<<20))
	small := writeLargeResults(t, s, 40, []byte(`{"city":"错误"}`))
	b, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil { // 3 ids again (ignored), 37 new
		t.Fatal(err)
	}
	f.Close()
	col := assert.NewCollector(s, nil)
	if _, err := pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), col, pipeline.NewKeySet()); err != nil {
		t.Fatal(err)
	}
	if m := col.Metrics(); m.Failed != 40 || m.Total != 40 {
		t.Fatalf("%d of %d results failed, want 40 of 40", m.Failed, m.Total)
	}
	cut := 0
	for _, c := range col.Cases() {
		if strings.HasSuffix(c.Response, "…") && len(c.Response) <= col.MaxBody+len("…") {
			cut++
		}
	}
	if cut != 3 {
		t.Errorf("%d cases keep an excerpt of their response, want the 3 long ones", cut)
	}
}

// A bug while evaluating a record (here a panic in the probe) is that
// record's error, and the replay ends (the reader, which may be waiting
// for the in-flight budget, is let go) instead of hanging.
func TestReplayPanicIsTheRecordsError(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB of results")
	}
	s := weatherSuite(t, 40)
	path := writeLargeResults(t, s, 20, largeResponse(3<<20))
	defer pipeline.SetReplayProbe(func() { panic("探针") })()
	_, err := pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), assert.NewCollector(s, nil), pipeline.NewKeySet())
	if err == nil || !strings.Contains(err.Error(), "results.jsonl:1: internal error evaluating this record: 探针") {
		t.Fatalf("got %v, want line 1's internal error", err)
	}
}
