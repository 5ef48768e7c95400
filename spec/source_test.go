package spec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
)

const sourcesSuite = `
materials "城市" { values = ["北京", "上海"] }
template "查天气" {
  text   = "{城市}天气"
  expect = { "$.city" = "{城市}" }
}
template "订机票" { text = "订去{城市}的机票" }
`

// Every template is a case source, in declaration order; scripts of one
// turn carry the case's id and source.
func TestTemplatesAreCaseSources(t *testing.T) {
	s := genSuite(t, sourcesSuite)
	var names []string
	for _, src := range s.CaseSources {
		names = append(names, src.Kind()+":"+src.Name())
		if src.Kind() != schema.KindTemplate {
			t.Errorf("source %s is not a template", src.Name())
		}
	}
	if got, want := names, []string{"template:查天气", "template:订机票"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("case sources %v, want %v", got, want)
	}
	var scripts []*schema.Script
	if err := s.GenerateScripts(GenOptions{}, func(sc *schema.Script) error { scripts = append(scripts, sc); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 4 {
		t.Fatalf("%d scripts, want 4", len(scripts))
	}
	for _, sc := range scripts {
		c := sc.Turns[0]
		if len(sc.Turns) != 1 || sc.ID != c.ID || sc.Source != c.Template || sc.SourceKind != "template" ||
			c.Source != c.Template || c.SourceKind != "template" {
			t.Errorf("script %+v of case %+v: want one turn keyed by the case id, source = its template", sc, c)
		}
	}
	// GenOptions.Sources selects sources by kind and name.
	cases, _ := genCases(t, s, GenOptions{Sources: func(kind, name string) bool { return name == "订机票" }})
	if len(cases) != 2 || cases[0].Template != "订机票" {
		t.Errorf("Sources filter kept %d cases, want the 2 of 订机票", len(cases))
	}
}

// A record written before case sources had kinds (template only) is read
// as a template case and rebuilt from that template.
func TestOldTemplateRecordRebuilds(t *testing.T) {
	s := genSuite(t, sourcesSuite)
	cases, _ := genCases(t, s, GenOptions{})
	want := cases[0]
	line := `{"id":"` + want.ID + `","suite":"s","template":"查天气","text":"` + want.Text + `","core":false,` +
		`"slots":{"城市":{"value":"北京","source":"城市"}},"expect":{"$.city":"上海"}}`
	var old schema.Result
	if err := json.Unmarshal([]byte(line), &old); err != nil {
		t.Fatal(err)
	}
	if kind, name := old.SourceOf(); kind != "template" || name != "查天气" {
		t.Fatalf("old record's source is %s %q, want template 查天气", kind, name)
	}
	rb := s.NewRebuilder()
	c, ok := rb.Rebuild(&old.Case)
	if !ok || c.ID != want.ID || c.Expect[0].Value != "北京" {
		t.Fatalf("Rebuild of an old record: ok=%v case=%+v", ok, c)
	}
	var r schema.Result
	var rest schema.Deferred
	if err := r.DecodeForEval([]byte(line), &rest); err != nil {
		t.Fatal(err)
	}
	if c, ok := rb.RebuildRecord(&r.Case, rest.Slots); !ok || c.ID != want.ID || c.Source != "查天气" {
		t.Fatalf("RebuildRecord of an old record: ok=%v case=%+v", ok, c)
	}
	// A source that is gone rebuilds nothing.
	r.SourceKind, r.Source = "dataset", "查天气"
	if _, ok := rb.RebuildRecord(&r.Case, rest.Slots); ok {
		t.Error("a case of an undeclared source kind was rebuilt")
	}
}

// The `case` object has every field schema.CaseFields marks Expr, each
// with the case's value, and case.slots has every field of a slot record;
// ContextFor gives the same values as CaseContext.
func TestCaseObjectFollowsCaseFields(t *testing.T) {
	c := &schema.Case{ID: "i", Text: "t", Template: "tp", Level: "S1", Core: true, Scene: []string{"a", "b"},
		Tags: []string{"x"}, Split: []string{"smoke"}, Schema: "rasa", Suite: "s", Source: "tp", SourceKind: "template",
		Slots: map[string]schema.Slot{"城市": {Value: "北京", Normalized: "Beijing", Tag: "city", Level: "M1", Source: "城市"}}}
	v := CaseValue(c)
	for _, f := range schema.CaseFields {
		if v.Type().HasAttribute(f.Name) != f.Expr {
			t.Errorf("case.%s present = %v, want %v (schema.CaseFields)", f.Name, !f.Expr, f.Expr)
		}
	}
	if got := v.GetAttr("scene").AsValueSlice()[1].AsString(); got != "b" || !v.GetAttr("core").True() || v.GetAttr("text").AsString() != "t" {
		t.Errorf("case object %#v", v)
	}
	slot := v.GetAttr("slots").GetAttr("城市")
	st := reflect.TypeFor[schema.Slot]()
	for i := 0; i < st.NumField(); i++ {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if !slot.Type().HasAttribute(name) {
			t.Errorf("case.slots[…] has no %q", name)
		}
	}
	s := genSuite(t, sourcesSuite)
	for _, name := range CaseAttributes {
		expr, diags := hclsyntax.ParseExpression([]byte("case."+name), "x", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		want, _ := expr.Value(s.CaseContext(c))
		got, _ := expr.Value(s.ContextFor(c, NeedsOf(expr)))
		if !got.RawEquals(want) {
			t.Errorf("case.%s: ContextFor gives %#v, CaseContext %#v", name, got, want)
		}
	}
}
