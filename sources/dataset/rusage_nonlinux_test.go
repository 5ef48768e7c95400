//go:build !linux

package dataset

// maxRSS is unavailable here; the benchmarks report MB-sys only.
func maxRSS() (int64, bool) { return 0, false }
