package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockFile is the run directory's lock: a live run (or resume) holds it,
// so two runs never write one directory.
const LockFile = ".lock"

var errBusy = errors.New("busy")

// lockDir takes the lock of run directory dir; the returned function
// releases it (the process ending releases it too).
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the run directory: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errBusy) {
			return nil, invalidf("%s is in use by another nlutest run; wait for it, or choose another --out directory", dir)
		}
		return nil, fmt.Errorf("cannot lock the run directory: %w", err)
	}
	return func() { f.Close() }, nil
}
