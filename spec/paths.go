package spec

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Size caps on the files a suite reads besides its own.
const (
	// MaxMaterialBytes caps a materials source file.
	MaxMaterialBytes = 256 << 20
	// MaxFileBytes caps what file() reads.
	MaxFileBytes = 16 << 20
)

// FileAccess says which files a suite may read besides its own: regular
// files (not FIFOs or devices, which block or never end), up to a size
// cap, inside the suite directory (after following symlinks) unless
// AllowOutside (`--allow-outside`) is set. validate and fmt are natural to
// run on untrusted pull requests; such a suite must not read /etc/passwd.
type FileAccess struct {
	// Dir is the suite directory.
	Dir string
	// AllowOutside lets paths leave Dir (.., absolute paths, symlinks).
	AllowOutside bool
}

// ErrOutside is the error of a path outside the suite directory.
var ErrOutside = errors.New("outside the suite directory")

// Read reads name, relative to base when not absolute, under fa's rules.
// It returns the file's bytes and its path relative to the suite
// directory, with forward slashes (what records show).
func (fa FileAccess) Read(base, name string, limit int64) (data []byte, rel string, err error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, name)
	}
	rel = suiteRel(fa.Dir, path)
	st, err := fa.Check(base, name)
	if err != nil {
		return nil, rel, err
	}
	if st.Size() > limit {
		return nil, rel, fmt.Errorf("%s is %d bytes, over the %d MiB limit", path, st.Size(), limit>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, rel, err
	}
	defer f.Close()
	// The cap holds even if the file was swapped after the Stat.
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is over the %d MiB limit", path, limit>>20)
	}
	return data, rel, err
}

// Check checks that name (relative to base when not absolute) may be read
// under fa's rules — inside the suite directory unless AllowOutside, a
// regular file — and returns its FileInfo. It never opens the file
// (opening a FIFO blocks until it has a writer).
func (fa FileAccess) Check(base, name string) (os.FileInfo, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, name)
	}
	if !fa.AllowOutside {
		if err := fa.inside(path); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a FIFO, device or directory cannot be read as one)", path)
	}
	return st, nil
}

// inside checks that path, with every symlink followed, is inside the
// suite directory.
func (fa FileAccess) inside(path string) error {
	dir, err := filepath.EvalSymlinks(fa.Dir)
	if err != nil {
		dir = fa.Dir
	}
	dir, _ = filepath.Abs(dir)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			real = path // not there: the read says so; the path may still leave
		} else {
			return err
		}
	}
	real, _ = filepath.Abs(real)
	if r, err := filepath.Rel(dir, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is %w %s: a suite reads only files inside its directory (after following symlinks); move the file there, or pass --allow-outside when you trust the suite", path, ErrOutside, fa.Dir)
	}
	return nil
}

// suiteRel is path relative to the suite directory with forward slashes,
// or path itself when it has none.
func suiteRel(dir, path string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	r, err := filepath.Rel(ad, ap)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}
