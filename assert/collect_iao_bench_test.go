package assert_test

import (
	"errors"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// BenchmarkEvaluateCollectIAO measures the part of `nlutest eval`'s work
// per result that evaluation and metrics do, on the 1,000,000-result
// bench's data (pipelinetest.BenchSuite: IAO schema, 5 dimensions, 10
// expectations, 8 metrics nodes per result; the IAO corpus-factory
// write-up's response): Evaluate, Collector.Add and Release, in one
// goroutine, without reading or decoding records. Its CPU time is what
// the process's user + sys time shows:
//
//	go test -c -o /tmp/assert.test ./assert
//	/usr/bin/time -f '%U+%S s' /tmp/assert.test -test.run '^$' -test.bench EvaluateCollectIAO -test.benchtime 300000x -test.cpu 1
func BenchmarkEvaluateCollectIAO(b *testing.B) {
	ev, col, rs := iaoBench(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := &rs[i%len(rs)]
		i++
		e := ev.Evaluate(r)
		col.Add(r, e)
		e.Release()
	}
	if m := col.Metrics(); m.Passed != i {
		b.Fatalf("passed %d of %d", m.Passed, i)
	}
}

// BenchmarkEvaluateParsedCollectIAO is BenchmarkEvaluateCollectIAO as
// eval's replay workers do it: the response is parsed before (by the
// reader), so only EvaluateParsed, Collector.Add and Release are timed.
// Every result of the bench has the same response, parsed once here.
func BenchmarkEvaluateParsedCollectIAO(b *testing.B) {
	ev, col, rs := iaoBench(b)
	var doc jsondoc.Doc
	if err := doc.Parse(rs[0].Response); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := &rs[i%len(rs)]
		i++
		e := ev.EvaluateParsed(r, &doc)
		col.Add(r, e)
		e.Release()
	}
	if m := col.Metrics(); m.Passed != i {
		b.Fatalf("passed %d of %d", m.Passed, i)
	}
}

// iaoBench is the evaluator, collector and 4,096 results of the
// 1,000,000-result bench's suite, each with the bench's response.
func iaoBench(b *testing.B) (*assert.Evaluator, *assert.Collector, []schema.Result) {
	s := benchSuite(b)
	enough := errors.New("enough")
	var rs []schema.Result
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		rs = append(rs, schema.Result{Case: *c, Target: "iao", Response: []byte(pipelinetest.SeedResponse), Status: 200,
			LatencyMS: float64(len(rs)%500) / 10, Attempts: 1})
		if len(rs) == 4096 {
			return enough
		}
		return nil
	})
	if err != nil && err != enough {
		b.Fatal(err)
	}
	return assert.NewEvaluator(s), assert.NewCollector(s, nil), rs
}
