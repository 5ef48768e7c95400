package drift

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A condition says which way a metric improves by comparing it (on
// either side) with something else; no comparison, or two that disagree,
// say nothing.
func TestDirection(t *testing.T) {
	isAccuracy := func(e hclsyntax.Expression) bool {
		st, ok := e.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(st.Traversal) < 2 {
			return false
		}
		a, ok := st.Traversal[1].(hcl.TraverseAttr)
		return ok && a.Name == "准确率"
	}
	for cond, want := range map[string]string{
		`metrics.准确率 >= 0.8`:                              "higher",
		`metrics.准确率 > 0.8`:                               "higher",
		`0.8 <= metrics.准确率`:                              "higher",
		`metrics.准确率 <= 0.2`:                              "lower",
		`0.2 > metrics.准确率`:                               "lower",
		`metrics.准确率 >= 0.8 && metrics.error_rate <= 0.1`: "higher",
		`metrics.准确率 >= 0.8 && metrics.准确率 <= 0.99`:       "",
		`metrics.准确率 >= 0.8 || metrics.准确率 > 0.5`:         "higher",
		`abs(metrics.准确率 - 0.9) < 0.2`:                    "",
		`metrics.准确率 == 0.9`:                              "",
		`metrics.error_rate <= 0.1`:                       "",
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(cond), "s.nlutest.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", cond, diags)
		}
		if got := Direction(expr, isAccuracy); got != want {
			t.Errorf("Direction(%s) = %q, want %q", cond, got, want)
		}
	}
	if got := Direction(hcl.StaticExpr(cty.True, hcl.Range{}), isAccuracy); got != "" {
		t.Errorf("a non-syntax expression: %q", got)
	}
}
