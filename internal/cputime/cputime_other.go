//go:build !unix

package cputime

import "time"

// Process is unavailable here; the benchmarks then report wall-clock
// figures only.
func Process() (time.Duration, bool) { return 0, false }
