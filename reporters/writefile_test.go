package reporters

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	r := quickstart()
	if err := WriteFile(path, func(w io.Writer) error { return JUnit(w, r, Options{}) }); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	_ = JUnit(&want, r, Options{})
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("written report differs from the rendering (%v)", err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("new report mode %v, want 0644", fi.Mode().Perm())
	}

	// Overwrite keeps the old file's mode and leaves nothing else behind.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "second\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "second\n" {
		t.Errorf("not overwritten: %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v not kept", fi.Mode().Perm())
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only junit.xml", names)
	}
}

// TestWriteFileAtomic: a render that fails half-way (or panics) leaves the
// previous report untouched, no new file, and no temporary file.
func TestWriteFileAtomic(t *testing.T) {
	boom := errors.New("boom")
	halfway := func(w io.Writer) error {
		if _, err := io.WriteString(w, strings.Repeat("<partial/>", 100000)); err != nil {
			return err
		}
		return boom
	}
	dir := t.TempDir()

	fresh := filepath.Join(dir, "new.md")
	if err := WriteFile(fresh, halfway); !errors.Is(err, boom) {
		t.Errorf("want the render error, got %v", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed render created %s", fresh)
	}

	old := filepath.Join(dir, "old.md")
	if err := os.WriteFile(old, []byte("previous report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(old, halfway); !errors.Is(err, boom) {
		t.Errorf("want the render error, got %v", err)
	}
	if got, _ := os.ReadFile(old); string(got) != "previous report\n" {
		t.Errorf("a failed render changed the old report: %q…", got[:min(20, len(got))])
	}

	func() {
		defer func() { _ = recover() }()
		_ = WriteFile(old, func(w io.Writer) error {
			_, _ = io.WriteString(w, "half")
			panic("renderer bug")
		})
	}()
	if got, _ := os.ReadFile(old); string(got) != "previous report\n" {
		t.Errorf("a panicking render changed the old report")
	}
	if names := dirEntries(t, dir); len(names) != 1 || names[0] != "old.md" {
		t.Errorf("temporary files left behind: %v", names)
	}
}

func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	ok := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	// A missing directory is created: `--report-junit out/junit.xml` in a
	// fresh CI workspace must not fail the run.
	if err := WriteFile(filepath.Join(dir, "missing", "r.json"), ok); err != nil {
		t.Errorf("missing directory: %v", err)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "missing", "r.json")); string(b) != "x" {
		t.Errorf("missing directory: wrote %q", b)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "r.json", "under-a-file"), ok); err == nil {
		t.Error("a path under a regular file: want an error")
	}
	if err := WriteFile(dir, ok); err == nil {
		t.Error("a directory as the path: want an error")
	}
	if err := WriteFile(filepath.Join(dir, "r.json"), nil); err == nil {
		t.Error("nil renderer: want an error")
	}
}

// TestWriteFileLargeSameBytes: a report of 12 MB, rendered in writes of
// every size, is the file written, byte for byte.
func TestWriteFileLargeSameBytes(t *testing.T) {
	want := make([]byte, 12<<20+12345)
	for i := range want {
		want[i] = byte(i*7 + i/4093)
	}
	path := filepath.Join(t.TempDir(), "报告.json")
	err := WriteFile(path, func(w io.Writer) error {
		for i, n := 0, 1; i < len(want); i, n = i+n, n*3%(1<<20)+1 {
			if _, err := w.Write(want[i:min(i+n, len(want))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the file holds %d bytes, not the %d rendered", len(got), len(want))
	}
}
