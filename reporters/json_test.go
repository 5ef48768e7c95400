package reporters

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// TestJSONRoundTrip: the JSON report reads back into a schema.Report that
// renders to the same bytes, so other tools (and `nlutest diff`) can rely on
// it; it is indented by two spaces, ends with a newline and keeps HTML
// characters and Chinese text as they are.
func TestJSONRoundTrip(t *testing.T) {
	for _, r := range []*schema.Report{iaoPass(), iaoFail(), quickstart()} {
		var first bytes.Buffer
		if err := JSON(&first, r); err != nil {
			t.Fatal(err)
		}
		out := first.String()
		if !strings.HasSuffix(out, "}\n") || !strings.HasPrefix(out, "{\n  \"tool\": \"nlutest\",\n") {
			t.Errorf("%s: not two-space indented JSON with a trailing newline", r.Suite.Name)
		}
		var back schema.Report
		if err := json.Unmarshal(first.Bytes(), &back); err != nil {
			t.Fatalf("%s: %v", r.Suite.Name, err)
		}
		var second bytes.Buffer
		if err := JSON(&second, &back); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Errorf("%s: JSON does not survive a round trip", r.Suite.Name)
		}
		if back.Verdict.Outcome != r.Verdict.Outcome || len(back.Cases) != len(r.Cases) || !back.Run.Started.Equal(r.Run.Started) {
			t.Errorf("%s: fields lost in the round trip", r.Suite.Name)
		}
	}
	var b bytes.Buffer
	if err := JSON(&b, quickstart()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"text": "订一张去東京的机票 | 经济舱"`, `<b>|</b>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %q (HTML must not be escaped)", want)
		}
	}
	if strings.Contains(b.String(), `\u003c`) {
		t.Errorf("JSON escapes HTML characters")
	}
}

func TestJSONErrors(t *testing.T) {
	if err := JSON(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report: want an error")
	}
	r := quickstart()
	r.Metrics.Latency.MeanMS = math.NaN()
	var b bytes.Buffer
	if err := JSON(&b, r); err == nil || b.Len() != 0 {
		t.Errorf("NaN cannot be JSON: want an error and no output, got %v and %d bytes", err, b.Len())
	}
}
