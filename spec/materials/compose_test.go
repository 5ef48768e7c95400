package materials

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// LevelLess orders M levels by number, then other names by text.
func TestLevelLess(t *testing.T) {
	ordered := []string{"M1", "M2", "M3", "M4", "M10", "L1", "S1"}
	for i := range ordered {
		for j := range ordered {
			if got := LevelLess(ordered[i], ordered[j]); got != (i < j) {
				t.Errorf("LevelLess(%s, %s) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}

// TestCompose: every combination pattern by pattern, the first placeholder
// slowest; own values first and repeats dropped; {名}{名#2} never repeats
// a value; the highest level, the union of tags and the normalised value
// built from the parts' normalisations (raw value where a part has none).
func TestCompose(t *testing.T) {
	blocks := map[string][]Value{
		"姓": {{Value: "张", Level: "M1"}, {Value: "欧阳", Level: "M3", Tags: []string{"复姓"}}},
		"名": {{Value: "三", Level: "M2"}, {Value: "小明", Level: "M2", Tags: []string{"双字"}, Normalize: map[string]string{"iao": "晓明"}}},
	}
	values := func(m string) []Value { return blocks[m] }
	patterns := []Pattern{
		{Lits: []string{"", "", ""}, Refs: []Ref{{"姓", "姓"}, {"名", "名"}}, Parts: []int{0, 1}},
		{Lits: []string{"", "与", ""}, Refs: []Ref{{"名", "名"}, {"名#2", "名"}}, Parts: []int{0, 1}},
	}
	own := []Value{{Value: "张三", Level: "M4"}}
	got, ok, diags := Compose("全名", "M1", own, patterns, values, hcl.Range{Filename: "s.nlutest.hcl"})
	if !ok || diags != nil {
		t.Fatalf("ok %v, %v", ok, diags)
	}
	want := []Value{
		{Value: "张三", Level: "M4"},
		{Value: "张小明", Level: "M2", Tags: []string{"双字"}, Normalize: map[string]string{"iao": "张晓明"}},
		{Value: "欧阳三", Level: "M3", Tags: []string{"复姓"}},
		{Value: "欧阳小明", Level: "M3", Tags: []string{"复姓", "双字"}, Normalize: map[string]string{"iao": "欧阳晓明"}},
		{Value: "三与小明", Level: "M2", Tags: []string{"双字"}, Normalize: map[string]string{"iao": "三与晓明"}},
		{Value: "小明与三", Level: "M2", Tags: []string{"双字"}, Normalize: map[string]string{"iao": "晓明与三"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Value != w.Value || g.Level != w.Level || !slices.Equal(g.Tags, w.Tags) || !maps.Equal(g.Normalize, w.Normalize) {
			t.Errorf("value %d: got %+v, want %+v", i, g, w)
		}
	}
}

// TestComposeFails: a product over ComposeLimit and a pattern composing
// nothing are diagnostics at the compose attribute naming the block and
// the sizes; a part without values fails without one (its block says
// why).
func TestComposeFails(t *testing.T) {
	big := make([]Value, 1001)
	for i := range big {
		big[i] = Value{Value: strings.Repeat("字", i+1)}
	}
	blocks := map[string][]Value{"大": big, "一": {{Value: "甲"}}, "空": nil}
	values := func(m string) []Value { return blocks[m] }
	at := hcl.Range{Filename: "s.nlutest.hcl", Start: hcl.Pos{Line: 3, Column: 13}}
	pair := func(a, b string) Pattern {
		return Pattern{Lits: []string{"", "", ""}, Refs: []Ref{{a, a}, {b + "#2", b}}, Parts: []int{0, 1}}
	}
	for _, c := range []struct {
		name     string
		patterns []Pattern
		summary  string
		detail   string
	}{
		{"over the limit", []Pattern{pair("大", "大")}, "Too many composed values",
			`The materials "组合" composes up to 1,002,001 values (大 1001 × 大#2 1001); at most 1,000,000 are allowed.`},
		{"no value", []Pattern{pair("一", "一")}, "Materials without values", `The materials "组合" composes no value: 一 1 × 一#2 1.`},
		{"a part without values", []Pattern{pair("一", "空")}, "", ""},
	} {
		_, ok, diags := Compose("组合", "", nil, c.patterns, values, at)
		if ok {
			t.Errorf("%s: ok", c.name)
			continue
		}
		if c.summary == "" {
			if diags != nil {
				t.Errorf("%s: %v", c.name, diags)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Summary != c.summary || !strings.HasPrefix(diags[0].Detail, c.detail) || *diags[0].Subject != at {
			t.Errorf("%s: %v", c.name, diags)
		}
	}
}
