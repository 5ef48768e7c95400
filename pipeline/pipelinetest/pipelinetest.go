// Package pipelinetest writes the eval bench: a suite and a run directory
// of saved results of it, for the tests and benchmarks of pipeline and
// cmd/nlutest (docs/performance.md).
package pipelinetest

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// SeedResponse is the IAO corpus-factory write-up's IAO answer for 查询13301791708的酒店同房间人员.
const SeedResponse = `{"code":200,"data":[{"apps":{"app_op_seq":[]},"content":{"des":{"phone_number":"13301791708"},"ont":"SIM_Card","rel":[{"des":{},"ont":["SIM_Card","Person"],"rel":[{"behavior":[{"category":"伴随分析","location":[],"modifiers":[],"number":[],"target":null,"time":[],"traffic":[]}],"des":{"intent":["full"]},"intentPro":["entity"],"ont":["Person","Person"],"relIdx":[0,"14-19"],"relName":"酒店同房间同宿","segs":["查询13301791708的酒店同房间人员"]}],"relIdx":[0,"13-19"],"relName":"使用人","segs":["查询13301791708的酒店同房间人员"]}],"segs":["查询13301791708的酒店同房间人员"]},"content_op":"查询"}],"data_op":{"data_rel":[""],"data_rel_property":[]},"msg":"","unknown":[{"keyword":"酒店","ont":"unknown"}]}`

// BenchSuite generates up to 1,000,000 distinct cases (100 × 100 × 100),
// so every saved result is rebuilt from the suite as in a real eval.
const BenchSuite = `
suite "iao-bench" { schema = "IAO" }
materials "查询操作" { values = [for i in range(100) : "查询${i}"] }
materials "手机号11位" { values = [for i in range(100) : format("133017917%02d", i)] }
materials "伴随关系" { values = [for i in range(100) : "酒店同房间${i}"] }
template "hotel" {
  strategy = "product"
  limit    = 1000000 # all 100 × 100 × 100 (product's default cap is 100,000)
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

// WriteEvalBench writes dir/suite (BenchSuite) and dir/run, a run directory
// of n results of it (run.json and results.jsonl, 10 expectations each,
// the IAO corpus-factory write-up's response), and returns the loaded suite and the results file.
// noDims drops the suite's schema, so no dimension metrics are computed.
func WriteEvalBench(dir string, n int, noDims bool) (*spec.Suite, string, error) {
	src := BenchSuite
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
	s, diags := spec.Load(suiteDir, spec.Options{SourceKinds: extensions.Default().Sources})
	if diags.HasErrors() {
		return nil, "", diags
	}
	path := filepath.Join(runDir, runner.ResultsFile)
	if err := writeResults(s, path, n); err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(suiteDir)
	if err != nil {
		return nil, "", err
	}
	now := time.Now()
	err = pipeline.WriteMeta(runDir, pipeline.Meta{Tool: "nlutest", Version: "bench", Suite: abs, Target: "iao", Total: n, Started: now, Finished: now})
	return s, path, err
}

// writeResults writes the first n cases of s, each answered with
// SeedResponse, to path.
func writeResults(s *spec.Suite, path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	i := 0
	err = s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		if i == n {
			return errEnough
		}
		r := schema.Result{Case: *c, Target: "iao", Response: []byte(SeedResponse), Status: 200, LatencyMS: float64(i%500) / 10, Attempts: 1}
		b, err := schema.EncodeLine(&r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		i++
		return err
	})
	if err != nil && err != errEnough {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
