package pipeline_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// varyResults rewrites a bench results file so the results differ: every
// 7th response names another relation (a failure and a wrong relation),
// every 11th has another ontology, every 13th was not JSON (a call error:
// the body recorded, no response), and latencies vary. Some responses are
// rewritten in the record's text (rawResponses): not an object, escaped,
// or given twice — eval parses a response while reading its record and
// must treat each as evaluating the response alone does. It then appends
// records that repeat earlier ids with other responses, which eval must
// ignore (the first record of an id wins).
func varyResults(t *testing.T, path string) (lines int) {
	t.Helper()
	var out bytes.Buffer
	var firsts [][]byte
	err := runner.ReadLines(path, func(line []byte, n int) error {
		var r schema.Result
		if err := r.UnmarshalJSON(line); err != nil {
			return err
		}
		switch {
		case n%13 == 0:
			r.Response, r.Body = nil, `{"code":200,"data":[`
			r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: "response is not JSON"}
		case n%7 == 0:
			r.Response = []byte(strings.Replace(pipelinetest.SeedResponse, "酒店同房间同宿", "同车", 1))
		case n%11 == 0:
			r.Response = []byte(strings.Replace(pipelinetest.SeedResponse, `"ont":"SIM_Card"`, `"ont":"Phone"`, 1))
		}
		r.LatencyMS = float64(n%97) + 0.25
		raw, vary := rawResponses[n/5%len(rawResponses)], n%13 != 0 && n%5 == 0
		if vary {
			r.Response = []byte(`{"vary":1}`)
		}
		b, err := schema.EncodeLine(&r)
		if err != nil {
			return err
		}
		if vary {
			b = bytes.Replace(b, []byte(`"response":{"vary":1}`), []byte(raw), 1)
		}
		out.Write(b)
		if n <= 40 {
			r.Response = []byte(`{"code":500}`)
			b, _ := schema.EncodeLine(&r)
			firsts = append(firsts, b)
		}
		lines++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range firsts {
		out.Write(b)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return lines
}

// rawResponses are response members (and what follows them) varyResults
// writes into records as they are.
// (A response that is not JSON is a damaged record, not a response:
// TestDamagedResponseIsALocatedError.)
var rawResponses = []string{
	`"response":{"code":200,"data":[1,2]}`,
	`"response":{"code":200,"data":[{}]}`,
	`"response":"酒店"`,
	`"response":[{"code":200}]`,
	`"response":{"code":200,"msg":"\u597d\n\"酒店\""}`,
	`"response":` + pipelinetest.SeedResponse + `,"response":null`,
	`"response":{"code":500},"response":` + pipelinetest.SeedResponse,
	`"response":` + pipelinetest.SeedResponse + `,"response":{"code":200,"data":[]}`,
	`"response":null`,
	"\"response\" : \t{ \"code\" : 200 , \"msg\":\"好\" }  ",
}

// serialEval evaluates a results file one result at a time into one
// collector: the reference the parallel replay must equal.
func serialEval(t *testing.T, s *spec.Suite, path string) *assert.Collector {
	t.Helper()
	ev, rb := assert.NewEvaluator(s), s.NewRebuilder()
	ser := assert.NewCollector(s, nil)
	seen := map[string]bool{}
	err := runner.ReadLines(path, func(line []byte, _ int) error {
		var r schema.Result
		if err := r.UnmarshalJSON(line); err != nil {
			return err
		}
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		c, ok := rb.Rebuild(&r.Case)
		if !ok {
			return fmt.Errorf("case %s does not rebuild", r.ID)
		}
		r.Case = *c
		ser.Add(&r, ev.Evaluate(&r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ser
}

// sameCollected fails t when two collectors hold different metrics, groups
// or listed cases.
func sameCollected(t *testing.T, got, want *assert.Collector) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"metrics", got.Metrics(), want.Metrics()},
		{"groups", got.Groups(), want.Groups()},
		{"cases", got.Cases(), want.Cases()},
	} {
		a, _ := json.Marshal(c.got)
		b, _ := json.Marshal(c.want)
		if !bytes.Equal(a, b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Errorf("%s differ at byte %d:\nparallel: …%s…\nserial:   …%s…", c.name, i, a[max(0, i-100):min(len(a), i+100)], b[max(0, i-100):min(len(b), i+100)])
		}
	}
}

// The parallel replay (a reader, a collector per core, merged by sequence
// number) must give exactly what evaluating the file one result at a time
// into one collector gives: metrics, groups and listed cases.
func TestEvalReplayMatchesSerialEvaluation(t *testing.T) {
	s, path, err := pipelinetest.WriteEvalBench(t.TempDir(), 3000, false)
	if err != nil {
		t.Fatal(err)
	}
	n := varyResults(t, path)

	par := assert.NewCollector(s, nil)
	stale, err := pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), par, pipeline.NewKeySet())
	if err != nil || stale != 0 {
		t.Fatalf("replay: stale %d, %v", stale, err)
	}
	ser := serialEval(t, s, path)

	if got := par.Total(); got != n {
		t.Fatalf("replay counted %d results, want %d (repeated ids ignored)", got, n)
	}
	m := par.Metrics()
	if m.Failed == 0 || m.Errored == 0 || m.Passed == 0 {
		t.Fatalf("the varied results should pass, fail and error: %+v", m.Node)
	}
	sameCollected(t, par, ser)
}

// BenchmarkEvalResults measures `nlutest eval`'s work per saved result:
// read and decode the JSONL line, rebuild the case from the suite, check 10
// expectations, compute the IAO dimensions and accumulate every metrics
// node — the same code path as the command. NLUTEST_BENCH_N sets the results per
// iteration (default 100,000; the README's target is 1,000,000 in < 10 s):
//
//	NLUTEST_BENCH_N=1000000 go test -run '^$' -bench BenchmarkEvalResults -benchtime 1x ./pipeline
func BenchmarkEvalResults(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	s, path, err := pipelinetest.WriteEvalBench(b.TempDir(), n, os.Getenv("NLUTEST_BENCH_NODIMS") != "")
	if err != nil {
		b.Fatal(err)
	}
	cpu0, cpuOK := cputime.Process()
	b.ResetTimer()
	for b.Loop() {
		ev := assert.NewEvaluator(s)
		col := assert.NewCollector(s, nil)
		if _, err := pipeline.Replay(path, ev, s.NewRebuilder(), col, pipeline.NewKeySet()); err != nil {
			b.Fatal(err)
		}
		if m := col.Metrics(); m.Passed != n {
			b.Fatalf("passed %d of %d", m.Passed, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "results/s")
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		// CPU time per result: steadier than the rate when the machine is
		// busy, and what a machine with more cores divides.
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(n*b.N), "cpu-µs/result")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEvalRecord is one replay worker's work per saved result of the
// eval bench — decode the line, rebuild the case, evaluate it — on one
// goroutine, without the reader, the collector or the bench's writing, so
// its ns/op barely moves with a busy machine (take the lowest of several):
//
//	go test -run '^$' -bench BenchmarkEvalRecord -benchtime 20000x -count 10 ./pipeline
func BenchmarkEvalRecord(b *testing.B) {
	s, path, err := pipelinetest.WriteEvalBench(b.TempDir(), 2000, false)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	if err := runner.ReadLines(path, func(line []byte, _ int) error {
		lines = append(lines, append([]byte(nil), line...))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	e := pipeline.NewEvalRecorder(assert.NewEvaluator(s), s.NewRebuilder())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if o, err := e.Eval(lines[i%len(lines)]); err != nil || o != schema.Pass {
			b.Fatal(o, err)
		}
		i++
	}
}

// Minor 6 of the 2026-12-05 security audit: a results line damaged inside
// its response was read as an InvalidJSON service error (PASS … 0 errored
// became FAIL … 1 errored, no word of the damage), and merge exited 3
// without file or line. nlutest records a response only when it is JSON
// (a service's answer that is not JSON is an InvalidJSON error with a
// body and no response), so a response or state that is not JSON is a
// damaged record: eval's replay and every reader of results
// (runner.ReadResults: merge, agreement) name its line.
func TestDamagedResponseIsALocatedError(t *testing.T) {
	const at = 520 // in the second batch of eval's reader
	for _, c := range []struct{ name, from, to string }{
		{"object", `"response":{"code":200,`, `"response":{"code"::200,`},
		{"trailing comma", `"response":{"code":200,`, `"response":{"code":200,,`},
		{"unclosed array", `"data":[{"apps"`, `"data":[}{"apps"`},
		{"string", `"response":{`, `"response":"酒店\u12",`},
		{"number", `"response":{`, `"response":01,"x":{`},
		{"given twice, the last damaged", `,"latency_ms"`, `,"response":{"a":[}],"latency_ms"`},
		{"state", `,"latency_ms"`, `,"state":{"slots":{"城市":}},"latency_ms"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, path, err := pipelinetest.WriteEvalBench(t.TempDir(), 600, true)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			if !bytes.Contains(lines[at-1], []byte(c.from)) {
				t.Fatalf("line %d holds no %s", at, c.from)
			}
			lines[at-1] = bytes.Replace(lines[at-1], []byte(c.from), []byte(c.to), 1)
			if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%s:%d: not a result record: ", path, at)
			_, err = pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), assert.NewCollector(s, nil), pipeline.NewKeySet())
			var re *runner.RecordError
			if !errors.As(err, &re) || !errors.Is(err, schema.ErrDamagedJSON) || !strings.Contains(err.Error(), want) {
				t.Errorf("replay: %v\nwant a RecordError at %s, not JSON", err, want)
			}
			n := 0
			err = runner.ReadResults(path, func(*schema.Result) error { n++; return nil })
			if !errors.As(err, &re) || !errors.Is(err, schema.ErrDamagedJSON) || !strings.Contains(err.Error(), want) || n != at-1 {
				t.Errorf("ReadResults: %v after %d records\nwant a RecordError at %s, not JSON, after %d", err, n, want, at-1)
			}
		})
	}
}
