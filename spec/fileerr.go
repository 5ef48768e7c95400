package spec

import (
	"errors"
	"io/fs"
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
	}
	return pe.Path + ": " + pe.Err.Error()
}
