package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// ResultsFile is the name of the results file in a run directory.
const ResultsFile = "results.jsonl"

// ResultsWriter appends results to a JSONL file, one line each. Write
// writes a result at once. Add gathers results into a group that Flush
// writes with one write(2) — the group commit of a live run: Run's OnIdle
// flushes whenever every finished call has been handed on, at most once
// per GroupWindow, so results that finish together or in quick succession
// share a write while a run whose calls finish further apart still writes
// each at once — and a group never holds more than GroupResults results or
// GroupBytes bytes before it is written.
type ResultsWriter struct {
	f   *os.File
	buf []byte // lines added and not yet written
	n   int    // results in buf
}

// The bounds of a group of results Add gathers before writing it.
const (
	GroupResults = 64
	GroupBytes   = 64 << 10
)

// GroupWindow is the Config.IdleGap of a live run: the group is written
// when the run waits, but not more often than once per window, so under
// load results gather for up to this long (or GroupResults) and share a
// write, while a run whose calls finish further apart writes each at once.
const GroupWindow = 5 * time.Millisecond

// maxKeptBuffer is the largest group buffer kept for the next group; one
// grown by a huge result is dropped once written.
const maxKeptBuffer = 1 << 20

// CreateResults opens path for appending, creating it when missing.
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &ResultsWriter{f: f}, nil
}

// Write appends one result and writes it (with any results added before)
// at once.
func (w *ResultsWriter) Write(r *schema.Result) error {
	if err := w.add(r); err != nil {
		return err
	}
	return w.Flush()
}

// Add appends one result to the group not yet written; it writes the
// group when that reaches GroupResults results or GroupBytes bytes.
func (w *ResultsWriter) Add(r *schema.Result) error {
	if err := w.add(r); err != nil {
		return err
	}
	if w.n >= GroupResults || len(w.buf) >= GroupBytes {
		return w.Flush()
	}
	return nil
}

func (w *ResultsWriter) add(r *schema.Result) error {
	b, err := schema.AppendResultLine(w.buf, r)
	if err != nil {
		return fmt.Errorf("encoding result %s: %w", r.ID, err)
	}
	w.buf = b
	w.n++
	return nil
}

// WriteAll appends the results of one script (a conversation's turns)
// and writes them, with any results added before, in one write, so a run
// killed while writing leaves them whole or torn in their last line only
// at the end of the file (see pipeline's resume, which drops a
// conversation cut short there). A result that cannot be encoded writes
// none of them.
func (w *ResultsWriter) WriteAll(rs []*schema.Result) error {
	mark, n := len(w.buf), w.n
	for _, r := range rs {
		if err := w.add(r); err != nil {
			w.buf, w.n = w.buf[:mark], n
			return err
		}
	}
	return w.Flush()
}

// Flush writes the results added and not yet written, in one write.
func (w *ResultsWriter) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.f.Write(w.buf)
	w.buf, w.n = w.buf[:0], 0
	if cap(w.buf) > maxKeptBuffer {
		w.buf = nil
	}
	return err
}

// Close writes what is left and closes the file.
func (w *ResultsWriter) Close() error {
	err := w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RecordError is a line of a results file that is not a result record: a
// bad run directory (the command line's exit 2), not a failure to run.
type RecordError struct {
	Path string
	Line int
	Err  error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s:%d: not a result record: %v", e.Path, e.Line, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// errNoID is a record without an id (every result has one).
var errNoID = errors.New("record has no id")

// ReadResults streams the results of a results file to fn. A last line
// without its newline (a run killed mid-write) is dropped; any other line
// that is not a result (or has no id) is a *RecordError naming the line.
func ReadResults(path string, fn func(*schema.Result) error) error {
	return ReadLines(path, resultLine(path, fn))
}

// ReadResultsFrom is ReadResults of a file already open (a replay
// target's, opened under the suite's file rules); name names it in
// errors.
func ReadResultsFrom(r io.Reader, name string, fn func(*schema.Result) error) error {
	line := resultLine(name, fn)
	return ReadLinesFrom(r, func(b []byte, n int, _ Span) error { return line(b, n) })
}

func resultLine(name string, fn func(*schema.Result) error) func([]byte, int) error {
	return func(line []byte, n int) error {
		var res schema.Result
		if err := res.UnmarshalJSON(line); err != nil {
			return &RecordError{name, n, err}
		}
		if res.ID == "" {
			return &RecordError{name, n, errNoID}
		}
		return fn(&res)
	}
}

// MaxReusedLine is the longest line ReadLines reads into the buffer it
// reuses from line to line: 16 MiB, room for a response at the default
// 10 MiB cap (max_response_bytes) and the rest of its record. A longer
// line (a target with a higher cap) is still read whole, into a buffer of
// its own that is dropped once fn returns, so memory holds at most one
// such line at a time.
const MaxReusedLine = 16 << 20

// ReadLines streams the complete, non-blank lines of a JSONL file with
// their line numbers; a torn last line is dropped. The slice is reused
// after fn returns. Memory is one line at a time, however many lines and
// however long (see MaxReusedLine). It reads the run directory nlutest
// wrote.
func ReadLines(path string, fn func(line []byte, n int) error) error {
	return ReadLinesAt(path, func(line []byte, n int, _ Span) error { return fn(line, n) })
}

// Span is where a line lies in its file: Off is its first byte, Len its
// length with the newline, so ReadAt of the span reads it again.
type Span struct {
	Off int64
	Len int
}

// ReadLinesAt is ReadLines that also gives each line's span in the file,
// for reading a record again later without keeping it (ratings export
// sorts by id, then reads one record at a time).
func ReadLinesAt(path string, fn func(line []byte, n int, at Span) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ReadLinesFrom(f, fn)
}

// ReadLinesFrom is ReadLinesAt of an open file (spans from where it is).
func ReadLinesFrom(f io.Reader, fn func(line []byte, n int, at Span) error) error {
	r := bufio.NewReaderSize(f, 1<<20)
	var long []byte // lines longer than r's buffer are gathered here
	n := 0
	var off int64
	for {
		if cap(long) > MaxReusedLine {
			long = nil // a line that long is not kept for the lines to come
		}
		b, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it whole.
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = r.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err == io.EOF {
			return nil // a torn last line (no newline) is dropped
		}
		if err != nil {
			return err
		}
		n++
		at := Span{Off: off, Len: len(b)}
		off += int64(len(b))
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		if err := fn(b, n, at); err != nil {
			return err
		}
	}
}
