//go:build linux

package assert

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU runs fn on one locked OS thread and returns the CPU time
// (user + system) that thread used: unlike the wall clock, it does not
// count the time other jobs on a busy machine held the CPU.
func threadCPU(fn func()) (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a, b syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &a) != nil {
		fn()
		return 0, false
	}
	fn()
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &b) != nil {
		return 0, false
	}
	return time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano()), true
}
