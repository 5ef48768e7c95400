package stats

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// fixture is a small Chinese suite whose distributions are counted by hand
// in the tests below.
const fixture = `
suite "统计" {
  schema = "问答"
  defaults {
    level = "S2"
  }
}

schema "问答" {
  dimension "意图" {
    kind = "label"
    path = "$.intent.name"
  }
  dimension "本体" {
    kind  = "leaf"
    paths = ["$..ont"]
  }
  dimension "行为" {
    kind  = "items"
    items = "$..behavior[*]"
    keys  = ["category", "location"]
  }
  dimension "整句" {
    kind  = "case"
    paths = ["$.data[0].op"]
  }
}

materials "城市" {
  tag    = "地点"
  level  = "M1"
  values = ["北京", "上海"]
  value "拉萨" {
    level = "M3"
    tags  = ["西部"]
  }
}

materials "日期" {
  tag    = "时间"
  values = ["明天", "后天"]
}

materials "机场" {
  tag   = "地点"
  level = "M2"
  value "首都机场" {
    tags = ["北京", "枢纽"]
  }
  value "虹桥" {
    tags = ["枢纽"]
  }
}

template "订机票" {
  text  = "{日期}去{城市}"
  level = "S1"
  core  = true
  scene = ["出行", "机票"]
  expect = {
    "$.intent.name"                  = "订机票"
    "$.data[0].ont"                  = "城市"
    "$.data[0].behavior[0].category" = "出行"
    "$.data[0].behavior[0].location" = "{城市}"
    "$.data[0].op"                   = "查询"
  }
}

template "查天气" {
  text     = "{城市}天气"
  scene    = ["出行", "天气"]
  strategy = "product"
  expect = {
    "$.intent.name" = "查天气"
    "$.data[0].ont" = ["城市", "天气"]
    "$..ont"        = "不计"
  }
}

template "接机" {
  text  = "去{机场}接人"
  level = "S3"
  scene = ["接送"]
  expect = {
    "$.data[0].behavior[0]"          = { category = "接送", location = "{机场}" }
    "$.data[1].behavior[0].category" = "接送"
  }
}

split "smoke" { where = case.core }
split "远方" { where = case.template == "查天气" }
`

func load(t *testing.T, src string) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

func TestCompute(t *testing.T) {
	s := load(t, fixture)
	st, err := Compute(s, "")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	// Materials: 城市 has 北京 上海 (M1, the block level) and 拉萨 (M3);
	// 日期 has two values without a level; 机场's values take the block's M2.
	check("materials", st.Materials, []Material{
		{Name: "城市", Tag: "地点", Values: 3, ByLevel: map[string]int{"M1": 2, "M3": 1}},
		{Name: "日期", Tag: "时间", Values: 2, ByLevel: map[string]int{"": 2}},
		{Name: "机场", Tag: "地点", Values: 2, ByLevel: map[string]int{"M2": 2}},
	})
	check("levels", st.Levels, []string{"M1", "M2", "M3", ""})
	check("material tags", st.MaterialTags, []TagCount{{Tag: "地点", Materials: 2, Values: 5}, {Tag: "时间", Materials: 1, Values: 2}})
	check("value tags", st.ValueTags, []Count{{Name: "北京", Count: 1}, {Name: "枢纽", Count: 2}, {Name: "西部", Count: 1}})

	// Cases: 订机票 uniq over 日期 (2) × 城市 (3) = 3; 查天气 product of
	// 城市 = 3; 接机 uniq over 机场 = 2.
	check("cases", st.Cases, 8)
	var perTemplate []int
	for _, tp := range st.Templates {
		perTemplate = append(perTemplate, tp.Cases)
	}
	check("cases per template", perTemplate, []int{3, 3, 2})
	check("template 查天气", st.Templates[1].Level+"/"+st.Templates[1].Strategy, "S2/product")
	check("template levels", st.TemplateLevels, []LevelCount{{Level: "S1", Templates: 1, Cases: 3}, {Level: "S2", Templates: 1, Cases: 3}, {Level: "S3", Templates: 1, Cases: 2}})
	check("scenes", st.Scenes, []Count{{Name: "出行", Count: 6}, {Name: "出行/天气", Count: 3}, {Name: "出行/机票", Count: 3}, {Name: "接送", Count: 2}})
	check("splits", st.Splits, []Count{{Name: "smoke", Count: 3}, {Name: "远方", Count: 3}})
	check("no split", st.NoSplit, 2)
	check("core", [2]int{st.Core, st.NonCore}, [2]int{3, 5})

	// Dimensions, in schema order.
	if len(st.Dimensions) != 4 {
		t.Fatalf("%d dimensions, want 4", len(st.Dimensions))
	}
	// 意图: one label per case of 订机票 and 查天气.
	check("意图", st.Dimensions[0], Dimension{Name: "意图", Kind: "label", Cases: 6, Expectations: 6,
		Values: []Value{{Field: "", Value: "查天气", Count: 3}, {Field: "", Value: "订机票", Count: 3}}})
	// 本体: $.data[0].ont in 6 cases; $..ont may select several nodes, so
	// it counts towards no dimension.
	check("本体", st.Dimensions[1], Dimension{Name: "本体", Kind: "leaf", Cases: 6, Expectations: 6,
		Values: []Value{{Field: "ont", Value: `["城市","天气"]`, Count: 3}, {Field: "ont", Value: "城市", Count: 3}}})
	// 行为: 订机票 expects one item per case (category and location set
	// member by member, location from the city); 接机 expects two per case:
	// a whole item with the airport, and one with only a category.
	check("行为", st.Dimensions[2], Dimension{Name: "行为", Kind: "items", Cases: 5, Expectations: 7,
		Values: []Value{
			{Field: "", Value: "category=接送", Count: 2},
			{Field: "", Value: "category=出行, location=上海", Count: 1},
			{Field: "", Value: "category=出行, location=北京", Count: 1},
			{Field: "", Value: "category=出行, location=拉萨", Count: 1},
			{Field: "", Value: "category=接送, location=虹桥", Count: 1},
			{Field: "", Value: "category=接送, location=首都机场", Count: 1},
		}})
	check("整句", st.Dimensions[3], Dimension{Name: "整句", Kind: "case", Cases: 3, Expectations: 3,
		Values: []Value{{Field: "op", Value: "查询", Count: 3}}})
}

func TestComputeSplit(t *testing.T) {
	s := load(t, fixture)
	st, err := Compute(s, "smoke")
	if err != nil {
		t.Fatal(err)
	}
	if st.Cases != 3 || st.Templates[0].Cases != 3 || st.Templates[1].Cases != 0 || st.Templates[2].Cases != 0 {
		t.Errorf("smoke holds the 3 订机票 cases: %d cases, templates %+v", st.Cases, st.Templates)
	}
	if !reflect.DeepEqual(st.Splits, []Count{{Name: "smoke", Count: 3}}) || st.NoSplit != 0 || st.Core != 3 || st.NonCore != 0 {
		t.Errorf("splits %+v, no split %d, core %d/%d", st.Splits, st.NoSplit, st.Core, st.NonCore)
	}
	if !reflect.DeepEqual(st.TemplateLevels, []LevelCount{{Level: "S1", Templates: 1, Cases: 3}}) {
		t.Errorf("template levels %+v", st.TemplateLevels)
	}
	// Materials do not depend on the split.
	if len(st.Materials) != 3 || st.Materials[0].Values != 3 {
		t.Errorf("materials %+v", st.Materials)
	}
	if d := st.Dimensions[2]; d.Expectations != 3 || d.Cases != 3 {
		t.Errorf("行为 in smoke: %+v", d)
	}
	if _, err := Compute(s, "没有"); err == nil {
		t.Error("an unknown split is an error")
	}
}

func TestComputeWithoutSchema(t *testing.T) {
	s := load(t, `
suite "无模式" {}
materials "词" { values = ["甲", "乙"] }
template "句" {
  text   = "{词}"
  expect = { "$.x" = "{词}" }
}
`)
	st, err := Compute(s, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Cases != 2 || len(st.Dimensions) != 0 || len(st.Splits) != 0 || st.NoSplit != 2 || len(st.Scenes) != 0 {
		t.Errorf("%+v", st)
	}
	if !reflect.DeepEqual(st.Levels, []string{""}) || st.MaterialTags[0] != (TagCount{Tag: "", Materials: 1, Values: 2}) {
		t.Errorf("levels %q, tags %+v", st.Levels, st.MaterialTags)
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"北京", "北京"},
		{"引\"号\n", "引\"号\n"}, // strings are shown as they are
		{[]any{"城市", "天气"}, `["城市","天气"]`},
		{map[string]any{"b": []any{true, nil, 1.5}, "a": int64(1)}, `{"a":1,"b":[true,null,1.5]}`},
		{int64(200), "200"},
		{[]any{"x\x01\""}, `["x\u0001\""]`},
	}
	for _, c := range cases {
		if got := text(c.v); got != c.want {
			t.Errorf("text(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}
