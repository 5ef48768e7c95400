package spec

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/spec/diagfmt"
)

// TestMaterialRowSnippet: a bad row's diagnostic prints the row itself
// under its file:line, like a suite file's.
func TestMaterialRowSnippet(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": "suite \"坏\" {}\nmaterials \"名\" { source = \"m/n.jsonl\" }\ntemplate \"t\" { text = \"{名}\" }\n",
		"m/n.jsonl":     "{\"value\": \"张三\"}\n{\"value\": \"李四\", \"levl\": \"M2\"}\n",
	})
	s, diags := testLoad(dir, Options{})
	if !diags.HasErrors() {
		t.Fatal("want an error")
	}
	var b strings.Builder
	diagfmt.Write(&b, diags, s.Sources, false)
	out := b.String()
	for _, want := range []string{"n.jsonl:2:1:", "2 | {\"value\": \"李四\", \"levl\": \"M2\"}", "^^^", `unknown field "levl"`} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnostic lacks %q:\n%s", want, out)
		}
	}
}
