package pipeline_test

// Throughput of agenda-simulated scenarios against single-turn cases
// (issue 23): whole runs (pipeline.Prepare and Execute, as `nlutest run`)
// against the embedded demo booking bot, in the same process and the same
// benchmark run. 1,000 scenarios of 4 or 5 turns (the bot asks city then
// date, or date first with a date confirmation, by the opening the
// simulator picks) and 1,000 single cases; the figure is turns (calls)
// per second of wall time, and CPU time per turn.
//
//	go test -run '^$' -bench 'BenchmarkScenarioThroughput' -benchtime 3x -count 3 -cpu 2 ./pipeline
//
// Results are in docs/performance.md.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/sources/scenario"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

const scenarioBenchSuite = `
suite "模拟吞吐" {}

target "bot" {
  demo { endpoint = "booking" }
  concurrency = 8
}

materials "城市" { values = ["北京", "上海", "广州", "深圳", "成都", "杭州", "武汉", "重庆", "南京", "天津"] }
materials "日期" { values = ["明天", "后天"] }
materials "乘客" { source = "乘客.txt" }
`

const scenarioBenchSingle = `
template "单轮" {
  strategy = "product"
  text     = "帮我订{日期}去{城市}的机票，乘客{乘客}"
  assert { condition = strcontains(reply, "确认吗") }
}
`

const scenarioBenchScenario = `
scenario "订机票" {
  strategy = "product"
  goal {
    inform  = { city = "{城市}", date = "{日期}", name = "{乘客}" }
    request = ["订单号"]
  }
  opening   = ["我想订机票", "帮我订张机票"]
  asks      = { city = ["哪个城市", "目的地"], date = ["哪天"] }
  answer    = { city = ["去{城市}"] }
  confirm   = ["确认吗", "对吗"]
  affirm    = ["确认"]
  max_turns = 6
  success {
    condition = strcontains(reply, "订单号")
  }
}
`

func scenarioBenchLoad(b *testing.B, sources string) *spec.Suite {
	b.Helper()
	dir := b.TempDir()
	var names strings.Builder
	for i := range 50 {
		fmt.Fprintf(&names, "乘客%02d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "乘客.txt"), []byte(names.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "bench"+spec.FileSuffix)
	if err := os.WriteFile(path, []byte(scenarioBenchSuite+sources), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := spec.Load(path, spec.Options{TargetKinds: targets.Kinds(), SourceKinds: []spec.SourceKind{template.Kind{}, scenario.Kind{}}})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	return s
}

func BenchmarkScenarioThroughput(b *testing.B) {
	for _, bc := range []struct{ name, sources string }{{"single", scenarioBenchSingle}, {"scenario", scenarioBenchScenario}} {
		b.Run(bc.name, func(b *testing.B) {
			s := scenarioBenchLoad(b, bc.sources)
			dir := b.TempDir()
			turns := 0
			cpu0, cpuOK := cputime.Process()
			b.ResetTimer()
			for i := range b.N {
				run, err := pipeline.Prepare(s, pipeline.Options{Target: s.Target(""), Out: filepath.Join(dir, fmt.Sprint(i))})
				if err != nil {
					b.Fatal(err)
				}
				caller, err := targets.NewCaller(context.Background(), s, s.Target(""), runner.CallerOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := run.Execute(context.Background(), caller, nil); err != nil {
					b.Fatal(err)
				}
				caller.Close()
				m := run.Collector.Metrics()
				if m.Passed != m.Total || (bc.name == "scenario" && (m.Total < 4000 || m.Total > 5000)) || (bc.name == "single" && m.Total != 1000) {
					b.Fatalf("%d of %d turns passed", m.Passed, m.Total)
				}
				turns += m.Total
			}
			b.StopTimer()
			cpu1, _ := cputime.Process()
			b.ReportMetric(float64(turns)/b.Elapsed().Seconds(), "turns/s")
			if cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(turns), "cpu-µs/turn")
			}
			b.ReportMetric(float64(turns)/float64(b.N), "turns/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}
