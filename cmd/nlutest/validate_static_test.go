package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestValidateEvaluatesVarOnlyTargetExpressions: the target expressions
// run evaluates once, before any call (they use only var: an http
// target's url, method and headers, a rasa target's url and headers, every
// openai attribute), are evaluated by validate too, with the variables, so
// a failing one is the same located error in validate as in run (the
// 2026-12-01 audit's minor 14: headers = { X-N = tonumber("abc") } passed
// validate and failed run). A sensitive variable's value stays hidden;
// expressions over case, and expressions using a variable without a
// value, are left alone.
func TestValidateEvaluatesVarOnlyTargetExpressions(t *testing.T) {
	const head = `suite "静态" {}
variable "端口" { default = "八〇八〇" }
variable "令牌" {
  default   = "sk-秘密-Zq81xT"
  sensitive = true
}
materials "城市" { values = ["北京"] }
template "查天气" { text = "{城市}天气" }
`
	tests := []struct {
		name, target string
		// want is the diagnostic's summary and what its detail holds; ""
		// for none.
		summary, detail string
	}{
		{"http header", `target "t" {
  http {
    url     = "http://127.0.0.1:9/parse"
    headers = { X-N = tonumber("abc") }
  }
}`, "Invalid function argument", `cannot convert "abc" to number`},
		{"http url over a variable", `target "t" {
  http {
    url = "http://127.0.0.1:${tonumber(var.端口)}/parse"
  }
}`, "Invalid function argument", `cannot convert "八〇八〇" to number`},
		{"http header that is not a string", `target "t" {
  http {
    url     = "http://127.0.0.1:9/parse"
    headers = { X-N = ["甲"] }
  }
}`, "Invalid header value", `The header "X-N" must be a string`},
		{"http header over a sensitive variable", `target "t" {
  http {
    url     = "http://127.0.0.1:9/parse"
    headers = { X-N = tonumber(var.令牌) }
  }
}`, "Invalid function argument", `[redacted]`},
		{"rasa header", `target "t" {
  rasa {
    url     = "http://127.0.0.1:9"
    headers = { X-N = tonumber("abc") }
  }
}`, "Invalid function argument", `cannot convert "abc" to number`},
		{"openai params", `target "t" {
  openai {
    url    = "http://127.0.0.1:9/v1"
    model  = "m"
    params = { temperature = tonumber("热") }
  }
}`, "Invalid function argument", `cannot convert "热" to number`},
		{"openai model", `target "t" {
  openai {
    url   = "http://127.0.0.1:9/v1"
    model = upper(["m"])
  }
}`, "Invalid function argument", ``},
		{"a header over case is evaluated per case, not now", `target "t" {
  http {
    url     = "http://127.0.0.1:9/parse"
    headers = { X-N = tostring(length(case.text)) }
  }
}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSuite(t, head+tt.target+"\n")
			vcode, _, verrs := runCLI(t, dir, nil, "validate", dir)
			if tt.summary == "" {
				if vcode != ExitPass {
					t.Fatalf("validate exit %d:\n%s", vcode, verrs)
				}
				return
			}
			if vcode != ExitInvalid || !strings.Contains(verrs, "Error: "+tt.summary) || !strings.Contains(verrs, tt.detail) {
				t.Fatalf("validate exit %d, want %d with %q (%q):\n%s", vcode, ExitInvalid, tt.summary, tt.detail, verrs)
			}
			loc := regexp.MustCompile(`on \S+suite\.nlutest\.hcl:\d+:\d+`).FindString(verrs)
			if loc == "" {
				t.Errorf("validate's diagnostic is not located:\n%s", verrs)
			}
			if strings.Contains(verrs, "Zq81xT") {
				t.Errorf("validate printed the sensitive value:\n%s", verrs)
			}
			// run reports the same located error.
			rcode, _, rerrs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"))
			if rcode != ExitInvalid || !strings.Contains(rerrs, loc) || !strings.Contains(rerrs, tt.summary) {
				t.Errorf("run exit %d, want %d at %s:\n%s", rcode, ExitInvalid, loc, rerrs)
			}
		})
	}
	t.Run("a variable without a value is one error, not two", func(t *testing.T) {
		dir := writeSuite(t, `suite "静态" {}
variable "host" {}
target "t" {
  http {
    url = "http://${var.host}:${tonumber(var.host)}/parse"
  }
}
materials "城市" { values = ["北京"] }
template "查天气" { text = "{城市}天气" }
`)
		code, _, errs := runCLI(t, dir, nil, "validate", dir)
		if code != ExitInvalid || strings.Count(errs, "Error: ") != 1 || !strings.Contains(errs, "Variable without value") {
			t.Errorf("exit %d:\n%s", code, errs)
		}
	})
}
