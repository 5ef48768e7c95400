package reporters

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/nlutest/nlutest/schema"
)

// JSON writes the whole report as indented JSON (two spaces) with a
// trailing newline. HTML characters are not escaped, so utterances such as
// "<b>北京</b>" stay readable. The shape is documented in
// docs/report-json.md.
//
// The listed cases, most of a large report (100,000 cases are 35 MB), are
// encoded in batches into the output rather than all into one buffer
// that is then indented into a second: the bytes are the same as encoding
// the report whole. They are read through the report's listing
// (Report.CaseAt), so a report built by a run makes no CaseReport per
// case, and a long list is encoded on every core, batch by batch, the
// batches written in order. A value JSON cannot hold (NaN) in the
// report's other members is an error before anything is written; in a
// listed case, after the cases before it were (WriteFile then leaves no
// file).
func JSON(w io.Writer, r *schema.Report) error {
	if r == nil {
		return errNilReport
	}
	head := *r
	head.Cases = nil
	var b bytes.Buffer
	if err := newJSONEncoder(&b, "").Encode(&head); err != nil { // Encode ends with a newline
		return fmt.Errorf("json report: %w", err)
	}
	// Only the top level is indented by exactly two spaces, and a string
	// holds no raw newline, so the marker is the report's own member.
	before, after, found := bytes.Cut(b.Bytes(), []byte("\n  \"cases\": null"))
	n := r.NumCases()
	if r.Cases == nil && n == 0 || !found {
		_, err := w.Write(b.Bytes())
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(before)
	bw.WriteString("\n  \"cases\": [")
	if err := writeCases(bw, r, n); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(after)
	return bw.Flush()
}

// caseBatch is how many listed cases one batch of JSON's case list holds
// in one goroutine (about 350 bytes each for a passing case), and
// parallelBatch on several; a list is encoded on several cores from
// parallelFrom cases. Each batch handed to another goroutine costs a
// wake-up or two (a few µs of CPU on an idle machine, far more on a
// loaded one), so batches are large and short lists stay on one core:
// the 20,000 cases of a live run take about 5 ms to encode.
const (
	caseBatch     = 1024
	parallelBatch = 4096
	parallelFrom  = 32768
)

// caseEncoder encodes listed cases as JSON writes them, each preceded by
// its separator. It holds what encoding them needs: a scratch report for
// the listing to fill, and encoding/json's encoder for a case the lean
// writer does not take.
type caseEncoder struct {
	r       *schema.Report
	scratch schema.CaseReport
	buf     bytes.Buffer
	enc     *json.Encoder
	lean    leanMemo
}

// appendCases appends cases lo to hi of e.r to b. On an error, b holds the
// cases before the one that failed.
func (e *caseEncoder) appendCases(b []byte, lo, hi int) ([]byte, error) {
	for i := lo; i < hi; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		cr := e.r.CaseAt(i, &e.scratch)
		if leanCase(cr) {
			b = e.lean.appendLeanCase(b, cr)
			continue
		}
		if e.enc == nil {
			e.enc = newJSONEncoder(&e.buf, "    ")
		}
		e.buf.Reset()
		if err := e.enc.Encode(cr); err != nil {
			return b, err
		}
		b = append(b, bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))...)
	}
	return b, nil
}

// writeCases writes the report's n listed cases to w: in one goroutine
// when they fit in a few batches or the process has one core, otherwise
// batch by batch on every core, at most a few batches per core ahead of
// the one written.
func writeCases(w *bufio.Writer, r *schema.Report, n int) error {
	workers := min(runtime.GOMAXPROCS(0), (n+parallelBatch-1)/parallelBatch)
	if workers < 2 || n < parallelFrom {
		e := caseEncoder{r: r}
		var b []byte
		for lo := 0; lo < n; lo += caseBatch {
			var err error
			b, err = e.appendCases(b[:0], lo, min(lo+caseBatch, n))
			w.Write(b)
			if err != nil {
				return err
			}
		}
		return nil
	}
	return writeCasesParallel(w, r, n, workers)
}

// encodedBatch is a batch of listed cases encoded, or the error that
// stopped it (buf then holds the cases before the one that failed).
type encodedBatch struct {
	buf []byte
	err error
}

// writeCasesParallel encodes batches on workers goroutines and writes them
// in order. A batch is handed out, in order, with a free buffer: at most
// 2×workers batches are encoded and not yet written, so memory stays flat,
// and the batch written next is always being encoded or done.
func writeCasesParallel(w *bufio.Writer, r *schema.Report, n, workers int) error {
	type job struct {
		k   int
		buf []byte
	}
	nb := (n + parallelBatch - 1) / parallelBatch
	done := make([]chan encodedBatch, nb)
	for k := range done {
		done[k] = make(chan encodedBatch, 1)
	}
	free := make(chan []byte, 2*workers)
	for range cap(free) {
		free <- nil
	}
	jobs := make(chan job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	wg.Go(func() {
		defer close(jobs)
		for k := range nb {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			select {
			case jobs <- job{k, buf}:
			case <-stop:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			e := caseEncoder{r: r}
			for j := range jobs {
				lo := j.k * parallelBatch
				buf, err := e.appendCases(j.buf[:0], lo, min(lo+parallelBatch, n))
				done[j.k] <- encodedBatch{buf, err}
			}
		})
	}
	for k := range nb {
		b := <-done[k]
		w.Write(b.buf)
		if b.err != nil {
			return b.err
		}
		free <- b.buf
	}
	return nil
}

func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}
