package annotate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/format"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/ohler55/ojg/jp"
)

func init() {
	// Another test file of the package may declare -update too.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata/")
	}
}

func updateGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/name, rewriting it under -update.
func annotGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if updateGoldens() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./spec/annotate -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./spec/annotate -update refreshes it)\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func TestTemplatize(t *testing.T) {
	cands := func(slots map[string]schema.Slot) []slotCandidate {
		a := &annotator{}
		return a.candidates(&schema.Case{Slots: slots})
	}
	rel := schema.Slot{Value: "酒店同房间", Normalized: "酒店同房间同宿"}
	tests := []struct {
		name      string
		slots     map[string]schema.Slot
		in        any
		want      any
		uses      []slotUse
		ambiguous []string
	}{
		{"normalised value, whole string: sure", map[string]schema.Slot{"伴随关系": rel}, "酒店同房间同宿", "{伴随关系}",
			[]slotUse{{key: "伴随关系", sure: true}}, nil},
		{"raw value: probed", map[string]schema.Slot{"手机号11位": {Value: "13301791708"}}, "13301791708", "{手机号11位}",
			[]slotUse{{key: "手机号11位"}}, nil},
		{"raw value of a normalised slot is not a placeholder", map[string]schema.Slot{"伴随关系": rel}, "酒店同房间", "酒店同房间", nil, nil},
		{"leftmost-longest", map[string]schema.Slot{"伴随关系": rel, "地点": {Value: "酒店"}}, "酒店同房间同宿", "{伴随关系}",
			[]slotUse{{key: "伴随关系", sure: true}}, nil},
		{"inside a longer string: probed", map[string]schema.Slot{"城市": {Value: "北京"}, "日期": {Value: "明天"}}, "订一张明天去北京的机票",
			"订一张{日期}去{城市}的机票", []slotUse{{key: "日期"}, {key: "城市"}}, nil},
		{"normalised value inside a longer string: probed", map[string]schema.Slot{"伴随关系": rel}, "查酒店同房间同宿人员", "查{伴随关系}人员",
			[]slotUse{{key: "伴随关系"}}, nil},
		{"two slots, one value: literal", map[string]schema.Slot{"出发城市": {Value: "北京"}, "到达城市": {Value: "北京"}}, "北京", "北京",
			nil, []string{"北京:出发城市,到达城市"}},
		{"literal braces are doubled", map[string]schema.Slot{"城市": {Value: "北京"}}, "{北京}", "{{{城市}}}",
			[]slotUse{{key: "城市"}}, nil},
		{"array of scalars", map[string]schema.Slot{"城市": {Value: "北京"}}, []any{"北京", "上海", int64(3)}, []any{"{城市}", "上海", int64(3)},
			[]slotUse{{key: "城市"}}, nil},
		{"numbers are never replaced", map[string]schema.Slot{"数量": {Value: "200"}}, int64(200), int64(200), nil, nil},
		{"empty slot value is ignored", map[string]schema.Slot{"空": {Value: ""}}, "abc", "abc", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var uses []slotUse
			var amb []string
			got := templatize(tc.in, cands(tc.slots), func(u slotUse) { uses = append(uses, u) }, func(s string, keys []string) {
				amb = append(amb, s+":"+strings.Join(keys, ","))
			})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("templatize(%v) = %#v, want %#v", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(uses, tc.uses) {
				t.Errorf("uses = %+v, want %+v", uses, tc.uses)
			}
			if !reflect.DeepEqual(amb, tc.ambiguous) {
				t.Errorf("ambiguous = %v, want %v", amb, tc.ambiguous)
			}
			// The placeholder form expands back to the response's value.
			if filled := fillPlaceholders(got, tc.slots); len(tc.ambiguous) == 0 && !reflect.DeepEqual(filled, tc.in) && tc.name != "raw value of a normalised slot is not a placeholder" {
				t.Errorf("filled back = %#v, want %#v", filled, tc.in)
			}
		})
	}
}

func TestCanonicalPath(t *testing.T) {
	for _, x := range []jp.Expr{
		jp.R().C("code"),
		jp.R().C("data").N(0).C("content").C("rel").N(0).C("relName"),
		jp.R().C("槽位").C("城市"),
		jp.R().C("a b").C("a.b").C("x-y"),
		jp.R().C("it's").C(`back\slash`),
		jp.R().C("").N(12),
		jp.R().C("[0]").C("$"),
	} {
		p, ok := canonicalPath(x)
		if !ok {
			t.Errorf("%v: no canonical path", x)
			continue
		}
		back, _, err := jsonpath.Compile(p)
		if err != nil || !reflect.DeepEqual(back, x) {
			t.Errorf("%v → %q → %v (%v): does not read back", x, p, back, err)
		}
	}
	if p, _ := canonicalPath(jp.R().C("data").N(0).C("content_op")); p != "$.data[0].content_op" {
		t.Errorf("canonical path = %q, want $.data[0].content_op", p)
	}
}

func TestHCLQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "酒店同房间同宿", `say "hi"`, `a\b`, "line\nbreak\ttab\r", "${var.x}", "%{ if }", "$", "100%", "{手机号11位}", "\x01\x7f", "$${x}"} {
		src := spec.QuoteString(s)
		expr, diags := hclsyntax.ParseExpression([]byte(src), "q", hcl.InitialPos)
		if diags.HasErrors() {
			t.Errorf("%q → %s: %s", s, src, diags.Error())
			continue
		}
		v, diags := expr.Value(nil)
		if diags.HasErrors() || v.AsString() != s {
			t.Errorf("%q → %s → %q (%v)", s, src, v.AsString(), diags)
		}
	}
	if got := format.Value([]any{"SIM_Card", "Person", int64(200), 0.5, true, nil}); got != `["SIM_Card", "Person", 200, 0.5, true, null]` {
		t.Errorf("renderValue = %s", got)
	}
}

// iaoSuite is the IAO corpus-factory write-up's hotel co-residence template, with two phone
// numbers, three operation words and two relations.
const iaoSuite = `
suite "预标注" { schema = "IAO" }

materials "查询操作" { values = ["查询", "查一下", "帮我查"] }
materials "手机号11位" { values = ["13301791708", "13612349005"] }
materials "伴随关系" {
  value "酒店同房间" { normalize = { IAO = "酒店同房间同宿" } }
  value "同住酒店"   { normalize = { IAO = "酒店同住" } }
}

template "hotel-roommates" {
  text     = "{查询操作}{手机号11位}的{伴随关系}人员"
  strategy = "product"
}
`

func loadAnnotSuite(t *testing.T, src string) *spec.Suite {
	t.Helper()
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}})
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return s
}

func annotSamples(t *testing.T, s *spec.Suite, name string, n int) []*schema.Case {
	t.Helper()
	var out []*schema.Case
	_ = s.Generate(spec.GenOptions{}, func(c *schema.Case) error {
		if c.Template == name && len(out) < n {
			out = append(out, c)
		}
		return nil
	})
	return out
}

func obsLeaf(t *testing.T, path string, v any) ObservedLeaf {
	t.Helper()
	x, err := jp.ParseString(path)
	if err != nil {
		t.Fatal(err)
	}
	return ObservedLeaf{Path: x, Value: v}
}

// fakeIAO answers like the IAO corpus-factory write-up's IAO service: the operation is always
// 查询 whatever word the user typed, the phone number is echoed, the
// relation is answered normalised — unless broken says otherwise.
func fakeIAO(t *testing.T, calls *[]string, answer func(c *schema.Case) map[string]any) CallFunc {
	return func(c *schema.Case) Observation {
		*calls = append(*calls, c.Text)
		m := answer(c)
		if e, ok := m["error"].(string); ok {
			return Observation{Err: e}
		}
		var o Observation
		for _, p := range annotSortedKeys(m) {
			o.Leaves = append(o.Leaves, obsLeaf(t, p, m[p]))
		}
		return o
	}
}

func seedAnswer(c *schema.Case) map[string]any {
	return map[string]any{
		"$.code":                                     int64(200),
		"$.data[0].content_op":                       "查询",
		"$.data[0].content.ont":                      "SIM_Card",
		"$.data[0].content.des.phone_number":         c.Slots["手机号11位"].Value,
		"$.data[0].content.rel[0].ont":               []any{"SIM_Card", "Person"},
		"$.data[0].content.rel[0].rel[0].relName":    c.Slots["伴随关系"].Expected(),
		"$.data[0].content.rel[0].relName":           "使用人",
		"$.data[0].content.rel[0].rel[0].des.intent": []any{"full"},
	}
}

func TestDraftExpectCorpusFactory(t *testing.T) {
	s := loadAnnotSuite(t, iaoSuite)
	samples := annotSamples(t, s, "hotel-roommates", 1)
	if samples[0].Text != "查询13301791708的酒店同房间人员" {
		t.Fatalf("first case %q", samples[0].Text)
	}
	var calls []string
	d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, seedAnswer))
	got := map[string]any{}
	for _, e := range d.Entries {
		got[e.Path] = e.Value
	}
	want := map[string]any{
		"$.code":                                     int64(200),
		"$.data[0].content_op":                       "查询", // a coincidence with {查询操作}: the probe shows it
		"$.data[0].content.ont":                      "SIM_Card",
		"$.data[0].content.des.phone_number":         "{手机号11位}",
		"$.data[0].content.rel[0].ont":               []any{"SIM_Card", "Person"},
		"$.data[0].content.rel[0].rel[0].relName":    "{伴随关系}",
		"$.data[0].content.rel[0].relName":           "使用人",
		"$.data[0].content.rel[0].rel[0].des.intent": []any{"full"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %v\nwant %v", got, want)
	}
	// One probe per doubtful slot: the operation word and the phone
	// number; the relation matched its declared normalised value.
	wantCalls := []string{"查询13301791708的酒店同房间人员", "查询13612349005的酒店同房间人员", "查一下13301791708的酒店同房间人员"}
	if !reflect.DeepEqual(calls, wantCalls) || d.Probes != 2 {
		t.Errorf("calls = %v (probes %d), want %v", calls, d.Probes, wantCalls)
	}
	if d.Placeholders() != 2 {
		t.Errorf("placeholders = %d, want 2", d.Placeholders())
	}
	var op *DraftEntry
	for i := range d.Entries {
		if d.Entries[i].Path == "$.data[0].content_op" {
			op = &d.Entries[i]
		}
	}
	if op == nil || len(op.Notes) != 1 || !strings.Contains(op.Notes[0], "kept literal \"查询\"") || !strings.Contains(op.Notes[0], "{查询操作} = 查一下") {
		t.Errorf("content_op notes = %v", op)
	}
}

func TestDraftExpectProbeOutcomes(t *testing.T) {
	s := loadAnnotSuite(t, iaoSuite)
	samples := annotSamples(t, s, "hotel-roommates", 1)
	t.Run("probe call fails: placeholder kept, noted", func(t *testing.T) {
		var calls []string
		d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
			if c.Slots["手机号11位"].Value != "13301791708" {
				return map[string]any{"error": "Timeout: no answer within 10s"}
			}
			return seedAnswer(c)
		}))
		e := draftEntry(d, "$.data[0].content.des.phone_number")
		if e == nil || e.Value != "{手机号11位}" || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "not confirmed") || !strings.Contains(e.Notes[0], "Timeout") {
			t.Errorf("phone entry = %+v", e)
		}
	})
	t.Run("probe answers something else: placeholder kept, noted", func(t *testing.T) {
		var calls []string
		d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
			m := seedAnswer(c)
			m["$.data[0].content.des.phone_number"] = "1361234"
			if c.Slots["手机号11位"].Value == "13301791708" {
				m["$.data[0].content.des.phone_number"] = "13301791708"
			}
			return m
		}))
		e := draftEntry(d, "$.data[0].content.des.phone_number")
		if e == nil || e.Value != "{手机号11位}" || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], `the answer was "1361234", not "13612349005"`) {
			t.Errorf("phone entry = %+v", e)
		}
	})
	t.Run("sample call fails: no entries, noted", func(t *testing.T) {
		var calls []string
		d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(*schema.Case) map[string]any {
			return map[string]any{"error": "HTTPError: 503 Service Unavailable"}
		}))
		if d.Usable != 0 || len(d.Entries) != 0 || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "503") {
			t.Errorf("draft = %+v", d)
		}
	})
	t.Run("raw value of a normalised slot", func(t *testing.T) {
		var calls []string
		d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
			m := seedAnswer(c)
			m["$.data[0].content.rel[0].rel[0].relName"] = c.Slots["伴随关系"].Value
			return m
		}))
		e := draftEntry(d, "$.data[0].content.rel[0].rel[0].relName")
		if e == nil || e.Value != "酒店同房间" || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "raw value") || !strings.Contains(e.Notes[0], "酒店同房间同宿") {
			t.Errorf("relName entry = %+v", e)
		}
	})
}

func draftEntry(d *Draft, path string) *DraftEntry {
	for i := range d.Entries {
		if d.Entries[i].Path == path {
			return &d.Entries[i]
		}
	}
	return nil
}

func TestDraftExpectAmbiguousAndSamples(t *testing.T) {
	s := loadAnnotSuite(t, `
suite "路线" {}
materials "出发城市" { values = ["北京", "上海"] }
materials "到达城市" { values = ["北京", "广州"] }
template "路线" {
  text     = "从{出发城市}到{到达城市}"
  strategy = "product"
}
`)
	samples := annotSamples(t, s, "路线", 3)
	var calls []string
	d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
		from, to := c.Slots["出发城市"].Value, c.Slots["到达城市"].Value
		m := map[string]any{"$.intent": "route", "$.from": from, "$.to": to, "$.text": c.Text}
		if from == to {
			m["$.hint"] = "同城"
		}
		return m
	}))
	ids := []string{samples[0].ID, samples[1].ID, samples[2].ID}
	if samples[0].Text != "从北京到北京" {
		t.Fatalf("first sample %q", samples[0].Text)
	}
	var paths []string
	for _, e := range d.Entries {
		paths = append(paths, e.Path+"="+format.Value(e.Value))
	}
	// $.from and $.to are "北京" for both slots in the first sample, so they
	// stay literal there and disagree with the others.
	wantPaths := []string{`$.intent="route"`}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("entries = %v, want %v", paths, wantPaths)
	}
	wantNotes := []string{
		`disagreement: $.from is "北京" in case ` + ids[0] + `, "{出发城市}" in cases ` + ids[1] + ", " + ids[2],
		`only in some samples: $.hint is "同城" in case ` + ids[0] + `; missing in cases ` + ids[1] + ", " + ids[2],
		`disagreement: $.text is "从北京到北京" in case ` + ids[0] + `, "从{出发城市}到{到达城市}" in cases ` + ids[1] + ", " + ids[2],
		`disagreement: $.to is "北京" in case ` + ids[0] + `, "{到达城市}" in cases ` + ids[1] + ", " + ids[2],
	}
	if !reflect.DeepEqual(d.Notes, wantNotes) {
		t.Errorf("notes:\n%s\nwant\n%s", strings.Join(d.Notes, "\n"), strings.Join(wantNotes, "\n"))
	}

	// One sample: the value both slots share is literal with a note
	// naming both.
	d = DraftExpect(s, s.Templates[0], samples[:1], fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
		return map[string]any{"$.from": c.Slots["出发城市"].Value}
	}))
	e := draftEntry(d, "$.from")
	if e == nil || e.Value != "北京" || len(e.Notes) != 1 || e.Notes[0] != `$.from: "北京" is the value of both {出发城市} and {到达城市}: kept literal; write the placeholder that is meant` {
		t.Errorf("$.from = %+v", e)
	}
}

func TestProbeCase(t *testing.T) {
	s := loadAnnotSuite(t, `
suite "p" { schema = "IAO" }
materials "城市" {
  level  = "M1"
  values = ["北京", "上海"]
  value "广州" { level = "M2" }
  value "首都" {
    level     = "M1"
    normalize = { IAO = "北京" }
  }
}
materials "单值" { values = ["只有一个"] }
template "两城" {
  text = "从{城市}到{城市#2}{单值}"
}
`)
	c := annotSamples(t, s, "两城", 1)[0]
	p := ProbeCase(s, s.Templates[0], c, "城市")
	if p == nil {
		t.Fatal("no probe")
	}
	if p.Slots["城市"].Value == c.Slots["城市"].Value || p.Slots["城市"].Value == c.Slots["城市#2"].Value || p.Slots["城市"].Expected() == c.Slots["城市#2"].Expected() {
		t.Errorf("probe value %q clashes with %v", p.Slots["城市"].Value, c.Slots)
	}
	if p.Slots["城市"].Level != c.Slots["城市"].Level {
		t.Errorf("probe level %q, want the sample's %q", p.Slots["城市"].Level, c.Slots["城市"].Level)
	}
	if p.Slots["城市#2"] != c.Slots["城市#2"] || p.Slots["单值"] != c.Slots["单值"] {
		t.Errorf("probe changed other slots: %v vs %v", p.Slots, c.Slots)
	}
	wantText := "从" + p.Slots["城市"].Value + "到" + p.Slots["城市#2"].Value + "只有一个"
	if p.Text != wantText || p.ID != spec.CaseID("两城", p.Slots) || p.ID == c.ID {
		t.Errorf("probe text %q id %s, want %q", p.Text, p.ID, wantText)
	}
	if ProbeCase(s, s.Templates[0], c, "单值") != nil {
		t.Error("a single-valued slot has no probe")
	}
}

// annotate drafts a rasa response's entities in the recommended form: one
// expectation on $.entities listing them (compared in any order), not one
// positional leaf per key.
func TestDraftExpectEntitiesListForm(t *testing.T) {
	s := loadAnnotSuite(t, `
suite "实体" { schema = "rasa" }
materials "城市" { values = ["北京", "上海"] }
template "订票" { text = "明天去{城市}" }
`)
	samples := annotSamples(t, s, "订票", 2)
	var calls []string
	d := DraftExpect(s, s.Templates[0], samples, fakeIAO(t, &calls, func(c *schema.Case) map[string]any {
		return map[string]any{
			"$.intent.name":        "book_flight",
			"$.entities[0].entity": "date",
			"$.entities[0].value":  "明天",
			"$.entities[1].entity": "city",
			"$.entities[1].value":  c.Slots["城市"].Value,
		}
	}))
	got := map[string]any{}
	for _, e := range d.Entries {
		got[e.Path] = e.Value
	}
	want := map[string]any{
		"$.intent.name": "book_flight",
		"$.entities": []any{
			map[string]any{"entity": "date", "value": "明天"},
			map[string]any{"entity": "city", "value": "{城市}"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %v\nwant %v (notes %v)", got, want, d.Notes)
	}
}

// writeFiles writes files (name → content) under a new temporary
// directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// commentLines returns the text of every comment of src (approximately:
// '#' inside strings counts too, which only makes the check stricter).
func commentLines(src []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(#|//)[^\n]*|/\*(?s:.*?)\*/`).FindAll(src, -1) {
		out = append(out, strings.TrimSpace(string(m)))
	}
	return out
}
