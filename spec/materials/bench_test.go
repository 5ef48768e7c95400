package materials

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// writeMaterialFile writes n rows of a material file in the format its
// extension names (.txt, .csv or .jsonl): phone numbers, every third row
// with a level, every fifth with an IAO normalisation and tags.
func writeMaterialFile(tb testing.TB, path string, n int, row func(i int) string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	ext := filepath.Ext(path)
	if ext == ".csv" {
		w.WriteString("value,level,tags,normalize.IAO\n")
	}
	for i := range n {
		if row != nil {
			if s := row(i); s != "" {
				w.WriteString(s)
				continue
			}
		}
		v := benchPhone(i)
		switch ext {
		case ".txt":
			fmt.Fprintf(w, "%s\n", v)
		case ".csv":
			lvl, norm, tags := "", "", ""
			if i%3 == 0 {
				lvl = "M2"
			}
			if i%5 == 0 {
				norm, tags = "+86"+v, "手机|移动"
			}
			fmt.Fprintf(w, "%s,%s,%s,%s\n", v, lvl, tags, norm)
		case ".jsonl":
			switch {
			case i%5 == 0:
				fmt.Fprintf(w, "{\"value\": %q, \"level\": \"M2\", \"tags\": [\"手机\", \"移动\"], \"normalize\": {\"IAO\": \"+86%s\"}}\n", v, v)
			case i%3 == 0:
				fmt.Fprintf(w, "{\"value\": %q, \"level\": \"M2\"}\n", v)
			default:
				fmt.Fprintf(w, "{\"value\": %q}\n", v)
			}
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkReadMaterials300k reads a 300,000-row material file of each
// format. Run with:
//
//	go test ./spec/materials -run '^$' -bench ReadMaterials -benchmem
func BenchmarkReadMaterials300k(b *testing.B) {
	for _, ext := range []string{".txt", ".csv", ".jsonl"} {
		b.Run(ext[1:], func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "phones"+ext)
			writeMaterialFile(b, path, benchPhones, nil)
			b.ReportAllocs()
			for b.Loop() {
				vals, diags := readFile(b, path, "M1")
				if len(diags) > 0 || len(vals) != benchPhones {
					b.Fatalf("%d values, %v", len(vals), diags)
				}
			}
			reportPeak(b)
		})
	}
}

// benchPhones is the row count of the benchmark's material files, the
// bench suite's of package spec.
const benchPhones = 300_000

// benchPhone is the i-th of the bench suite's distinct 11-digit numbers.
func benchPhone(i int) string {
	prefixes := [...]string{"130", "133", "135", "138", "150", "159", "186"}
	return fmt.Sprintf("%s%08d", prefixes[i%len(prefixes)], i)
}

// readFile reads the material file path and parses it as spec reads a
// suite's material source beside the suite file: values' origins name the
// file's base name.
func readFile(tb testing.TB, path, defLevel string) ([]Value, hcl.Diagnostics) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return Parse(data, path, filepath.Base(path), defLevel)
}

// reportPeak reports the Go runtime's peak view of memory obtained from the
// OS as MB-sys and, on Linux, the process's peak RSS as MB-maxrss.
func reportPeak(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MB-sys")
	if rss, ok := maxRSS(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "MB-maxrss")
	}
}
