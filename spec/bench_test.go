package spec

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// The generation benchmarks of SPEC §11 (1,000,000 cases in under 5 s with
// flat memory). Run with:
//
//	go test ./spec -run '^$' -bench 'Generate1M|LoadMaterials300k' -benchtime 1x -benchmem
//
// and see docs/performance.md for the figures and the command-line
// measurement (`nlutest generate` under /usr/bin/time -v) on the suite
// TestWriteBenchSuite writes.

const (
	benchPhones = 300_000
	benchCases  = 1_000_000
)

// benchPhone is the i-th of the bench suite's distinct 11-digit numbers.
func benchPhone(i int) string {
	prefixes := [...]string{"130", "133", "135", "138", "150", "159", "186"}
	return fmt.Sprintf("%s%08d", prefixes[i%len(prefixes)], i)
}

// benchSuite is the IAO corpus-factory write-up's IAO hotel template at the corpus factory's
// scale: a 300,000-value material file slot between two small slots, the
// product capped at 1,000,000 cases, eleven expectations per case (two of
// them placeholders resolved to normalised values) and an 80/10/10
// fraction split.
const benchSuite = `# Written by TestWriteBenchSuite (spec/bench_test.go); see docs/performance.md.
suite "bench-1m" {
  description = "1,000,000 IAO cases from a 300,000-value material file"
  schema      = "IAO"
}

target "demo" {
  demo {
    endpoint = "iao"
  }
}

materials "查询操作" {
  tag    = "辅助操作"
  level  = "M1"
  values = ["查询", "查一下", "帮我查"]
}

materials "手机号11位" {
  tag    = "手机号"
  level  = "M1"
  source = "materials/phones.txt"
}

materials "伴随关系" {
  tag = "伴随关系"
  value "酒店同房间" {
    level     = "M1"
    normalize = { IAO = "酒店同房间同宿" }
  }
  value "同住酒店" {
    level     = "M2"
    normalize = { IAO = "酒店同住" }
  }
  value "同乘航班" {
    level     = "M2"
    normalize = { IAO = "同航班" }
  }
  value "同车" {
    level     = "M2"
    normalize = { IAO = "同车次" }
  }
  value "网吧同上网" {
    level = "M2"
  }
}

template "hotel-roommates" {
  text     = "{伴随关系}{手机号11位}的{查询操作}人员"
  level    = "S1"
  core     = true
  scene    = ["关系分析", "伴随分析", "酒店同宿"]
  strategy = "product"
  limit    = 1000000

  expect = {
    "code"                                                     = 200
    "$.data.[0].content_op"                                    = "查询"
    "$.data.[0].content.ont"                                   = "SIM_Card"
    "$.data.[0].content.des.phone_number"                      = "{手机号11位}"
    "$.data.[0].content.rel.[0].ont"                           = ["SIM_Card", "Person"]
    "$.data.[0].content.rel.[0].relName"                       = "使用人"
    "$.data.[0].content.rel.[0].rel.[0].intentPro"             = ["entity"]
    "$.data.[0].content.rel.[0].rel.[0].ont"                   = ["Person", "Person"]
    "$.data.[0].content.rel.[0].rel.[0].relName"               = "{伴随关系}"
    "$.data.[0].content.rel.[0].rel.[0].behavior.[0].category" = "伴随分析"
    "$.data.[0].content.rel.[0].rel.[0].des.intent"            = ["full"]
  }
}

split "train" { fraction = 0.8 }
split "dev" { fraction = 0.1 }
split "test" { fraction = 0.1 }
`

// writeBenchSuite writes the bench suite and its material file into dir.
func writeBenchSuite(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "materials"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.nlutest.hcl"), []byte(benchSuite), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "materials", "phones.txt"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# %d distinct 11-digit phone numbers\n", benchPhones)
	for i := range benchPhones {
		w.WriteString(benchPhone(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestWriteBenchSuite writes the bench suite for the command-line
// measurement of docs/performance.md into $NLUTEST_BENCH_SUITE:
//
//	NLUTEST_BENCH_SUITE=/tmp/bench-1m go test ./spec -run TestWriteBenchSuite
//
// Without the variable it checks the suite in a temporary directory: it
// loads cleanly with every phone number and generates exactly 1,000,000
// cases (the product 5 × 300,000 × 3 capped by limit).
func TestWriteBenchSuite(t *testing.T) {
	dir := os.Getenv("NLUTEST_BENCH_SUITE")
	if dir != "" {
		if err := writeBenchSuite(dir); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the bench suite to %s", dir)
		return
	}
	if testing.Short() || underRace {
		t.Skip("generates 1,000,000 cases; run without -short and -race")
	}
	dir = t.TempDir()
	if err := writeBenchSuite(dir); err != nil {
		t.Fatal(err)
	}
	s, diags := testLoad(dir, Options{})
	if len(diags) > 0 {
		t.Fatalf("the bench suite should load without diagnostics: %v", diags)
	}
	if n := len(s.Materials["手机号11位"].Values); n != benchPhones {
		t.Fatalf("loaded %d phone numbers, want %d", n, benchPhones)
	}
	n, splits := 0, map[string]int{}
	err := s.Generate(GenOptions{}, func(c *schema.Case) error {
		n++
		for _, sp := range c.Split {
			splits[sp]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != benchCases {
		t.Fatalf("generated %d cases, want %d", n, benchCases)
	}
	// Fraction splits hash the case id: 80/10/10 within 0.5 points.
	if splits["train"] < 795_000 || splits["train"] > 805_000 || splits["dev"] < 95_000 || splits["test"] < 95_000 ||
		splits["train"]+splits["dev"]+splits["test"] != benchCases {
		t.Errorf("splits %v are not an 80/10/10 partition", splits)
	}
}

// BenchmarkLoadMaterials300k loads the bench suite: parsing the HCL and
// reading the 300,000-line material file.
func BenchmarkLoadMaterials300k(b *testing.B) {
	dir := b.TempDir()
	if err := writeBenchSuite(dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, diags := testLoad(dir, Options{})
		if diags.HasErrors() || len(s.Materials["手机号11位"].Values) != benchPhones {
			b.Fatalf("load: %v", diags)
		}
	}
	reportPeak(b)
}

// BenchmarkGenerate1M generates the bench suite's 1,000,000 cases and
// writes them as JSONL (schema.EncodeLine) through a buffered writer to a
// file, as `nlutest generate -o` does. The suite is loaded once, outside
// the timed loop.
func BenchmarkGenerate1M(b *testing.B) {
	dir := b.TempDir()
	if err := writeBenchSuite(dir); err != nil {
		b.Fatal(err)
	}
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	out := filepath.Join(dir, "cases.jsonl")
	b.ReportAllocs()
	var bytes int64
	for b.Loop() {
		f, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		bytes = 0
		if err := generateJSONL(s, f, &bytes); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchCases)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	b.ReportMetric(float64(bytes)/(1<<20), "MB-written")
	reportPeak(b)
}

// BenchmarkGenerate1MDiscard is BenchmarkGenerate1M without the file: the
// encoded lines go to io.Discard, isolating generation and encoding.
func BenchmarkGenerate1MDiscard(b *testing.B) {
	dir := b.TempDir()
	if err := writeBenchSuite(dir); err != nil {
		b.Fatal(err)
	}
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	var bytes int64
	for b.Loop() {
		bytes = 0
		if err := generateJSONL(s, io.Discard, &bytes); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchCases)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	reportPeak(b)
}

func generateJSONL(s *Suite, w io.Writer, bytes *int64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	n := 0
	err := s.Generate(GenOptions{}, func(c *schema.Case) error {
		line, err := schema.EncodeLine(c)
		if err != nil {
			return err
		}
		n++
		*bytes += int64(len(line))
		_, err = bw.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	if n != benchCases {
		return fmt.Errorf("generated %d cases, want %d", n, benchCases)
	}
	return bw.Flush()
}

// reportPeak reports the Go runtime's peak view of memory obtained from the
// OS (HeapSys + stacks + runtime structures) as MB-sys, an upper bound of
// the heap part of the peak RSS; /usr/bin/time -v gives the RSS itself.
func reportPeak(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MB-sys")
	if rss, ok := maxRSS(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "MB-maxrss")
	}
}
