//go:build linux

package materials

import "syscall"

// maxRSS is the process's peak resident set size in bytes (getrusage).
func maxRSS() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Maxrss * 1024, true // kilobytes on Linux
}
