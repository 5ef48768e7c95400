//go:build !linux

package materials

// maxRSS is unavailable here; the benchmarks report MB-sys only.
func maxRSS() (int64, bool) { return 0, false }
