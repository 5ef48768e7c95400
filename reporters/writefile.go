package reporters

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile renders into a temporary file in path's directory and renames it
// over path, so readers see either the old report or the whole new one,
// never half of one. On any error (the render's, a write's, the rename's,
// even a panic in render) the temporary file is removed and path is left
// untouched. The new file gets the mode of the file it replaces, or 0644.
//
// A path that exists and is not a regular file (/dev/stdout, a named pipe)
// cannot be replaced by a rename; the report is then streamed to it
// directly, which is the only thing such a path allows. A symlink is
// followed: the file it points to is replaced and the link kept. A file
// with more than one hard link is rewritten in place once the whole new
// content is rendered (a rename would give path a new inode and leave the
// other links with the old content): its links stay one file.
func WriteFile(path string, render func(io.Writer) error) (err error) {
	if render == nil {
		return fmt.Errorf("write %s: no renderer", path)
	}
	// A symlink stays a symlink: the file it points to is replaced
	// (fmt and annotate --write on a linked suite file).
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := os.FileMode(0o644)
	inPlace := false
	if fi, statErr := os.Stat(path); statErr == nil {
		switch {
		case fi.IsDir():
			return fmt.Errorf("write %s: is a directory", path)
		case !fi.Mode().IsRegular():
			return writeDirect(path, render)
		default:
			mode = fi.Mode().Perm()
			inPlace = hardLinks(fi) > 1
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// A report asked for in a directory that does not exist yet (out/junit.xml
	// in a fresh CI workspace) is written there rather than failing the run.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := render(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if inPlace {
		return copyInPlace(path, f) // the deferred clean-up removes tmp
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		done = true
		return fmt.Errorf("write %s: %w", path, err)
	}
	done = true
	return nil
}

// copyInPlace overwrites the file at path with the content of the rendered
// temporary file tmp, keeping path's inode (and so its other hard links):
// written from the start, then cut to the new length and synced.
func copyInPlace(path string, tmp *os.File) error {
	size, err := tmp.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dst, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := io.Copy(dst, tmp); err != nil {
		_ = dst.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := dst.Truncate(size); err != nil {
		_ = dst.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := dst.Sync(); err != nil {
		_ = dst.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeDirect writes to an existing non-regular file (/dev/stdout, a
// pipe), streaming: `generate -o /dev/stdout` of a million cases does not
// hold them in memory. A render error leaves what was written so far.
func writeDirect(path string, render func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := render(bw); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// AppendFile renders a report into memory and appends it to path in one
// write, creating the file when missing: for files other steps also write,
// such as GitHub's $GITHUB_STEP_SUMMARY, which collects each step's
// Markdown. A render error leaves the file untouched.
func AppendFile(path string, render func(io.Writer) error) error {
	if render == nil {
		return fmt.Errorf("append to %s: no renderer", path)
	}
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		_ = f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}
