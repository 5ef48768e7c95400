package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// errorPlaces lists a load's errors as "Summary@file:line", file without
// its directory.
func errorPlaces(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		place := "-"
		if d.Subject != nil {
			f := d.Subject.Filename
			if i := strings.LastIndexAny(f, `/\`); i >= 0 {
				f = f[i+1:]
			}
			place = fmt.Sprintf("%s:%d", f, d.Subject.Start.Line)
		}
		out = append(out, d.Summary+"@"+place)
	}
	return out
}

// TestOneMistakeOneDiagnostic (issue 35): a block that cannot be read (a
// syntax error in it, or its file is not text) is reported once, and what
// uses it — a placeholder, var.NAME, a targets list, a suite's schema, a
// threshold's split or template, a fragment's use — is not reported again;
// the blocks after a syntax error, in its file too, are still checked.
func TestOneMistakeOneDiagnostic(t *testing.T) {
	const tail = "\nthreshold \"后\" { condition = metrics.accuracyy > 0 }\n"
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"broken variable used in a template and expect", map[string]string{"s.nlutest.hcl": `
variable "城" { default = "北京" + }
materials "城市" { values = ["上海"] }
template "订票" {
  text   = "去${var.城}和{城市}"
  expect = { "$.city" = var.城 }
}
`}, []string{"Invalid expression@s.nlutest.hcl:2"}},
		{"broken materials used by a template and perturb synonyms", map[string]string{"s.nlutest.hcl": `
materials "城市" { values = ["北京" "上海"] }
materials "同义" {
  values = [
}
template "订票" {
  text = "去{城市}"
  perturb {
    kinds    = ["synonym"]
    synonyms = "同义"
  }
}
`}, []string{"Missing item separator@s.nlutest.hcl:2", "Invalid expression@s.nlutest.hcl:5"}},
		{"broken target named by the suite", map[string]string{"s.nlutest.hcl": `
suite "s" { targets = ["nlu"] }
target "nlu" {
  demo {
    endpoint = = "rasa"
  }
}
template "t" { text = "你好" }
`}, []string{"Invalid expression@s.nlutest.hcl:5"}},
		{"broken schema block named by the suite", map[string]string{"s.nlutest.hcl": `
suite "s" { schema = "我的" }
schema "我的" { response = object({ intent = string } }
template "t" {
  text = "你好"
  assert { condition = response.intnet == "x" }
}
`}, []string{"Missing argument separator@s.nlutest.hcl:3"}},
		{"broken split and template named by thresholds", map[string]string{"s.nlutest.hcl": `
split "冒烟" { fraction = 0.5 0.1 }
template "订票" {
  text  = "订票"
  level = "S9" "S8"
}
template "t" { text = "你好" }
threshold "a" { condition = metrics.split.冒烟.accuracy > 0 && metrics.template.订票.accuracy > 0 && metrics.level.S9.accuracy > 0 }
`}, []string{"Invalid single-argument block definition@s.nlutest.hcl:2", "Missing newline after argument@s.nlutest.hcl:5"}},
		{"broken fragment used by a conversation", map[string]string{"s.nlutest.hcl": `
fragment "问候" {
  turn { user = }
}
conversation "c" {
  turn { use = "问候" }
  turn { user = "订票" }
}
`}, []string{"Invalid expression@s.nlutest.hcl:3"}},
		{"a file that is not text declares materials another file uses", map[string]string{
			"a.nlutest.hcl": "materials \"城市\" {\n  values = [\"北京\xff\"]\n}\n",
			"b.nlutest.hcl": "template \"t\" { text = \"去{城市}\" }\n" + tail,
		}, []string{"Not UTF-8 text@a.nlutest.hcl:2", "Unknown metric@b.nlutest.hcl:3"}},
		{"unclosed quote, then a mistake later in the file", map[string]string{"s.nlutest.hcl": `
template "a" {
  text = "你好
}
template "b" { text = "再见" }
` + tail}, []string{"Invalid multi-line string@s.nlutest.hcl:3", "Unknown metric@s.nlutest.hcl:7"}},
		{"stray brace between blocks, then a mistake", map[string]string{"s.nlutest.hcl": `
template "a" { text = "你好" }
}
` + tail}, []string{"Argument or block definition required@s.nlutest.hcl:3", "Unknown metric@s.nlutest.hcl:5"}},
		{"unclosed block, then a mistake", map[string]string{"s.nlutest.hcl": `
template "a" {
  text = "你好"

template "b" { text = "再见" }
` + tail}, []string{"Unclosed configuration block@s.nlutest.hcl:2", "Unknown metric@s.nlutest.hcl:7"}},
		{"a heredoc line that looks like a block is not a block", map[string]string{"s.nlutest.hcl": `
template "a" {
  text = <<EOT
template "x" 说明
EOT
}
template "b" { text = 1 + }
`}, []string{"Invalid expression@s.nlutest.hcl:7"}},
		{"misspelt default is not also a variable without value", map[string]string{"s.nlutest.hcl": `
variable "n" { defualt = 3 }
target "t" {
  demo {}
  retries = var.n
}
template "a" { text = "你好" }
`}, []string{"Unsupported argument@s.nlutest.hcl:2"}},
		{"materials with a mistake is neither without values nor short of draws", map[string]string{"s.nlutest.hcl": `
materials "城市" { valuez = ["北京"] }
template "a" { text = "{城市}到{城市#2}" }
`}, []string{"Unsupported argument@s.nlutest.hcl:2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := testLoad(writeFiles(t, c.files), Options{})
			if got := errorPlaces(diags); strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("errors %v, want %v\n%v", got, c.want, diags)
			}
		})
	}
}

// TestTopBlocks finds top-level block headers, not lines in a heredoc.
func TestTopBlocks(t *testing.T) {
	src := "# 注释\ntemplate \"订票\" {\n  text = <<-EOT\nmaterials \"x\" {\n  EOT\n}\nsuite 名字 {\n}\nassert {\n}\ntemplates \"no\" {}\n"
	var got []string
	for _, h := range topBlocks([]byte(src), []string{"template", "materials", "suite", "assert"}) {
		got = append(got, fmt.Sprintf("%d:%s:%s", h.line, h.typ, h.name))
	}
	if want := "2:template:订票 7:suite:名字 9:assert:"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestMistakesInOneBlock: two (or three) independent mistakes in one
// block are all reported in one load, and the first does not make the
// others' placeholders unknown.
func TestMistakesInOneBlock(t *testing.T) {
	const head = "materials \"城市\" { values = [\"北京\"] }\n"
	cases := []struct {
		name, body string
		want       []string
	}{
		{"template without text", `
template "订票" {
  expect = { "$.intent[" = "book", "$.city" = "{城市}" }
}`, []string{"Missing required argument@s.nlutest.hcl:3", "Invalid JSONPath@s.nlutest.hcl:4"}},
		{"template with a bad placeholder", `
template "订票" {
  text   = "去{城市"
  expect = { "$.intent[" = "book", "$.city" = "{城市}" }
  reply { contains = ["{城市}"] }
}`, []string{"Invalid placeholder@s.nlutest.hcl:4", "Invalid JSONPath@s.nlutest.hcl:5"}},
		{"conversation turns", `
conversation "改签" {
  turn { user = "去{城镇}" }
  turn {
    user   = "好"
    expect = { "$.intent[" = "ok", "$.city" = "{城镇}" }
  }
}`, []string{"Unknown materials@s.nlutest.hcl:4", "Invalid JSONPath@s.nlutest.hcl:7"}},
		{"memory facts", `
memory "记忆" {
  fact {
    say    = "我住在{城市}。"
    expect = "{城市}"
  }
  fact {
    say    = "我叫小明。"
    ask    = "我叫什么？"
    expect = "小明"
    reply { matches = "(" }
  }
  distance = [1]
}`, []string{"Memory without filler@s.nlutest.hcl:3", "Missing required argument@s.nlutest.hcl:4", "Invalid regular expression@s.nlutest.hcl:12"}},
		{"scenario without goal, success or opening", `
scenario "订机票" {
  max_turns = 3
}`, []string{"Scenario without goal@s.nlutest.hcl:3", "Scenario without success@s.nlutest.hcl:3", "Scenario without opening@s.nlutest.hcl:3"}},
		{"rubric, perturb and ratings blocks", `
template "t" {
  text = "你好"
  rubric "质量" {
    critera = "回复得体"
    judge   = "无此评委"
  }
  perturb {
    kinds    = ["swapp"]
    synonyms = "无此素材"
  }
}
ratings "评分" {
  format = "xls"
}`, []string{"Unsupported argument@s.nlutest.hcl:6", "Unknown judge@s.nlutest.hcl:7", "Unknown perturbation kind@s.nlutest.hcl:10", "Unknown materials@s.nlutest.hcl:11", "Missing required argument@s.nlutest.hcl:14", "Unknown ratings format@s.nlutest.hcl:15"}},
		{"text_metrics with a text for smooth_value (was an internal error)", `
text_metrics {
  tokenize     = "xx"
  smooth_value = "abc"
}`, []string{"Unknown tokenizer@s.nlutest.hcl:4", "Incorrect attribute value type@s.nlutest.hcl:5"}},
		{"threshold without condition", `
threshold "门槛" {
  severity = "fatal"
}`, []string{"Missing required argument@s.nlutest.hcl:3", "Unknown severity@s.nlutest.hcl:4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := testLoad(writeFiles(t, map[string]string{"s.nlutest.hcl": head + c.body}), Options{})
			if got := errorPlaces(diags); strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("errors %v, want %v\n%v", got, c.want, diags)
			}
		})
	}
}
