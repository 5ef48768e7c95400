//go:build unix

package reporters

import (
	"os"
	"syscall"
)

// hardLinks is the number of hard links of the file fi describes (1 when
// it cannot be told).
func hardLinks(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
