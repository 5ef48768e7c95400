package runner

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/nlutest/nlutest/schema"
)

// RepairResults truncates a results file after its last complete line, so
// a run killed while writing can be resumed by appending. It returns the
// number of bytes dropped (0 when the file was whole or missing).
func RepairResults(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	end := size
	for end > 0 {
		start := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return 0, nil
			}
			return size - keep, f.Truncate(keep)
		}
		end = start
	}
	return size, f.Truncate(0)
}

// FilterResults rewrites a results file keeping only the records whose id
// keep accepts (atomically: a temporary file renamed over it). It returns
// how many records it dropped and kept.
func FilterResults(path string, keep func(id string) bool) (dropped, kept int, err error) {
	return FilterLines(path, func(line []byte, n int) (bool, error) {
		id, err := schema.RecordID(line)
		if err != nil {
			return false, &RecordError{path, n, err}
		}
		return keep(id), nil
	})
}

// FilterLines rewrites a results file keeping only the lines keep accepts
// (line n, from 1), atomically as FilterResults does; it leaves the file
// untouched when keep accepts them all.
func FilterLines(path string, keep func(line []byte, n int) (bool, error)) (dropped, kept int, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = ReadLines(path, func(line []byte, n int) error {
		ok, err := keep(line, n)
		if err != nil {
			return err
		}
		if !ok {
			dropped++
			return nil
		}
		kept++
		w.Write(line) // errors stick in w: Flush reports them
		return w.WriteByte('\n')
	})
	if err != nil {
		return 0, 0, err
	}
	if dropped == 0 {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, kept, nil
	}
	for _, step := range []func() error{w.Flush, func() error { return tmp.Chmod(0o644) }, tmp.Sync, tmp.Close} {
		if err = step(); err != nil {
			return 0, 0, err
		}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return 0, 0, err
	}
	return dropped, kept, nil
}
