//go:build linux

package reporters

import (
	"os"
	"syscall"
)

// startWriteback asks the kernel to start writing the file's bytes
// [off, off+n) to disk now, without waiting (sync_file_range with
// SYNC_FILE_RANGE_WRITE): the disk then writes while the rest of the
// report is rendered, and the Sync before the rename waits for what is
// left rather than for the whole file. Advisory: an error is ignored,
// and Sync still makes the whole file durable.
func startWriteback(f *os.File, off, n int64) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_ = syscall.SyncFileRange(int(fd), off, n, syncFileRangeWrite)
		})
	}
}

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE (linux/fs.h).
const syncFileRangeWrite = 2
