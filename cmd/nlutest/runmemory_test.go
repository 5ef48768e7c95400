package main

import (
	"path/filepath"
	"runtime/metrics"
	"testing"
)

// forcedGCs is the number of collections the program forced so far
// (runtime.GC, debug.FreeOSMemory).
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A run of bigReport results or more returns its garbage to the operating
// system before it builds the report (releaseRunGarbage), which takes a
// forced collection.
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
	before := forcedGCs()
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"), "--quiet")
	if code != ExitPass && code != ExitFail {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if forcedGCs() == before {
		t.Errorf("a run of 8,200 cases (bigReport %d) forced no collection before its report", bigReport)
	}
}
