package reporters

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"

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

// caseBatch is how many listed cases JSON encodes into one buffer (about
// 350 bytes each for a passing case). From parallelFrom cases, on several
// cores, the list is cut into as many parts as cores: the calling
// goroutine encodes the first part straight into the output, each other
// part is encoded at the same time into memory by a goroutine of its own,
// and written after the part before it. One hand-over per part, not one
// per batch: a pipeline of batches handed back and forth between
// goroutines waited on the kernel's scheduling at every hand-over, and on
// a loaded machine took twice as long as one goroutine (docs/performance.md,
// issue 27, "the report after the results").
const (
	caseBatch    = 1024
	parallelFrom = 32768
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
// below parallelFrom cases or on one core, otherwise in parts on every
// core (writeCasesInParts).
func writeCases(w *bufio.Writer, r *schema.Report, n int) error {
	if parts := runtime.GOMAXPROCS(0); parts > 1 && n >= parallelFrom {
		return writeCasesInParts(w, r, n, parts)
	}
	return writeCaseRange(w, r, 0, n)
}

// writeCaseRange encodes cases lo to hi into w, caseBatch at a time.
func writeCaseRange(w io.Writer, r *schema.Report, lo, hi int) error {
	e := caseEncoder{r: r}
	var b []byte
	for ; lo < hi; lo += caseBatch {
		var err error
		b, err = e.appendCases(b[:0], lo, min(lo+caseBatch, hi))
		if _, werr := w.Write(b); err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chunks is encoded JSON kept in memory as a list of buffers (never one
// buffer grown and copied), written out in order by writeTo.
type chunks struct{ bufs [][]byte }

func (c *chunks) Write(p []byte) (int, error) {
	c.bufs = append(c.bufs, slices.Clone(p))
	return len(p), nil
}

func (c *chunks) writeTo(w io.Writer) {
	for i, b := range c.bufs {
		w.Write(b)
		c.bufs[i] = nil // written: the collector may take it
	}
}

// writeCasesInParts cuts the list into parts: part 0 is encoded into w
// by the calling goroutine while each other part is encoded into memory
// by one of its own, then written after the part before it. An error
// stops the writing at the failing case's part (what that part encoded
// before it is written first, as one goroutine would have).
func writeCasesInParts(w *bufio.Writer, r *schema.Report, n, parts int) error {
	type part struct {
		out  chunks
		err  error
		done chan struct{}
	}
	ps := make([]*part, parts)
	for k := 1; k < parts; k++ {
		p := &part{done: make(chan struct{})}
		ps[k] = p
		go func() {
			defer close(p.done)
			p.err = writeCaseRange(&p.out, r, k*n/parts, (k+1)*n/parts)
		}()
	}
	err := writeCaseRange(w, r, 0, n/parts)
	for _, p := range ps[1:] {
		<-p.done // every goroutine ends before JSON returns
		if err != nil {
			continue
		}
		p.out.writeTo(w)
		err = p.err
	}
	return err
}
func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}
