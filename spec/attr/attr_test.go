package attr

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// reader evaluates without variables, as the loader's static context
// does for literals, and collects what it reports.
func reader(t *testing.T, src string) (hcl.Attributes, Reader, *[]string) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "s.nlutest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	attrs, diags := f.Body.JustAttributes()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	r := Reader{
		Static: func(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
			v, diags := a.Expr.Value(nil)
			if !diags.HasErrors() {
				var err error
				if v, err = convert.Convert(v, ty); err == nil {
					return v, true
				}
			}
			got = append(got, fmt.Sprintf("%d: bad %s", a.Range.Start.Line, what))
			return cty.NilVal, false
		},
		Errorf: func(rng *hcl.Range, summary, detail string, args ...any) {
			got = append(got, fmt.Sprintf("%d:%d: %s: %s", rng.Start.Line, rng.Start.Column, summary, fmt.Sprintf(detail, args...)))
		},
	}
	return attrs, r, &got
}

// A present attribute is read as its type; a missing, null or unreadable
// one takes the default (the unreadable one having been reported by
// Static); a null inside a list is an error at the list and is left out.
func TestReader(t *testing.T) {
	attrs, r, got := reader(t, `场景 = "订票"
核心 = true
标签 = ["出行", null, "机票"]
空   = null
坏   = [1, [2]]
`)
	if s := r.String(attrs, "场景", "默认"); s != "订票" {
		t.Errorf("String = %q", s)
	}
	if s := r.String(attrs, "无", "默认"); s != "默认" {
		t.Errorf("missing String = %q", s)
	}
	if s := r.String(attrs, "空", "默认"); s != "默认" {
		t.Errorf("null String = %q", s)
	}
	if b := r.Bool(attrs, "核心", false); !b {
		t.Error("Bool = false")
	}
	if b := r.Bool(attrs, "无", true); !b {
		t.Error("missing Bool did not take the default")
	}
	if l := r.StringList(attrs, "标签"); !reflect.DeepEqual(l, []string{"出行", "机票"}) {
		t.Errorf("StringList = %q", l)
	}
	if l := r.StringList(attrs, "坏"); l != nil {
		t.Errorf("unreadable StringList = %q", l)
	}
	want := []string{
		`3:6: Null in list: The "标签" list must not contain null.`,
		`5: bad "坏" attribute`,
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("reported:\n got %q\nwant %q", *got, want)
	}
}
