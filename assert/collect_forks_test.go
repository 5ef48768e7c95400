package assert

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// TestForksListNoMoreThanTheReportKeeps: forks fed disjoint batches in
// the run's order (as eval's workers are) stop listing
// passing cases once the others have listed enough before them, so
// together they hold about schema.MaxReportCases passing cases rather
// than that many each — and the merge still lists exactly the first
// schema.MaxReportCases passing cases and every failing one.
func TestForksListNoMoreThanTheReportKeeps(t *testing.T) {
	if underRace {
		t.Skip("200,000 results: the race detector adds minutes; TestForkBoundConcurrent covers the concurrency")
	}
	s := forkSuite(t)
	const n = 2*schema.MaxReportCases + 1000
	base := NewCollector(s, nil)
	forks := []*Collector{base.Fork(), base.Fork()}
	// Batches of 512 to each fork in turn, as eval's workers take them
	// (in one goroutine here, so the count is exact).
	for b := 0; b*512 < n; b++ {
		for i := b * 512; i < min(n, (b+1)*512); i++ {
			forks[b%2].AddAt(forkResult(i), nil, int64(i))
		}
	}
	if listed := forks[0].keptPass + forks[1].keptPass; listed != schema.MaxReportCases {
		t.Errorf("forks listed %d passing cases together; the report keeps %d (without the bound each lists its own)", listed, schema.MaxReportCases)
	}
	for _, f := range forks {
		base.Merge(f)
	}
	cases := base.Cases()
	pass, fail := 0, 0
	for _, c := range cases {
		if c.Outcome == schema.Pass {
			pass++
		} else {
			fail++
		}
	}
	wantFail := (n + 9) / 10
	if pass != schema.MaxReportCases || fail != wantFail || base.Omitted() != n-pass-fail {
		t.Errorf("listed %d passing and %d failing, omitted %d; want %d, %d and %d", pass, fail, base.Omitted(), schema.MaxReportCases, wantFail, n-schema.MaxReportCases-wantFail)
	}
}

// TestForkBoundConcurrent feeds forks from goroutines under the race
// detector, including a fork made while another is being fed.
func TestForkBoundConcurrent(t *testing.T) {
	s := forkSuite(t)
	base := NewCollector(s, nil)
	var wg sync.WaitGroup
	for w := range 3 {
		f := base.Fork()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 3000; i += 3 {
				f.AddAt(forkResult(i), nil, int64(i))
			}
		}()
	}
	wg.Wait()
	if got := base.forks.forks.Load(); got == nil || len(*got) != 3 {
		t.Fatalf("fork group holds %v", got)
	}
}

func forkSuite(t *testing.T) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	src := `
materials "城市" { values = ["北京", "上海"] }
template "天气" {
  text  = "{城市}天气"
  expect = { "$.intent" = "查天气" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// forkResult is result i: every tenth fails.
func forkResult(i int) *schema.Result {
	r := &schema.Result{Case: schema.Case{ID: fmt.Sprintf("%016x", i), Template: "天气", Text: "北京天气"}, LatencyMS: 1, Outcome: schema.Pass}
	if i%10 == 0 {
		r.Outcome = schema.Fail
		r.Failures = []schema.Failure{{Kind: "expect", Path: "$.intent", Expected: "查天气", Actual: "问候"}}
	}
	return r
}
