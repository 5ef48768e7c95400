package pipeline_test

// Throughput of conversations against single-turn cases (issue 13,
// acceptance 5): a whole run (pipeline.Prepare and Execute, as `nlutest
// run` does: the http target, evaluation in the workers, results written
// and collected) against a local bot that answers at once. The same number
// of turns runs as 3,000 single-turn cases and as 1,000 conversations of 3
// turns; the figure is turns per second of wall time, and CPU time per
// turn.
//
//	go test -run '^$' -bench 'BenchmarkConversationThroughput' -benchtime 3x -count 3 -cpu 2 ./pipeline
//
// Results are in docs/performance.md.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

const throughputTarget = `
suite "吞吐" {}

target "bot" {
  http {
    url  = %q
    body = jsonencode({ session = case.conversation, text = case.text })
  }
  concurrency = 8
  timeout     = "10s"
}

materials "话语" {
  source = "话语.txt"
}
`

const throughputSingle = `
template "单轮" {
  text   = "{话语}"
  expect = { "$.intent" = "book", "$.city" = "北京" }
}
`

const throughputConversation = `
conversation "三轮" {
  turn {
    user   = "{话语}"
    expect = { "$.intent" = "book", "$.city" = "北京" }
  }
  turn {
    user   = "明天"
    expect = { "$.intent" = "book", "$.city" = "北京" }
  }
  turn {
    user   = "确认"
    expect = { "$.intent" = "book", "$.city" = "北京" }
  }
}
`

func throughputSuite(b *testing.B, url string, values int, sources string) *spec.Suite {
	b.Helper()
	dir := b.TempDir()
	var vals strings.Builder
	for i := range values {
		fmt.Fprintf(&vals, "第%d次订一张去北京的机票\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "话语.txt"), []byte(vals.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "bench"+spec.FileSuffix)
	if err := os.WriteFile(path, []byte(fmt.Sprintf(throughputTarget, url)+sources), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := spec.Load(path, spec.Options{TargetKinds: targets.Kinds(), SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}}})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	return s
}

func BenchmarkConversationThroughput(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"intent":"book","city":"北京","text":"好的"}`))
	}))
	b.Cleanup(srv.Close)
	const turns = 3000
	for _, bc := range []struct {
		name    string
		values  int
		sources string
	}{{"single", turns, throughputSingle}, {"conversation-3", turns / 3, throughputConversation}} {
		b.Run(bc.name, func(b *testing.B) {
			s := throughputSuite(b, srv.URL, bc.values, bc.sources)
			dir := b.TempDir()
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
				if m := run.Collector.Metrics(); m.Passed != turns {
					b.Fatalf("%d of %d turns passed", m.Passed, m.Total)
				}
			}
			b.StopTimer()
			cpu1, _ := cputime.Process()
			b.ReportMetric(float64(turns*b.N)/b.Elapsed().Seconds(), "turns/s")
			if cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(turns*b.N), "cpu-µs/turn")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

const demoBotTarget = `
suite "吞吐" {}

target "demo" {
  http {
    url  = "%s/booking"
    body = jsonencode({ session = case.conversation != "" ? case.conversation : case.id, text = case.text })
  }
  concurrency = 8
  timeout     = "10s"
}

materials "话语" {
  source = "话语.txt"
}
`

const demoBotSingle = `
template "单轮" {
  text   = "{话语}"
  expect = { "$.intent" = "book_flight", "$.state" = "ask_date", "$.slots.city" = "北京" }
}
`

const demoBotConversation = `
conversation "三轮" {
  turn {
    user   = "{话语}"
    expect = { "$.intent" = "book_flight", "$.state" = "ask_date", "$.slots.city" = "北京" }
  }
  turn {
    user   = "明天"
    expect = { "$.state" = "confirm", "$.slots.date" = "明天" }
  }
  turn {
    user   = "确认"
    expect = { "$.state" = "booked" }
  }
}
`

// BenchmarkConversationDemoBot is BenchmarkConversationThroughput against
// the embedded demo's stateful booking bot (runner/demo, POST /booking,
// what `nlutest serve demo` serves) on 127.0.0.1: 3,000 single-turn cases
// (each its own session) and 1,000 conversations of 3 turns (ask the city,
// give the date, confirm), whose turns go in order in one session. The two
// run in alternating rounds (NLUTEST_BENCH_ROUNDS, default 5) so other load
// on the machine falls on both; it reports each side's median turns/s and
// CPU µs per turn and the ratio conversation / single, which issue 27 asks
// to be at least 0.8.
//
//	go test -run '^$' -bench BenchmarkConversationDemoBot -benchtime 1x -cpu 2 ./pipeline
func BenchmarkConversationDemoBot(b *testing.B) {
	srv := httptest.NewServer(demo.Handler())
	b.Cleanup(srv.Close)
	const turns = 3000
	rounds := 5
	if v, err := strconv.Atoi(os.Getenv("NLUTEST_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	suites := [2]*spec.Suite{demoBotSuite(b, srv.URL, turns, demoBotSingle), demoBotSuite(b, srv.URL, turns/3, demoBotConversation)}
	var rate, cpu [2][]float64
	b.ResetTimer()
	for range b.N * rounds {
		for k, s := range suites {
			r, c := throughputRun(b, s, turns)
			rate[k], cpu[k] = append(rate[k], r), append(cpu[k], c)
		}
	}
	b.StopTimer()
	b.ReportMetric(median(rate[0]), "single-turns/s")
	b.ReportMetric(median(rate[1]), "conversation-turns/s")
	b.ReportMetric(median(rate[1])/median(rate[0]), "ratio")
	b.ReportMetric(median(cpu[0]), "single-cpu-µs/turn")
	b.ReportMetric(median(cpu[1]), "conversation-cpu-µs/turn")
	b.ReportMetric(0, "ns/op")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// demoBotSuite writes and loads the demo bot suite with sources over
// values utterances.
func demoBotSuite(b *testing.B, url string, values int, sources string) *spec.Suite {
	dir := b.TempDir()
	var vals strings.Builder
	for i := range values {
		fmt.Fprintf(&vals, "第%d次订一张去北京的机票\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "话语.txt"), []byte(vals.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "bench"+spec.FileSuffix)
	if err := os.WriteFile(path, []byte(fmt.Sprintf(demoBotTarget, url)+sources), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := spec.Load(path, spec.Options{TargetKinds: targets.Kinds(), SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}}})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	return s
}

// throughputRun runs s once as `nlutest run` does, requires every one of
// its turns to pass, and returns turns per second and CPU µs per turn.
func throughputRun(b *testing.B, s *spec.Suite, turns int) (rate, cpuPerTurn float64) {
	cpu0, _ := cputime.Process()
	start := time.Now()
	run, err := pipeline.Prepare(s, pipeline.Options{Target: s.Target(""), Out: filepath.Join(b.TempDir(), "run")})
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
	if m := run.Collector.Metrics(); m.Passed != turns {
		b.Fatalf("%d of %d turns passed", m.Passed, m.Total)
	}
	wall := time.Since(start)
	cpu1, _ := cputime.Process()
	return float64(turns) / wall.Seconds(), float64((cpu1 - cpu0).Microseconds()) / float64(turns)
}
