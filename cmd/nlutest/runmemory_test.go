package main

import (
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
)

// forcedGCs is the number of collections the program forced so far
// (runtime.GC, debug.FreeOSMemory).
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A run, and an eval, of pipeline.BigReport results or more collect their
// garbage before they build the report (pipeline.ReleaseGarbage), which
// takes a forced collection.
func TestBigRunReleasesGarbageBeforeReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 8,200 cases")
	}
	dir := writeSuite(t, `suite "大报告" {}
target "t" {
  demo {}
  concurrency = 4
}
materials "次" { values = [for i in range(82) : "${i}"] }
materials "城" { values = [for i in range(100) : "${i}"] }
template "订机票" {
  strategy = "product"
  text     = "第{次}次帮我订去城市{城}的机票"
  expect   = { "$.intent.name" = "book_flight" }
}
`)
	run := filepath.Join(dir, "run")
	for _, args := range [][]string{{"run", dir, "--out", run, "--quiet"}, {"eval", run, "--quiet"}} {
		before := forcedGCs()
		code, out, errs := runCLI(t, dir, nil, args...)
		if code != ExitPass && code != ExitFail {
			t.Fatalf("%s: exit %d\n%s\n%s", args[0], code, out, errs)
		}
		if forcedGCs() == before {
			t.Errorf("nlutest %s of 8,200 cases (pipeline.BigReport %d) forced no collection before its report", args[0], pipeline.BigReport)
		}
	}
}
