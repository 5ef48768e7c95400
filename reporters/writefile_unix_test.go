//go:build unix

package reporters

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileFIFO: a path that is not a regular file (a named pipe, or
// /dev/stdout) is written to directly instead of being replaced.
func TestWriteFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(fifo, func(w io.Writer) error { _, err := io.WriteString(w, "报告\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "报告\n" {
		t.Errorf("reader got %q", s)
	}
	fi, err := os.Lstat(fifo)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}
