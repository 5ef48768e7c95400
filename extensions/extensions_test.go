package extensions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The default set has every built-in family, in the tree's order, and the
// one defined in a package of its own (assert/usage) counts: a result's
// usage reaches metrics.usage, as it did when the family lived in assert.
// A collector given no families (nil) has the tree's usage with no figures.
func TestDefaultFamilies(t *testing.T) {
	x := Default()
	builtin := schema.BuiltinFamilies()
	if len(x.Families) != len(builtin) {
		t.Fatalf("%d families, want the %d built-in ones", len(x.Families), len(builtin))
	}
	for i, f := range x.Families {
		if f.Shape() != builtin[i] {
			t.Errorf("family %d is %q, want %q", i, f.Shape().Name, builtin[i].Name)
		}
	}
	dir := t.TempDir()
	src := "suite \"用量\" {}\ntemplate \"问候\" {\n  text = \"你好\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, x.LoadOptions(spec.Options{}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	usage := func(fams assert.Families) string {
		col := assert.NewCollector(s, fams)
		ev := assert.NewEvaluator(s)
		for i, n := range []int{10, 32} {
			r := &schema.Result{Case: schema.Case{ID: string(rune('a' + i)), Text: "你好", Template: "问候", Source: "问候", SourceKind: schema.KindTemplate},
				Response: json.RawMessage(`{}`), Usage: &schema.Usage{PromptTokens: n, CompletionTokens: 5, TotalTokens: n + 5}}
			col.Add(r, ev.Evaluate(r))
		}
		b, _ := json.Marshal(assert.BuildReport(s, col, schema.RunInfo{}, "test", nil).Metrics.Families["usage"])
		return string(b)
	}
	if got := usage(x.Families); got != `{"calls":2,"prompt_tokens":42,"completion_tokens":10,"total_tokens":52}` {
		t.Errorf("metrics.usage with the default set = %s", got)
	}
	if got := usage(nil); got != "null" {
		t.Errorf("metrics.usage with assert's families alone = %s, want none", got)
	}
}
