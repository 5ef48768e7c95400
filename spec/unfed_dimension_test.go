package spec

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A threshold reading a dimension no expectation of the suite feeds is a
// validate warning naming the expectation that would feed it; the list
// form feeds it, and so silences it.
func TestUnfedDimensionWarning(t *testing.T) {
	suite := func(expect string) string {
		return `
suite "s" { schema = "rasa" }
materials "城市" { values = ["北京"] }
template "t" {
  text   = "去{城市}"
  expect = { ` + expect + ` }
}
threshold "ent" { condition = metrics.dimension.entity.recall >= 0.9 }
`
	}
	warnings := func(src string) []string {
		_, diags := testLoad(writeFiles(t, map[string]string{"s.nlutest.hcl": src}), Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		var out []string
		for _, d := range diags {
			if d.Severity == hcl.DiagWarning && d.Summary == "Dimension fed by no expectation" {
				out = append(out, d.Detail)
			}
		}
		return out
	}
	w := warnings(suite(`"$.entities[?(@.entity == 'city')].value" = ["{城市}"]`))
	if len(w) != 1 || !strings.Contains(w[0], `"$.entities" = [{ entity = "…", value = "…" }]`) {
		t.Errorf("filter form: warnings %q, want one naming the list form", w)
	}
	if w := warnings(suite(`"$.entities" = [{ entity = "city", value = "{城市}" }]`)); len(w) != 0 {
		t.Errorf("list form: warnings %q, want none", w)
	}
}
