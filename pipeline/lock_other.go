//go:build !unix

package pipeline

import "os"

// lockFile does nothing where flock is missing: the run directory rules
// (never overwrite a recorded run) still hold.
func lockFile(*os.File) error { return nil }
