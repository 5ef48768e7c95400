package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// FileError says in words what went wrong with a file a user named —
// "suites/x does not exist" — instead of Go's "stat suites/x: no such file
// or directory"; other errors are returned as they are.
func FileError(err error) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pe.Path + " does not exist"
	case errors.Is(err, fs.ErrPermission):
		return pe.Path + " cannot be read (permission denied)"
	case errors.Is(err, syscall.ENOTDIR), pe.Op == "mkdir" && errors.Is(err, fs.ErrExist):
		if f := fileInTheWay(pe.Path); f != "" {
			return f + " is a file, not a directory"
		}
		return pe.Path + ": part of the path is a file, not a directory"
	case errors.Is(err, syscall.EISDIR):
		return pe.Path + " is a directory, not a file"
	}
	return pe.Path + ": " + pe.Err.Error()
}

// fileInTheWay is the nearest of path and its parents that exists, when
// it is not a directory ("" otherwise).
func fileInTheWay(path string) string {
	for p := path; ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return ""
			}
			return p
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}
