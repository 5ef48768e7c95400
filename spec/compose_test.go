package spec

import (
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/spec/materials"
)

func values(m *Materials) []string {
	var out []string
	for _, v := range m.Values {
		out = append(out, v.Value)
	}
	return out
}

func TestComposeValues(t *testing.T) {
	s := genSuite(t, `
suite "组合" { schema = "IAO" }
materials "前置" {
  compose = ["老{姓}"]
}
materials "姓" {
  tag = "姓氏"
  value "张" { level = "M1" }
  value "欧阳" {
    level = "M3"
    tags  = ["复姓"]
  }
}
materials "名" {
  level  = "M2"
  values = ["三", "伟"]
  value "小明" {
    normalize = { iao = "晓明" }
    tags      = ["双字"]
  }
}
materials "全名" {
  tag     = "人名"
  level   = "M1"
  values  = ["张伟"]
  compose = ["{姓}{名}", "{名}", "{姓}先生", "{{{名}}}"]
}
materials "称呼" {
  compose = ["{全名}同志"]
}
materials "两字" {
  compose = ["{名}{名#2}"]
}
template "找人" {
  text   = "查询{全名}的住址"
  expect = { "$.person" = "{全名}" }
}
`)
	full := s.Materials["全名"]
	// The block's own value first, then each pattern's combinations in
	// order, the first placeholder changing slowest; 张伟 again is dropped.
	want := []string{"张伟", "张三", "张小明", "欧阳三", "欧阳伟", "欧阳小明", "三", "伟", "小明", "张先生", "欧阳先生", "{三}", "{伟}", "{小明}"}
	if got := values(full); !slices.Equal(got, want) {
		t.Fatalf("全名 values\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(full.Compose, []string{"{姓}{名}", "{名}", "{姓}先生", "{{{名}}}"}) || full.ComposeRange.Start.Line == 0 {
		t.Errorf("Compose %q at %v", full.Compose, full.ComposeRange)
	}
	byValue := map[string]materials.Value{}
	for _, v := range full.Values {
		byValue[v.Value] = v
	}
	cases := []struct {
		value, level, norm string
		tags               []string
	}{
		{"张伟", "M1", "", nil},                // declared, not composed
		{"张三", "M2", "", nil},                // max(M1, M2)
		{"欧阳三", "M3", "", []string{"复姓"}},    // max(M3, M2), the parts' tags
		{"张小明", "M2", "张晓明", []string{"双字"}}, // normalised from 小明's IAO value
		{"欧阳小明", "M3", "欧阳晓明", []string{"复姓", "双字"}},
		{"小明", "M2", "晓明", []string{"双字"}},
		{"张先生", "M1", "", nil},
		{"{小明}", "M2", "{晓明}", []string{"双字"}},
	}
	for _, c := range cases {
		v, ok := byValue[c.value]
		if !ok {
			t.Errorf("%s missing", c.value)
			continue
		}
		if v.Level != c.level || v.Normalize["iao"] != c.norm || !slices.Equal(v.Tags, c.tags) {
			t.Errorf("%s: level %q normalize %v tags %q, want %q %q %q", c.value, v.Level, v.Normalize, v.Tags, c.level, c.norm, c.tags)
		}
	}
	// Composed from a composed block: declared after it is used is fine.
	if got := values(s.Materials["称呼"]); len(got) != len(want) || got[0] != "张伟同志" || got[3] != "欧阳三同志" {
		t.Errorf("称呼: %q", got)
	}
	if v := s.Materials["称呼"].Values[5]; v.Normalize["iao"] != "欧阳晓明同志" || v.Level != "M3" {
		t.Errorf("nested compose keeps normalisation and level: %+v", v)
	}
	// Declared before the block it composes from.
	if got := values(s.Materials["前置"]); !slices.Equal(got, []string{"老张", "老欧阳"}) || s.Materials["前置"].Values[1].Level != "M3" {
		t.Errorf("前置: %q", got)
	}
	// {名}{名#2}: distinct values, 3 × 2 ordered pairs.
	if got := values(s.Materials["两字"]); !slices.Equal(got, []string{"三伟", "三小明", "伟三", "伟小明", "小明三", "小明伟"}) {
		t.Errorf("两字: %q", got)
	}
	// Generation uses the composed values and their normalisation.
	cases2, _ := genCases(t, s, GenOptions{})
	if len(cases2) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases2), len(want))
	}
	for _, c := range cases2 {
		if c.Slots["全名"].Value == "欧阳小明" {
			if c.Text != "查询欧阳小明的住址" || c.Expect[0].Value != "欧阳晓明" || c.Slots["全名"].Tag != "人名" {
				t.Errorf("composed case: %q %v %+v", c.Text, c.Expect, c.Slots["全名"])
			}
		}
	}
}

func TestComposeDiagnostics(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		summary string
		line    int
		detail  string
	}{
		{
			name: "cycle",
			src: `
materials "姓" { values = ["张"] }
materials "全名" {
  compose = ["{姓}{名}"]
}
materials "名" {
  compose = ["{全名}"]
}
`,
			summary: "Compose cycle", line: 4, detail: "全名 → 名 → 全名",
		},
		{
			name: "self",
			src: `
materials "名" {
  values  = ["伟"]
  compose = ["小{名}"]
}
`,
			summary: "Compose cycle", line: 4, detail: "名 → 名",
		},
		{
			name: "long cycle through a plain block",
			src: `
materials "甲" { compose = ["{乙}{丁}"] }
materials "乙" { compose = ["{丙}"] }
materials "丙" { compose = ["{甲}"] }
materials "丁" { values = ["x"] }
`,
			summary: "Compose cycle", line: 2, detail: "甲 → 乙 → 丙 → 甲",
		},
		{
			name: "unknown",
			src: `
materials "名字" { values = ["伟"] }
materials "全名" {
  compose = ["张{名子}"]
}
`,
			summary: "Unknown materials", line: 4, detail: "Did you mean {名字}?",
		},
		{
			name: "no placeholders",
			src: `
materials "全名" { compose = ["张三"] }
`,
			summary: "Compose pattern without placeholders", line: 2,
		},
		{
			name: "bad placeholder",
			src: `
materials "全名" { compose = ["{姓"] }
`,
			summary: "Invalid placeholder", line: 2,
		},
		{
			name: "cap",
			src: `
materials "甲" { values = [for i in range(1001) : "甲${i}"] }
materials "乙" { values = [for i in range(1000) : "乙${i}"] }
materials "甲乙" {
  compose = ["{甲}{乙}"]
}
`,
			summary: "Too many composed values", line: 5, detail: "up to 1,001,000 values (甲 1001 × 乙 1000); at most 1,000,000",
		},
		{
			name: "draws beyond the values",
			src: `
materials "名" { values = ["伟"] }
materials "双名" {
  compose = ["{名}{名#2}"]
}
`,
			summary: "Materials without values", line: 4,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": "suite \"组合\" {}\n" + c.src})
			_, diags := testLoad(dir, Options{})
			d := findDiag(diags, c.summary)
			if d == nil {
				t.Fatalf("want %q, got %v", c.summary, diags)
			}
			if d.Subject == nil || d.Subject.Start.Line != c.line+1 { // +1: the suite line
				t.Errorf("%q at %v, want line %d", c.summary, d.Subject, c.line+1)
			}
			if !strings.Contains(d.Detail, c.detail) {
				t.Errorf("detail %q lacks %q", d.Detail, c.detail)
			}
			n := 0
			for _, x := range diags {
				if x.Summary == c.summary {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%q reported %d times: %v", c.summary, n, diags)
			}
		})
	}
}

func TestDuplicateValuesAcrossPlaces(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": `
suite "重复值" {}
materials "城市" {
  values = ["北京", "上海", "北京"]
  value "上海" { level = "M2" }
  value "广州" {}
  source = "more.txt"
}
materials "只有块" {
  value "甲" {}
  source = "more.txt"
}
template "t" { text = "{城市}{只有块}" }
`,
		"more.txt": "广州\n深圳\n",
	})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := values(s.Materials["城市"]); !slices.Equal(got, []string{"北京", "上海", "广州", "深圳"}) {
		t.Errorf("城市: %q", got)
	}
	if got := values(s.Materials["只有块"]); !slices.Equal(got, []string{"甲", "广州", "深圳"}) {
		t.Errorf("只有块: %q", got)
	}
	n := 0
	for _, d := range diags {
		if d.Summary == "Duplicate material value" {
			n++
			if d.Subject == nil || d.Subject.Start.Line != 4 {
				t.Errorf("the repeat should point at the values list (line 4): %v", d.Subject)
			}
		}
	}
	if n != 3 { // 北京 in the list, 上海 as a block, 广州 in the file
		t.Errorf("%d duplicate warnings, want 3: %v", n, diags)
	}
}
