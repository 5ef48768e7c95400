package spec

import (
	"strings"
	"testing"
)

// A threshold that cannot work — a metric compared with a text, ==/!=
// between a metric and a value of another type, a condition that is not
// true or false — is an error at load (validate, run), located at the
// expression, as an audit found it was not (2026-12-05: metrics.accuracy
// >= "high" passed validate). Conditions that do work are left alone,
// whatever they read: dimension and label metrics, keyed nodes, a number
// given as a string variable, null, a flag variable, functions over
// metrics.
func TestThresholdTypesAtLoad(t *testing.T) {
	const head = `suite "阈值" { schema = "rasa" }
variable "min" { default = "0.9" }
variable "on" { default = true }
variable "token" {
  default   = "sk-阈值-91x7"
  sensitive = true
}
materials "城市" { values = ["北京", "上海"] }
template "查天气" {
  text   = "{城市}天气"
  expect = { "$.intent.name" = "weather", "$.entities" = [{ entity = "city", value = "{城市}" }] }
}
split "冒烟" { fraction = 0.5 }
threshold "t" {
  condition = `
	for _, tc := range []struct {
		cond, summary, at string // at: the text the diagnostic starts at
	}{
		{`metrics.accuracy >= "high"`, "Invalid threshold condition", `"high"`},
		{`metrics.accuracy * "x" > 1`, "Invalid threshold condition", `"x"`},
		{`metrics.accuracy == "0.9"`, "Comparison of different types", `metrics.accuracy ==`},
		{`metrics.split["冒烟"].accuracy != "1" && metrics.accuracy > 0`, "Comparison of different types", `metrics.split`},
		{`metrics.label.intent.macro_f1 == true`, "Comparison of different types", `metrics.label`},
		{`metrics.accuracy`, "Invalid threshold condition", `metrics.accuracy`},
		{`metrics.accuracy + 1`, "Invalid threshold condition", `metrics.accuracy`},
		{`metrics.accuracy.ci_low >= "high"`, "Invalid threshold condition", `"high"`},
		{`metrics.split.冒烟.accuracy.ci_high == "1"`, "Comparison of different types", `metrics.split`},
		{`metrics.accuracy.ci_low >= 0.85 && metrics.label.intent.macro_f1.ci_low > 0.5`, "", ""},
		{`metrics.accuracy >= var.min`, "", ""},
		{`metrics.accuracy >= 0.9 && metrics.latency.p95_ms < 2000`, "", ""},
		{`metrics.template["查天气"].accuracy >= 0.9 || metrics.split.冒烟.error_rate <= 0.1`, "", ""},
		{`metrics.label.intent.labels["weather"].f1 >= 0.8 && metrics.dimension.entity.recall > 0.5`, "", ""},
		{`metrics.accuracy != null && max(metrics.accuracy, 0.5) >= 0.9`, "", ""},
		{`var.on || metrics.accuracy >= 0.9`, "", ""},
		{`metrics.accuracy == 1`, "", ""},
		{`var.token != "" && metrics.accuracy >= 0.9`, "", ""},
		{`metrics.accuracy >= tonumber(var.token)`, "Invalid threshold condition", `var.token`},
	} {
		t.Run(tc.cond, func(t *testing.T) {
			src := head + tc.cond + "\n}\n"
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
			_, diags := testLoad(dir, Options{})
			if tc.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("a working condition refused: %v", diags)
				}
				return
			}
			d := findDiag(diags, tc.summary)
			if d == nil || d.Subject == nil {
				t.Fatalf("want %q, got %v", tc.summary, diags)
			}
			at := strings.Index(src, "condition = ") + len("condition = ") + strings.Index(tc.cond, tc.at)
			if d.Subject.Start.Byte != at || d.Subject.Start.Line != 15 {
				t.Errorf("at %d:%d (byte %d), want byte %d: %v", d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.Start.Byte, at, d)
			}
			if !strings.Contains(d.Detail, `threshold "t"`) || strings.Contains(d.Detail, "91x7") {
				t.Errorf("detail %q", d.Detail)
			}
		})
	}
}

// A rubric's pass condition that no score 1–5 meets (score >= 6), or that
// every one meets (score > 0), is an error at load at the attribute; a
// condition some scores meet loads, written as a string or as an
// expression over a variable.
func TestRubricPassWithinScale(t *testing.T) {
	for _, tc := range []struct{ pass, summary string }{
		{`"score >= 6"`, "Pass condition never met"},
		{`"score < 1 || score > 5"`, "Pass condition never met"},
		{`score >= var.min + 3`, "Pass condition never met"},
		{`"score > 0"`, "Pass condition always met"},
		{`"score >= 1 && score <= 5"`, "Pass condition always met"},
		{`"score >= 4"`, ""},
		{`"score == 5"`, ""},
		{`score >= var.min`, ""},
		{`"score <= 1"`, ""},
	} {
		t.Run(tc.pass, func(t *testing.T) {
			src := `suite "评分" {}
variable "min" { default = 3 }
target "评委" {
  http {
    url  = "http://127.0.0.1:9/judge"
    body = { answer = judge.answer }
  }
  judge { verdict = response.label }
}
conversation "问候" {
  turn {
    user = "你好"
    rubric "有用" {
      judge    = "评委"
      criteria = "The reply is helpful."
      pass     = ` + tc.pass + `
    }
  }
}
`
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
			_, diags := testLoad(dir, Options{})
			if tc.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("pass = %s refused: %v", tc.pass, diags)
				}
				return
			}
			d := findDiag(diags, tc.summary)
			if d == nil || d.Subject == nil || d.Subject.Start.Line != 16 || d.Subject.Start.Column != 18 {
				t.Fatalf("want %q at 16:18, got %v", tc.summary, diags)
			}
			if !strings.Contains(d.Detail, `rubric "有用"`) || !strings.Contains(d.Detail, "from 1 to 5") {
				t.Errorf("detail %q", d.Detail)
			}
		})
	}
}
