package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"
)

// Size caps on the files nlutest reads. Every file a suite names, and the
// suite and variable files themselves, is opened by FileAccess.Open (or
// Read), which enforces them.
const (
	// MaxMaterialBytes caps a materials source file.
	MaxMaterialBytes = 256 << 20
	// MaxFileBytes caps what file() reads, and a --var-file file.
	MaxFileBytes = 16 << 20
	// MaxSuiteFileBytes caps a suite file.
	MaxSuiteFileBytes = 64 << 20
	// MaxDataBytes caps the data files a suite streams: datasets, a
	// ranking block's questions, TREC qrels and run files, rating sheets
	// and a replay target's results file.
	MaxDataBytes = 4 << 30
	// MaxCertBytes caps a TLS file: ca_file, client_cert, client_key.
	MaxCertBytes = 1 << 20
)

// FileAccess says which files a suite may read besides its own: regular
// files (not FIFOs or devices, which block or never end), up to a size
// cap, inside the suite directory (after following symlinks) unless
// AllowOutside (`--allow-outside`) is set. validate and fmt are natural to
// run on untrusted pull requests; such a suite must not read /etc/passwd.
//
// Open is the one way nlutest opens a file it was told to read (a guard
// test, internal/readguard, keeps it so). A path the user gave on the
// command line (a suite file, --var-file) is opened with OwnFiles: the
// same rules but the confinement.
type FileAccess struct {
	// Dir is the suite directory.
	Dir string
	// AllowOutside lets paths leave Dir (.., absolute paths, symlinks).
	AllowOutside bool
}

// OwnFiles reads the paths a user gives nlutest themselves (a suite file,
// --var-file): regular files under a size cap, from anywhere.
var OwnFiles = FileAccess{AllowOutside: true}

// ErrOutside is the error of a path outside the suite directory.
var ErrOutside = errors.New("outside the suite directory")

// ErrNotRegular is (errors.Is) the error of a path that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig is (errors.Is) the error of a file over its size cap.
var ErrTooBig = errors.New("over the size limit")

// Read reads name, relative to base when not absolute, under fa's rules.
// It returns the file's bytes and its path relative to the suite
// directory, with forward slashes (what records show).
func (fa FileAccess) Read(base, name string, limit int64) (data []byte, rel string, err error) {
	rel = suiteRel(fa.Dir, joinPath(base, name))
	f, err := fa.Open(base, name, limit)
	if err != nil {
		return nil, rel, err
	}
	defer f.Close()
	// The cap holds even if the file grows while it is read.
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = tooBig(fmt.Sprintf("%s is over the %s limit", f.Name(), sizeText(limit)))
	}
	return data, rel, err
}

// Open opens name, relative to base when not absolute, for reading under
// fa's rules: inside the suite directory unless AllowOutside, a regular
// file, at most limit bytes. The file is opened without blocking and
// checked again once open, so a FIFO put in its place after the check is
// refused, never waited on. A file that does not exist gives an error
// satisfying errors.Is(err, fs.ErrNotExist).
func (fa FileAccess) Open(base, name string, limit int64) (*os.File, error) {
	path := joinPath(base, name)
	if _, err := fa.Check(base, name, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = checkInfo(path, st, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Check checks that name (relative to base when not absolute) may be read
// under fa's rules — inside the suite directory unless AllowOutside, a
// regular file, at most limit bytes — and returns its FileInfo. It never
// opens the file (opening a FIFO blocks until it has a writer).
func (fa FileAccess) Check(base, name string, limit int64) (os.FileInfo, error) {
	path := joinPath(base, name)
	if !fa.AllowOutside {
		if err := fa.inside(path); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkInfo(path, st, limit); err != nil {
		return nil, err
	}
	return st, nil
}

// checkInfo checks that st is a regular file of at most limit bytes.
func checkInfo(path string, st os.FileInfo, limit int64) error {
	switch m := st.Mode(); {
	case m.IsDir():
		return notRegular(path + " is a directory, not a file")
	case m&fs.ModeNamedPipe != 0:
		return notRegular(path + " is a named pipe (FIFO), not a regular file: reading it would wait for a writer; name a regular file")
	case m&fs.ModeDevice != 0:
		return notRegular(path + " is a device, not a regular file: a device such as /dev/zero never ends; name a regular file")
	case !m.IsRegular():
		return notRegular(path + " is not a regular file; name a regular file")
	}
	if st.Size() > limit {
		return tooBig(fmt.Sprintf("%s is %d bytes, over the %s limit", path, st.Size(), sizeText(limit)))
	}
	return nil
}

// notRegular is the error of a path that is not a regular file; it is
// ErrNotRegular.
type notRegular string

func (e notRegular) Error() string        { return string(e) }
func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

// tooBig is the error of a file over its cap; it is ErrTooBig.
type tooBig string

func (e tooBig) Error() string        { return string(e) }
func (e tooBig) Is(target error) bool { return target == ErrTooBig }

// sizeText is a size cap in words: "16 MiB", "4 GiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

func joinPath(base, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(base, name)
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

// checkPath checks a path a suite attribute names (resolved, at rng)
// under the suite's file rules when the suite loads, so validate refuses
// what the read would: a path that breaks a rule is an error "Cannot read
// WHAT" at rng. One that does not exist is an error too when mustExist; a
// file written later (a replay target's results, a rating sheet, a TREC
// run) is left for the read.
func (l *loader) checkPath(rng hcl.Range, what, path string, limit int64, mustExist bool) bool {
	if path == "" {
		return true
	}
	_, err := l.suite.Access.Check("", path, limit)
	if err == nil || !mustExist && errors.Is(err, fs.ErrNotExist) {
		return true
	}
	l.errorf(&rng, "Cannot read "+what, "%s. The path is resolved from the directory of the suite file that names it.", FileError(err))
	return false
}
