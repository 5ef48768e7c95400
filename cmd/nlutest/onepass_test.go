package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// onePassHeader is a suite's head for the one-pass validation tests.
const onePassHeader = `suite "一遍" {
  schema = "rasa"
}

target "demo" {
  demo {}
}

materials "城市" {
  values = ["北京", "上海"]
}
`

// TestValidateReportsEveryErrorInOnePass (issue 28 item 5): a typo in a
// block (stratgy) no longer hides the other mistakes in it — a bad JSONPath
// in its expect, an unknown argument in its assert block — nor makes
// references to the block (metrics.template.订票) bogus errors; a misspelt
// required argument is one diagnostic, not also "missing". Each mistake is
// one diagnostic with file:line:col, from one validate (and run's load).
func TestValidateReportsEveryErrorInOnePass(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // "Summary@line:col", in order
	}{
		{"three mistakes in one template", `
template "订票" {
  text    = "帮我订去{城市}的机票"
  stratgy = "product"
  expect = {
    "$.intent[" = "book_flight"
  }
  assert {
    conditon = response.intent.confidence > 0.5
  }
}

threshold "订票准确率" {
  condition = metrics.template.订票.accuracy >= 0.5
}
`, []string{"Unsupported argument@15:3", "Invalid JSONPath@17:14", "Unsupported argument@20:5"}},
		{"three mistakes in three blocks", `
template "天气" {
  text   = "{城市}天气"
  colour = "red"
  expect = { "$.intent.name" = "check_weather" }
}

template "问候" {
  text   = "你好"
  expect = { "$..[" = "greet" }
}

threshold "t" {
  conditon = metrics.accuracy >= 0.5
}
`, []string{"Unsupported argument@15:3", "Invalid JSONPath@21:18", "Unsupported argument@25:3"}},
		{"a template left without text is not unknown to thresholds", `
template "订票" {
  txt   = "帮我订去北京的机票"
  level = "S9"
  scene = ["出行"]
  expect = { "$.intent.name" = "book_flight" }
}

threshold "t" {
  condition = metrics.template.订票.accuracy >= 0.5 && metrics.level.S9.accuracy > 0 && metrics.scene.出行.accuracy > 0
  severity  = "fatal"
}

threshold "u" {
  condition = metrics.accuracyy >= 0.5
}
`, []string{"Unsupported argument@14:3", "Unknown severity@22:15", "Unknown metric@26:22"}},
	}
	loc := regexp.MustCompile(`(?m)^Error: (.+)\n\n  on (\S+):(\d+):(\d+):`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSuite(t, onePassHeader+c.body)
			for _, cmd := range [][]string{{"validate", dir}, {"run", dir, "--out", filepath.Join(dir, "run")}} {
				code, _, errs := runCLI(t, dir, nil, cmd...)
				if code != ExitInvalid {
					t.Fatalf("%s: exit %d, want 2\n%s", cmd[0], code, errs)
				}
				var got []string
				for _, m := range loc.FindAllStringSubmatch(errs, -1) {
					if filepath.Base(m[2]) != "suite.nlutest.hcl" {
						t.Errorf("diagnostic in %s", m[2])
					}
					got = append(got, m[1]+"@"+m[3]+":"+m[4])
				}
				if strings.Join(got, " ") != strings.Join(c.want, " ") || strings.Count(errs, "Error: ") != len(c.want) {
					t.Errorf("%s: diagnostics %v, want %v\n%s", cmd[0], got, c.want, errs)
				}
				if !strings.Contains(errs, "has 3 errors; nothing ran.") {
					t.Errorf("%s: no count of 3 errors:\n%s", cmd[0], errs)
				}
			}
		})
	}
}
