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
// encoded one at a time into the output rather than all into one buffer
// that is then indented into a second: the bytes are the same as encoding
// the report whole. A value JSON cannot hold (NaN) in the report's other
// members is an error before anything is written; in a listed case, after
// the cases before it were (WriteFile then leaves no file).
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
	if r.Cases == nil || !found {
		_, err := w.Write(b.Bytes())
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(before)
	bw.WriteString("\n  \"cases\": [")
	enc := newJSONEncoder(trimNewline{bw}, "    ")
	var buf []byte
	for i := range r.Cases {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if cr := &r.Cases[i]; leanCase(cr) {
			buf = appendLeanCase(buf[:0], cr)
			bw.Write(buf)
			continue
		}
		if err := enc.Encode(&r.Cases[i]); err != nil {
			return fmt.Errorf("json report: %w", err)
		}
	}
	if len(r.Cases) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(after)
	return bw.Flush()
}

func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// trimNewline drops the newline json.Encoder ends each value with: a
// listed case is followed by a comma or the end of the list. (Encode
// writes each value in one Write.)
type trimNewline struct{ w *bufio.Writer }

func (t trimNewline) Write(p []byte) (int, error) {
	_, err := t.w.Write(bytes.TrimSuffix(p, []byte("\n")))
	return len(p), err
}
