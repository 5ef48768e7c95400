package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The dataset bench: a 1,000,000-row JSONL file (about 174 MB) of
// Chinese and English booking utterances with an id, an intent, a
// reference answer and a domain, and a suite whose dataset block reads
// all of them (docs/performance.md).

const datasetBenchRows = 1_000_000

const datasetBenchSuite = `suite "dataset-bench" {}

dataset "rows" {
  source     = "rows.jsonl"
  id         = row.id
  text       = row.text
  expect     = { "$.intent.name" = row.intent }
  references = row.answer
  scene      = [row.domain]
}
`

func writeDatasetBench(dir string, rows int) error {
	if err := os.WriteFile(filepath.Join(dir, "bench.nlutest.hcl"), []byte(datasetBenchSuite), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "rows.jsonl"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	cities := []string{"北京", "上海", "广州", "深圳", "成都", "杭州", "Berlin", "London", "Paris", "Tokyo"}
	intents := []string{"book_flight", "ask_weather", "cancel_booking", "greet"}
	for i := 0; i < rows; i++ {
		c, it := cities[i*7%len(cities)], intents[i*3%len(intents)]
		fmt.Fprintf(w, `{"id": "r%07d", "text": "帮我订一张去%s的机票 %d", "intent": "%s", "answer": "好的，已为您预订去%s的机票。", "domain": "出行"}`+"\n", i, c, i, it, c)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestWriteDatasetBench writes the dataset bench to $NLUTEST_DATASET_BENCH
// for the documented command; without it, it generates a 10,000-row
// version and checks every row becomes a case.
func TestWriteDatasetBench(t *testing.T) {
	if dir := os.Getenv("NLUTEST_DATASET_BENCH"); dir != "" {
		if err := writeDatasetBench(dir, datasetBenchRows); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the dataset bench to %s", dir)
		return
	}
	dir := t.TempDir()
	if err := writeDatasetBench(dir, 10_000); err != nil {
		t.Fatal(err)
	}
	s, diags := load(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if cases, err := encodeAll(s, io.Discard); err != nil || cases != 10_000 {
		t.Fatalf("%d cases, %v", cases, err)
	}
}

// encodeAll generates s's cases and writes them as JSONL to w.
func encodeAll(s *spec.Suite, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	n := 0
	err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		line, err := schema.EncodeLine(c)
		if err != nil {
			return err
		}
		n++
		_, err = bw.Write(line)
		return err
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// BenchmarkDatasetGenerate1M generates and encodes the 1,000,000 rows of
// the dataset bench to io.Discard.
func BenchmarkDatasetGenerate1M(b *testing.B) {
	dir := b.TempDir()
	if err := writeDatasetBench(dir, datasetBenchRows); err != nil {
		b.Fatal(err)
	}
	s, diags := load(dir)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	for b.Loop() {
		if n, err := encodeAll(s, io.Discard); err != nil || n != datasetBenchRows {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(datasetBenchRows)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	reportPeak(b)
}
