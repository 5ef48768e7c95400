package reporters

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// TestJSONSameAsWholeEncoding: JSON writes the listed cases one at a time,
// and the bytes must be those of encoding the whole report at once (two
// spaces, HTML kept) — with cases, with an empty list and with none.
func TestJSONSameAsWholeEncoding(t *testing.T) {
	empty, none := quickstart(), quickstart()
	empty.Cases, none.Cases = []schema.CaseReport{}, nil
	one := quickstart()
	one.Cases = one.Cases[:1]
	for _, c := range []struct {
		name string
		r    *schema.Report
	}{{"iao fail", iaoFail()}, {"quickstart", quickstart()}, {"one case", one}, {"empty cases", empty}, {"no cases", none}} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c.r); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := JSON(&got, c.r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: JSON differs from encoding the report whole:\n%s\nwant\n%s", c.name, got.String(), want.String())
		}
	}
}
