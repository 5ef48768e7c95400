package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
)

// TestThresholdOverAbsentFamily: a threshold over a family this run has
// no figures for — a fully cached run's latency, a filtered run's
// robustness, a subset run's memory distance — is an error at the
// threshold that says "has no data" and why, like a ratio over zero, not
// HCL's "This object does not have an attribute named …".
func TestThresholdOverAbsentFamily(t *testing.T) {
	srv := fakeNLU(t)
	t.Run("latency of a fully cached run", func(t *testing.T) {
		dir := writeSuite(t, suiteHeader+`
threshold "时延" {
  condition = metrics.latency.p95_ms < 500
}
`)
		args := []string{"run", dir, "--var", "url=" + srv.URL, "--cache", "--concurrency", "1"}
		runCLI(t, dir, nil, append(args, "--out", filepath.Join(dir, "first"))...)
		checkAbsentThreshold(t, dir, append(args, "--out", filepath.Join(dir, "cached")),
			"时延", 44, `metrics.latency.p95_ms has no data: this run has no metrics.latency, as no case of the run counts towards it (latency counts the calls that got a response and were not answered from the cache`)
	})
	t.Run("robustness of a filtered run", func(t *testing.T) {
		dir := writeSuite(t, `suite "鲁棒" { schema = "rasa" }
target "demo" {
  demo {}
  concurrency = 1
}
materials "城市" { values = ["北京", "上海"] }
template "查天气" {
  text    = "{城市}天气怎么样"
  expect  = { "$.intent.name" = "check_weather" }
  perturb { kinds = ["swap"] }
}
template "问候" {
  text   = "你好"
  expect = { "$.intent.name" = "greet" }
}

threshold "稳健" {
  condition = metrics.robustness.score >= 0.5
}
`)
		checkAbsentThreshold(t, dir, []string{"run", dir, "--filter", "问候", "--out", filepath.Join(dir, "run")},
			"稳健", 17, `metrics.robustness.score has no data: this run has no metrics.robustness, as no case of the run counts towards it (robustness compares perturbed variants with their originals, and none of them ran`)
	})
	t.Run("memory distance of a subset run", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join("..", "..", "suites", "memory", "memory.nlutest.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		dir := writeSuite(t, string(src))
		checkAbsentThreshold(t, dir, []string{"run", dir, "--filter", "-d0$", "--out", filepath.Join(dir, "run")},
			"near", 44, `metrics.memory.distance["1"].score has no data: this run has no metrics.memory.distance["1"], as no case of the run counts towards it (metrics.memory counts the memory questions this run asked, per distance`)
	})
}

// checkAbsentThreshold runs args and checks that threshold name (declared
// on line) is an error with want, in the console and in report.json, at
// the threshold's file and line, and that the run fails (exit 1).
func checkAbsentThreshold(t *testing.T, dir string, args []string, name string, line int, want string) {
	t.Helper()
	code, out, errs := runCLI(t, dir, nil, args...)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, out, errs)
	}
	if !strings.Contains(out, "! "+name+": "+want) {
		t.Errorf("the console does not say %q:\n%s", want, out)
	}
	if strings.Contains(out, "does not have an attribute") || strings.Contains(out, "does not identify an element") {
		t.Errorf("the console shows HCL's raw error:\n%s", out)
	}
	r, err := pipeline.ReadReport(args[len(args)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range r.Thresholds {
		if th.Name != name {
			continue
		}
		if !strings.HasPrefix(th.Error, want) || th.Outcome.String() != "error" {
			t.Errorf("report.json: %s %q, want error %q", th.Outcome, th.Error, want)
		}
		if filepath.Base(th.File) != "suite.nlutest.hcl" || th.Line != line {
			t.Errorf("report.json locates the threshold at %s:%d, want suite.nlutest.hcl:%d", th.File, th.Line, line)
		}
		return
	}
	t.Errorf("report.json has no threshold %q", name)
}
