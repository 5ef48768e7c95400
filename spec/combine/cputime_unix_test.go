//go:build unix

package combine

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used so far;
// false when it cannot be read. Unlike wall-clock time, it does not grow
// when other processes keep the machine busy.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
