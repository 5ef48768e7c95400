package spec

import (
	"strings"
	"testing"
)

// A sensitive variable in a scenario goal's inform map (audit 2026-12-05,
// N1) is refused at load like one in opening, in every form it can take —
// the value itself, through a function, inside a string — at the
// variable's file:line:col, naming the attribute and saying what to do,
// and never quoting the value. So is one in a rubric's pass string, which
// the load parses as an expression. The same suite with a value that is
// not secret loads. (extensions' TestSensitiveEveryAttribute applies the
// rule to every attribute of the language.)
func TestSensitiveInGoalInform(t *testing.T) {
	const pin = "8642097531"
	suite := func(inform, pass string) string {
		return `suite "目标" {}
variable "pin" {
  default   = env("AUD_PIN", "")
  sensitive = true
}
variable "city" { default = "巴黎" }
target "judge" {
  http {
    url  = "http://127.0.0.1:9/judge"
    body = { answer = judge.answer }
  }
  judge { verdict = response.label }
}
scenario "订票" {
  goal {
    inform  = { city = var.city, pin = ` + inform + ` }
    request = ["订单号"]
  }
  opening = ["我想订机票"]
  success { condition = strcontains(reply, "订单号 ${var.pin}") }
}
conversation "评分" {
  turn {
    user = "你好"
    rubric "有用" {
      judge    = "judge"
      criteria = "The reply is helpful."
      pass     = ` + pass + `
    }
  }
}
`
	}
	env := func(k string) (string, bool) { return pin, k == "AUD_PIN" }
	for _, tc := range []struct{ name, inform, pass, attr string }{
		{"variable", "var.pin", `"score >= 4"`, "inform"},
		{"function", "upper(var.pin)", `"score >= 4"`, "inform"},
		{"template", `"PIN ${lower(var.pin)}"`, `"score >= 4"`, "inform"},
		{"pass string", `"1234"`, `"score >= length(var.pin) - 6"`, "pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := suite(tc.inform, tc.pass)
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
			_, diags := testLoad(dir, Options{Env: env})
			d := findDiag(diags, "Sensitive variable outside a target")
			if d == nil || d.Subject == nil {
				t.Fatalf("want the secret refused, got %v", diags)
			}
			line := strings.Split(src, "\n")[d.Subject.Start.Line-1]
			col := len([]rune(line[:strings.Index(line, "var.pin")])) + 1
			if !strings.Contains(line, tc.attr) || d.Subject.Start.Column != col {
				t.Errorf("at %d:%d (%q), want the var.pin of %s at column %d", d.Subject.Start.Line, d.Subject.Start.Column, line, tc.attr, col)
			}
			if !strings.Contains(d.Detail, `the "`+tc.attr+`" attribute of `) || !strings.Contains(d.Detail, "var.pin is sensitive") {
				t.Errorf("detail %q", d.Detail)
			}
			if strings.Contains(d.Detail, "%!") || tc.attr == "inform" && !strings.Contains(d.Detail, "give the scenario a test value that is not secret") {
				t.Errorf("no advice in %q", d.Detail)
			}
			for _, d := range diags {
				if strings.Contains(d.Summary+d.Detail, "86420") {
					t.Errorf("a diagnostic quotes the value: %s: %s", d.Summary, d.Detail)
				}
			}
		})
	}
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": suite(`"1234"`, `"score >= 4"`)})
	if _, diags := testLoad(dir, Options{Env: env}); diags.HasErrors() {
		t.Errorf("the suite without a secret in inform: %v", diags)
	}
}
