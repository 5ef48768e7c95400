//go:build !unix

package assert_test

import "time"

// processCPU is unavailable here; the benchmarks then report wall-clock
// figures only.
func processCPU() (time.Duration, bool) { return 0, false }
