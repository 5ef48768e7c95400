package spec

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestCheckContextMarksSecrets: in the check context a function failing on
// a sensitive value (or a part of it) does not quote it, functions behave
// as before otherwise (argument conversion, results), and values are
// marked until unmarked; the base context is unchanged.
func TestCheckContextMarksSecrets(t *testing.T) {
	const tok = "S3cr3t-标记-99"
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": `
suite "标记" {}
variable "token" {
  default   = "` + tok + `"
  sensitive = true
}
variable "plain" { default = "public-value" }
`})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	eval := func(ctx *hcl.EvalContext, src string) (cty.Value, hcl.Diagnostics) {
		e, d := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.Pos{Line: 1, Column: 1})
		if d.HasErrors() {
			t.Fatal(d)
		}
		return e.Value(ctx)
	}
	for _, src := range []string{"tonumber(var.token)", "tonumber(substr(var.token, 0, 6))", "tobool(var.token)", `regex(var.token, "x")`} {
		_, d := eval(s.CheckBaseContext(), src)
		if !d.HasErrors() || strings.Contains(d.Error(), "S3cr3t") || !strings.Contains(d.Error(), "not shown") {
			t.Errorf("%s in the check context: %v", src, d)
		}
		if _, d := eval(s.BaseContext(), src); !d.HasErrors() {
			t.Errorf("%s in the base context should fail too", src)
		}
	}
	if _, d := eval(s.CheckBaseContext(), "tonumber(var.plain)"); !d.HasErrors() || !strings.Contains(d.Error(), "public-value") {
		t.Errorf("an error on a value that is not sensitive should still quote it: %v", d)
	}
	for src, want := range map[string]cty.Value{
		"upper(5)":                     cty.StringVal("5"),
		"strlen(var.token)":            cty.NumberIntVal(int64(len([]rune(tok)))),
		`var.token == "` + tok + `"`:   cty.True,
		`startswith(var.token, "S3c")`: cty.True,
	} {
		v, d := eval(s.CheckBaseContext(), src)
		if d.HasErrors() {
			t.Errorf("%s: %v", src, d)
			continue
		}
		if strings.Contains(src, "var.token") && !v.IsMarked() {
			t.Errorf("%s: the result of a sensitive value is not marked", src)
		}
		if got := Unmark(v); !got.RawEquals(want) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
	}
}
