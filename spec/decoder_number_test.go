package spec

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// gaugeKind is a target kind of this test only: its block has a number,
// read with the Decoder's Number as a kind outside spec reads one.
type gaugeKind struct{ got *float64 }

var gaugeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "confidence"}, {Name: "weight"}}}

func (gaugeKind) Name() string { return "gauge" }

func (k gaugeKind) Decode(d *TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, gaugeSchema)
	if !ok {
		return nil, false
	}
	*k.got = d.Number(c.Attributes, "confidence", 0.5, 0, 1)
	d.Number(c.Attributes, "weight", 1, 0, math.Inf(1))
	return struct{}{}, true
}

// Decoder.Number reads a number the way the other readers read theirs:
// var.* and functions only, no sensitive variable, the default when
// absent, and a range error that names the range, each at the
// attribute's file:line:col.
func TestDecoderNumber(t *testing.T) {
	for _, c := range []struct {
		name, attr     string
		want           float64
		summary, where string
		detail         string
	}{
		{"absent", ``, 0.5, "", "", ""},
		{"literal", `confidence = 0.9`, 0.9, "", "", ""},
		{"from a variable and a function", `confidence = min(var.置信度, 1)`, 0.8, "", "", ""},
		{"above the range", `confidence = 1.8`, 0.5, "Value out of range", "s.nlutest.hcl:9:18", `The "confidence" attribute must be between 0 and 1; it is 1.8.`},
		{"below an open range", `weight = -2`, 0.5, "Value out of range", "s.nlutest.hcl:9:14", `The "weight" attribute must be at least 0; it is -2.`},
		{"a string", `confidence = "高"`, 0.5, "Incorrect attribute value type", "s.nlutest.hcl:9:18", `must be a number`},
		{"per case", `confidence = case.text == "" ? 1 : 0`, 0.5, "Name not available here", "s.nlutest.hcl:9:18", `In a "confidence" attribute you can use "var".`},
		{"sensitive", `confidence = var.密钥`, 0.5, "Sensitive variable outside a target", "s.nlutest.hcl:9:18", `var.密钥 is sensitive`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `suite "s" {}
variable "置信度" { default = 0.8 }
variable "密钥" {
  default   = 0.3
  sensitive = true
}
target "t" {
  gauge {
    ` + c.attr + `
  }
}
template "问候" {
  text = "你好"
}
`
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
			var got float64
			_, diags := testLoad(dir, Options{TargetKinds: []TargetKind{gaugeKind{&got}}})
			if c.where == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected diagnostics: %v", diags)
				}
				if got != c.want {
					t.Errorf("confidence = %g, want %g", got, c.want)
				}
				return
			}
			if !diags.HasErrors() {
				t.Fatalf("no error, want one at %s", c.where)
			}
			d := findDiag(diags, c.summary)
			if d == nil || d.Subject == nil {
				t.Fatalf("no %q diagnostic with a place in %v", c.summary, diags)
			}
			at := fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
			if at != c.where || !strings.Contains(d.Detail, c.detail) {
				t.Errorf("%s at %s: %s\nwant at %s, detail containing %q", d.Summary, at, d.Detail, c.where, c.detail)
			}
			if strings.Contains(d.Detail, "0.3") {
				t.Errorf("the diagnostic quotes the sensitive value: %s", d.Detail)
			}
		})
	}
}
