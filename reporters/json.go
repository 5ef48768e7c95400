package reporters

import (
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
func JSON(w io.Writer, r *schema.Report) error {
	if r == nil {
		return errNilReport
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil { // Encode ends with a newline
		return fmt.Errorf("json report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}
