package assert

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// A threshold's observed metric is named as a condition spells it (issue
// 17, friction 11: JUnit wrote metrics.split["smoke"] where the condition
// said metrics.split.smoke), while ratios stay indexed by the canonical,
// bracketed address.
func TestObservedNamesAsConditionsSpellThem(t *testing.T) {
	tests := []struct{ cond, name, key string }{
		{`metrics.split.smoke.accuracy`, `metrics.split.smoke.accuracy`, `metrics.split["smoke"].accuracy`},
		{`metrics.split["smoke"].accuracy`, `metrics.split.smoke.accuracy`, `metrics.split["smoke"].accuracy`},
		{`metrics.scene.出行.accuracy`, `metrics.scene.出行.accuracy`, `metrics.scene["出行"].accuracy`},
		{`metrics.scene["出行/天气"].accuracy`, `metrics.scene["出行/天气"].accuracy`, `metrics.scene["出行/天气"].accuracy`},
		{`metrics.level["2"].accuracy`, `metrics.level["2"].accuracy`, `metrics.level["2"].accuracy`},
		{`metrics.label["intent"].macro_f1`, `metrics.label.intent.macro_f1`, `metrics.label.intent.macro_f1`},
		{`metrics.accuracy`, `metrics.accuracy`, `metrics.accuracy`},
	}
	for _, tt := range tests {
		expr, diags := hclsyntax.ParseExpression([]byte(tt.cond), "c", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tt.cond, diags)
		}
		tr := expr.Variables()[0]
		if got := conditionAddress(testTree(t), tr); got != tt.name {
			t.Errorf("%s: named %s, want %s", tt.cond, got, tt.name)
		}
		if got := canonicalAddress(testTree(t), tr); got != tt.key {
			t.Errorf("%s: indexed by %s, want %s", tt.cond, got, tt.key)
		}
	}
}

// testTree is the metrics tree of the built-in families and source kinds.
func testTree(t *testing.T) *schema.Tree {
	t.Helper()
	tree, err := spec.NewTree(DefaultFamilies().Shapes(), []spec.SourceKind{template.Kind{}})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
