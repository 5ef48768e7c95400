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

// TestWriteFileKeepsHardLinks: a file with another hard link is rewritten
// in place, so both names still name one file holding the new content; a
// render error leaves it untouched.
func TestWriteFileKeepsHardLinks(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, "套件.nlutest.hcl"), filepath.Join(dir, "另一个名字.txt")
	if err := os.WriteFile(path, []byte("旧的内容，比新的长得多得多得多得多\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "新内容\n"); return err }); err != nil {
		t.Fatal(err)
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(other)
	if errA != nil || errB != nil || !os.SameFile(a, b) || hardLinks(a) != 2 {
		t.Fatalf("the hard link was split: %v %v, same file %v", errA, errB, errA == nil && errB == nil && os.SameFile(a, b))
	}
	for _, p := range []string{path, other} {
		if got, _ := os.ReadFile(p); string(got) != "新内容\n" {
			t.Errorf("%s holds %q", filepath.Base(p), got)
		}
	}
	if a.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", a.Mode().Perm())
	}
	if err := WriteFile(path, func(w io.Writer) error { _, _ = io.WriteString(w, "半"); return io.ErrUnexpectedEOF }); err == nil {
		t.Fatal("a render error was not returned")
	}
	if got, _ := os.ReadFile(other); string(got) != "新内容\n" {
		t.Errorf("a failed render changed the file: %q", got)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
