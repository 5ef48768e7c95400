package spec

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestURLEncode: urlencode encodes a URL query component as Terraform's
// urlencode and Go's url.QueryEscape do (a space is "+"; "+", "/", "&",
// "=" and non-ASCII bytes are %XX with upper-case hex), so a service's
// query parser gives back the value; a sensitive value stays marked.
func TestURLEncode(t *testing.T) {
	const tok = "S3cr3tTok/en+xyz"
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": `
suite "编码" {}
variable "token" {
  default   = "` + tok + `"
  sensitive = true
}
`})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	eval := func(ctx *hcl.EvalContext, src string) cty.Value {
		t.Helper()
		e, d := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.Pos{Line: 1, Column: 1})
		if d.HasErrors() {
			t.Fatal(d)
		}
		v, d := e.Value(ctx)
		if d.HasErrors() {
			t.Fatalf("%s: %v", src, d)
		}
		return v
	}
	for in, want := range map[string]string{
		tok:                    "S3cr3tTok%2Fen%2Bxyz",
		"a b&c=d?e#f":          "a+b%26c%3Dd%3Fe%23f",
		"机密 key":               "%E6%9C%BA%E5%AF%86+key",
		"-._~AZaz09":           "-._~AZaz09",
		"":                     "",
		"sk-proj-Ab3+De/Fg9_H": "sk-proj-Ab3%2BDe%2FFg9_H",
	} {
		got := eval(s.BaseContext(), `urlencode(`+strconvQuote(in)+`)`)
		if got.AsString() != want {
			t.Errorf("urlencode(%q) = %q, want %q", in, got.AsString(), want)
		}
		if back, err := url.QueryUnescape(want); err != nil || back != in {
			t.Errorf("url.QueryUnescape(%q) = %q, %v: not %q", want, back, err, in)
		}
	}
	url := eval(s.CheckBaseContext(), `"http://127.0.0.1/x?key=${urlencode(var.token)}"`)
	if !url.IsMarked() {
		t.Error("urlencode of a sensitive value is not marked")
	}
	if got := Unmark(url).AsString(); got != "http://127.0.0.1/x?key=S3cr3tTok%2Fen%2Bxyz" {
		t.Errorf("url = %q", got)
	}
	e, _ := hclsyntax.ParseExpression([]byte(`urlencode(12)`), "x.hcl", hcl.Pos{Line: 1, Column: 1})
	if v, d := e.Value(s.BaseContext()); d.HasErrors() || v.AsString() != "12" {
		t.Errorf("urlencode(12) = %#v, %v: a number converts to a string as in other string functions", v, d)
	}
	e, _ = hclsyntax.ParseExpression([]byte(`urlencode(["a"])`), "x.hcl", hcl.Pos{Line: 1, Column: 1})
	if _, d := e.Value(s.BaseContext()); !d.HasErrors() || !strings.Contains(d.Error(), "string required") {
		t.Errorf("urlencode of a list: %v", d)
	}
}

// strconvQuote quotes s as an HCL string literal (no ${ or %{ in the
// inputs above).
func strconvQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestFunctionsDocumented: docs/language.md's function table names every
// function a suite can call, and no other.
func TestFunctionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(doc), "### Functions\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	documented := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| group") {
			continue
		}
		// Rows with prose name each function as a call, NAME(…); the
		// others are lists of names.
		prose := strings.HasPrefix(line, "| nlutest") || strings.HasPrefix(line, "| errors")
		spans := strings.Split(line, "`")
		for i := 1; i < len(spans); i += 2 {
			name, _, call := strings.Cut(spans[i], "(")
			if call || !prose {
				documented[name] = true
			}
		}
	}
	fns := Functions(FileAccess{})
	fns["env"] = envFunc(nil) // only in a variable's default
	for name := range fns {
		if !documented[name] {
			t.Errorf("docs/language.md's function table lacks %s", name)
		}
	}
	for name := range documented {
		if _, ok := fns[name]; !ok {
			t.Errorf("docs/language.md's function table names %s, which is no function", name)
		}
	}
}
