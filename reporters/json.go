package reporters

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

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
// case. A value JSON cannot hold (NaN) in the
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
// 350 bytes each for a passing case) before writing it. The list is
// encoded by one goroutine: cut into parts encoded on every core, the
// render of the 1,000,000-result eval bench's report.json took 115-160 ms
// inside the eval process against 48-84 ms on one core (the parts'
// buffers started collections of the heap the replay left), so that was
// taken out again (docs/performance.md, issue 27, "the report after the
// results").
const caseBatch = 1024

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

// writeCases encodes the report's n listed cases into w, caseBatch at a
// time.
func writeCases(w io.Writer, r *schema.Report, n int) error {
	e := caseEncoder{r: r}
	var b []byte
	for lo := 0; lo < n; lo += caseBatch {
		var err error
		b, err = e.appendCases(b[:0], lo, min(lo+caseBatch, n))
		if _, werr := w.Write(b); err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}
