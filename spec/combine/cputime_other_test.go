//go:build !unix

package combine

import "time"

// processCPU is unavailable here; the cost checks that need it are skipped.
func processCPU() (time.Duration, bool) { return 0, false }
