package runner

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeLines writes lines to a file, each ended by a newline, and returns
// its path.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ResultsFile)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every line is read whole whatever its length: longer than the reader's
// 1 MiB buffer, and longer than MaxReusedLine (read, not refused), with
// the right line numbers; a blank line is skipped and counted.
func TestReadLinesReadsLongLinesWhole(t *testing.T) {
	long := func(n int) string { return `{"id":"长","pad":"` + strings.Repeat("天", n/3) + `"}` }
	want := []string{`{"id":"a"}`, long(3 << 20), `{"id":"b"}`, long(MaxReusedLine + 1<<20), "", long(2 << 20), `{"id":"c"}`}
	path := writeLines(t, want...)
	n := 0
	err := ReadLines(path, func(line []byte, no int) error {
		for n < len(want) && want[n] == "" {
			n++
		}
		if no != n+1 || string(line) != want[n] {
			t.Errorf("line %d: got line %d of %d bytes, want %d bytes", n+1, no, len(line), len(want[n]))
		}
		n++
		return nil
	})
	if err != nil || n != len(want) {
		t.Fatalf("read %d of %d lines: %v", n, len(want), err)
	}
}

// Lines longer than the reader's buffer are gathered into one buffer
// reused from line to line, not a new one grown for each: reading 20
// lines of 2 MiB allocates about one line (it allocated 20 × 4 MiB).
func TestReadLinesReusesItsLongLineBuffer(t *testing.T) {
	line := `{"id":"x","pad":"` + strings.Repeat("晴", 2<<20/3) + `"}`
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = line
	}
	path := writeLines(t, lines...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	err := ReadLines(path, func(b []byte, _ int) error {
		if string(b) != line {
			t.Fatalf("line %d differs", n+1)
		}
		n++
		return nil
	})
	runtime.ReadMemStats(&after)
	if err != nil || n != len(lines) {
		t.Fatalf("read %d of %d lines: %v", n, len(lines), err)
	}
	// the reader's 1 MiB buffer, and the long line's (grown to hold it)
	if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(1<<20+3*len(line)); got > bound {
		t.Errorf("reading %d lines of %d bytes allocated %d bytes, want at most %d", n, len(line), got, bound)
	}
}
