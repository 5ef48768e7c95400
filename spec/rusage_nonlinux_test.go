//go:build !linux

package spec

import "time"

// maxRSS is unavailable here; the benchmarks report MB-sys only.
func maxRSS() (int64, bool) { return 0, false }

// processCPU is unavailable here; complexity tests skip.
func processCPU() (time.Duration, bool) { return 0, false }
