package main

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// seed000Response is seed 000's IAO answer for 查询13301791708的酒店同房间人员.
const seed000Response = `{"code":200,"data":[{"apps":{"app_op_seq":[]},"content":{"des":{"phone_number":"13301791708"},"ont":"SIM_Card","rel":[{"des":{},"ont":["SIM_Card","Person"],"rel":[{"behavior":[{"category":"伴随分析","location":[],"modifiers":[],"number":[],"target":null,"time":[],"traffic":[]}],"des":{"intent":["full"]},"intentPro":["entity"],"ont":["Person","Person"],"relIdx":[0,"14-19"],"relName":"酒店同房间同宿","segs":["查询13301791708的酒店同房间人员"]}],"relIdx":[0,"13-19"],"relName":"使用人","segs":["查询13301791708的酒店同房间人员"]}],"segs":["查询13301791708的酒店同房间人员"]},"content_op":"查询"}],"data_op":{"data_rel":[""],"data_rel_property":[]},"msg":"","unknown":[{"keyword":"酒店","ont":"unknown"}]}`

// benchSuite generates up to 1,000,000 distinct cases (100 × 100 × 100),
// so every saved result is rebuilt from the suite as in a real eval.
const benchSuite = `
suite "iao-bench" { schema = "IAO" }
materials "查询操作" { values = [for i in range(100) : "查询${i}"] }
materials "手机号11位" { values = [for i in range(100) : format("133017917%02d", i)] }
materials "伴随关系" { values = [for i in range(100) : "酒店同房间${i}"] }
template "hotel" {
  strategy = "product"
  text  = "{查询操作}{手机号11位}的{伴随关系}人员"
  level = "S1"
  core  = true
  scene = ["关系分析", "伴随分析", "酒店同宿"]
  expect = {
    "$.code"                                              = 200
    "$.data[0].content_op"                                = "查询"
    "$.data[0].content.ont"                               = "SIM_Card"
    "$.data[0].content.des.phone_number"                  = "13301791708"
    "$.data[0].content.rel[0].ont"                        = ["SIM_Card", "Person"]
    "$.data[0].content.rel[0].relName"                    = "使用人"
    "$.data[0].content.rel[0].rel[0].intentPro"           = ["entity"]
    "$.data[0].content.rel[0].rel[0].ont"                 = ["Person", "Person"]
    "$.data[0].content.rel[0].rel[0].relName"             = "酒店同房间同宿"
    "$.data[0].content.rel[0].rel[0].behavior[0].category" = "伴随分析"
  }
}
split "smoke" { where = case.level == "S1" }
`

var errEnough = errors.New("enough cases")

// writeBenchRun writes a suite and a results file of n results (10
// expectations each, seed 000's response) and returns their paths.
func writeBenchRun(tb testing.TB, n int) (*spec.Suite, string) {
	dir := tb.TempDir()
	s, path, err := writeEvalBench(dir, n, os.Getenv("NLUTEST_BENCH_NODIMS") != "")
	if err != nil {
		tb.Fatal(err)
	}
	return s, path
}

// writeEvalBench writes dir/suite (the bench suite) and dir/run, a run
// directory of n results of it (run.json and results.jsonl), and returns
// the loaded suite and the results file.
func writeEvalBench(dir string, n int, noDims bool) (*spec.Suite, string, error) {
	src := benchSuite
	if noDims {
		// expectations only: no schema, so no dimension metrics
		src = strings.Replace(src, `schema = "IAO"`, "", 1)
	}
	suiteDir, runDir := filepath.Join(dir, "suite"), filepath.Join(dir, "run")
	for _, d := range []string{suiteDir, runDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, "", err
		}
	}
	if err := os.WriteFile(filepath.Join(suiteDir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		return nil, "", err
	}
	s, diags := spec.Load(suiteDir, spec.Options{})
	if diags.HasErrors() {
		return nil, "", diags
	}
	path := filepath.Join(runDir, runner.ResultsFile)
	f, err := os.Create(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	i := 0
	err = s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		if i == n {
			return errEnough
		}
		r := schema.Result{Case: *c, Target: "iao", Response: []byte(seed000Response), Status: 200, LatencyMS: float64(i%500) / 10, Attempts: 1}
		b, err := schema.EncodeLine(&r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		i++
		return err
	})
	if err != nil && err != errEnough {
		return nil, "", err
	}
	if err := w.Flush(); err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(suiteDir)
	if err != nil {
		return nil, "", err
	}
	now := time.Now()
	err = writeRunMeta(runDir, runMeta{Tool: "nlutest", Version: "bench", Suite: abs, Target: "iao", Total: n, Started: now, Finished: now})
	return s, path, err
}

// TestWriteEvalBench writes the eval bench's suite and run directory to
// $NLUTEST_BENCH_RUN (NLUTEST_BENCH_N results, default 1,000,000), for
// timing the command itself (docs/performance.md):
//
//	NLUTEST_BENCH_RUN=/tmp/eval-1m go test ./cmd/nlutest -run TestWriteEvalBench
//	go build -o /tmp/nlutest ./cmd/nlutest && /usr/bin/time -v /tmp/nlutest eval /tmp/eval-1m/run
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

// BenchmarkEvalResults measures `nlutest eval`'s work per saved result:
// read and decode the JSONL line, rebuild the case from the suite, check 10
// expectations, compute the IAO dimensions and accumulate every metrics
// node — the same code path as the command. NLUTEST_BENCH_N sets the results per
// iteration (default 100,000; the README's target is 1,000,000 in < 10 s):
//
//	NLUTEST_BENCH_N=1000000 go test -run '^$' -bench BenchmarkEvalResults -benchtime 1x ./cmd/nlutest
func BenchmarkEvalResults(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	s, path := writeBenchRun(b, n)
	a := &App{}
	cpu0, cpuOK := processCPU()
	b.ResetTimer()
	for b.Loop() {
		ev := assert.NewEvaluator(s)
		col := assert.NewCollector(s)
		if _, err := a.replayResults(path, ev, s.NewRebuilder(), col, map[string]bool{}); err != nil {
			b.Fatal(err)
		}
		if m := col.Metrics(); m.Passed != n {
			b.Fatalf("passed %d of %d", m.Passed, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "results/s")
	if cpu1, ok := processCPU(); ok && cpuOK {
		// CPU time per result: steadier than the rate when the machine is
		// busy, and what a machine with more cores divides.
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(n*b.N), "cpu-µs/result")
	}
	b.ReportMetric(0, "ns/op")
}
