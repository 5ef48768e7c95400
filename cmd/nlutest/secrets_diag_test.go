package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// diagSecret is not a number, so tonumber fails on it and its error would
// quote it; its first five characters are a secret too (substr).
const diagSecret = "S3cr3t-诊断-8kPq2"

const diagSuiteHead = `
suite "诊断" {}
variable "url" { default = "http://127.0.0.1:1" }
variable "token" {
  default   = env("NLU_TOKEN", "")
  sensitive = true
}
materials "城市" { values = ["北京"] }
`

// TestSecretsInDiagnostics (issue 12, item 1): a check or target
// expression that fails to evaluate on a sensitive value writes neither the
// value nor a part of it into any message: results, reports, console.
func TestSecretsInDiagnostics(t *testing.T) {
	srv := echoService(t)
	cases := []struct {
		name, body string
		args       []string
		code       int
		want       string // in the output or a result: the failure is still reported
	}{
		{"condition", `
target "nlu" {
  http {
    url  = "${var.url}/parse"
    body = jsonencode({ text = case.text, token = "x" })
  }
}
template "订票" {
  text = "去{城市}"
  assert { condition = tonumber(var.token) > 0 }
  assert { condition = tonumber(substr(var.token, 0, 5)) > 0 }
  assert { condition = response[var.token] == 1 }
}`, []string{"run", "--var", "url=" + srv.URL}, ExitFail, "not shown"},
		{"threshold", `
target "nlu" {
  http {
    url  = "${var.url}/parse"
    body = jsonencode({ text = case.text, token = "x" })
  }
}
template "订票" { text = "去{城市}" }
threshold "t" {
  condition = metrics.accuracy >= tonumber(var.token)
  severity  = "error"
}`, []string{"run", "--var", "url=" + srv.URL}, ExitInvalid, "not shown"},
		// The threshold above fails whatever the metrics are, so the load
		// reports it (exit 2); this one fails only on the run's figures
		// (substr's length is the accuracy, unknown at load).
		{"threshold at the run's end", `
target "nlu" {
  http {
    url  = "${var.url}/parse"
    body = jsonencode({ text = case.text, token = "x" })
  }
}
template "订票" { text = "去{城市}" }
threshold "t" {
  condition = metrics.accuracy >= tonumber(substr(var.token, 0, floor(metrics.accuracy) + 5))
  severity  = "error"
}`, []string{"run", "--var", "url=" + srv.URL}, ExitFail, "not shown"},
		{"split where", `
template "订票" { text = "去{城市}" }
split "s" { where = tonumber(var.token) > 0 }
`, []string{"generate"}, ExitCannotRun, "split"},
		{"static header", `
target "nlu" {
  http {
    url     = "${var.url}/parse"
    headers = { X-Key = tostring(tonumber(var.token)) }
  }
}
template "订票" { text = "去{城市}" }
`, []string{"run", "--var", "url=" + srv.URL}, ExitInvalid, "X-Key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSuite(t, diagSuiteHead+c.body)
			env := map[string]string{"NLU_TOKEN": diagSecret}
			args := append(append([]string{c.args[0], dir}, c.args[1:]...), "--color", "never")
			if c.args[0] == "run" {
				args = append(args, "--out", filepath.Join(dir, "run"),
					"--report-junit", filepath.Join(dir, "junit.xml"), "--report-markdown", filepath.Join(dir, "summary.md"))
			}
			code, out, errs := runCLI(t, dir, env, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			all := out + errs
			findLeaks(t, "output", all, diagSecret)
			findLeaks(t, "output", all, diagSecret[:5])
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(path, ".nlutest.hcl") {
					return err
				}
				b, _ := os.ReadFile(path)
				all += string(b)
				findLeaks(t, path, string(b), diagSecret)
				findLeaks(t, path, string(b), diagSecret[:5])
				return nil
			})
			if !strings.Contains(all, c.want) {
				t.Errorf("no file or output says %q: the failure went unreported\n%s", c.want, out+errs)
			}
		})
	}
}

// TestSecretsInVariableDiagnostics (issue 12, item 6): a misspelt name in a
// variable file, or a value of the wrong type from a variable file, --var
// or NLUTEST_VAR_, is reported without the value.
func TestSecretsInVariableDiagnostics(t *testing.T) {
	const pin = "98765-诊断-4321"
	suite := `
suite "变量" {}
variable "token" {
  default   = ""
  sensitive = true
}
variable "pin" {
  default   = 1000
  sensitive = true
}
materials "城市" { values = ["北京"] }
template "订票" { text = "去{城市}" }
`
	files := map[string]string{
		"typo.hcl":    "tokn = \"" + diagSecret + "\"\n",
		"typo.json":   "{\"tokn\": \"" + diagSecret + "\"}\n",
		"type.hcl":    "pin = \"" + pin + "\"\n",
		"heredoc.hcl": "tokn = <<EOT\n" + diagSecret + "\nEOT\n",
		"broken.hcl":  "token = \"" + diagSecret + "\n",
	}
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"var-file typo", []string{"--var-file", "typo.hcl"}, nil, "Undeclared variable"},
		{"json var-file typo", []string{"--var-file", "typo.json"}, nil, "Undeclared variable"},
		{"var-file heredoc typo", []string{"--var-file", "heredoc.hcl"}, nil, "Undeclared variable"},
		{"var-file syntax error", []string{"--var-file", "broken.hcl"}, nil, "broken.hcl:1"},
		{"var-file type", []string{"--var-file", "type.hcl"}, nil, "Invalid variable value"},
		{"--var type", []string{"--var", "pin=" + pin}, nil, "Invalid variable value"},
		{"--var typo", []string{"--var", "tokn=" + diagSecret}, nil, "Undeclared variable"},
		{"environment type", nil, map[string]string{"NLUTEST_VAR_pin": pin}, "Invalid variable value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSuite(t, suite)
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := slices.Clone(c.args)
			if len(args) == 2 && args[0] == "--var-file" {
				args[1] = filepath.Join(dir, args[1])
			}
			for _, cmd := range []string{"validate", "generate"} {
				code, out, errs := runCLI(t, dir, c.env, append([]string{cmd, dir}, args...)...)
				if code != ExitInvalid {
					t.Fatalf("%s: exit %d, want 2\n%s%s", cmd, code, out, errs)
				}
				findLeaks(t, cmd+" output", out+errs, diagSecret)
				findLeaks(t, cmd+" output", out+errs, pin)
				if !strings.Contains(errs, c.want) {
					t.Errorf("%s: no diagnostic saying %q:\n%s", cmd, c.want, errs)
				}
			}
		})
	}
}

// TestShortSecretsRefused (issue 12, item 5): a sensitive value too short
// to redact without wrecking reports (under 3 characters, or a bool) is
// refused at load, naming the variable and not the value; numbers are
// redacted by their text; the empty string is allowed.
func TestShortSecretsRefused(t *testing.T) {
	cases := []struct {
		name, decl string
		vars       []string
		code       int
	}{
		{"two characters", `default = "x"`, []string{"s=Q7"}, ExitInvalid},
		{"two Chinese characters", `default = "x"`, []string{"s=密码"}, ExitInvalid},
		{"short number", `default = 10`, []string{"s=42"}, ExitInvalid},
		{"bool", `default = true`, nil, ExitInvalid},
		{"short in a list", `default = ["long-enough", "ab"]`, nil, ExitInvalid},
		{"empty", `default = ""`, nil, ExitPass},
		{"three characters", `default = "x"`, []string{"s=Q7z"}, ExitPass},
		{"long number", `default = 10`, []string{"s=73914"}, ExitPass},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSuite(t, `
suite "短" {}
variable "s" {
  `+c.decl+`
  sensitive = true
}
materials "城市" { values = ["北京"] }
template "订票" { text = "去{城市}" }
`)
			args := []string{"validate", dir}
			for _, v := range c.vars {
				args = append(args, "--var", v)
			}
			code, out, errs := runCLI(t, dir, nil, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			if c.code == ExitInvalid && (!strings.Contains(errs, "Sensitive value too short") || !strings.Contains(errs, `"s"`)) {
				t.Errorf("the refusal does not name the rule and the variable:\n%s", errs)
			}
			// The temporary directory's random name may hold the digits of a
			// short value ("…/001423…"): search what the CLI wrote, not it.
			shown := strings.ReplaceAll(errs, dir, "DIR")
			for _, v := range c.vars {
				if val := strings.TrimPrefix(v, "s="); c.code == ExitInvalid && strings.Contains(shown, val) {
					t.Errorf("the refusal prints the value %q:\n%s", val, errs)
				}
			}
		})
	}
}

// Minor 7 of the 2026-12-05 security audit: crack.go found --var pin=417
// from run.json's print in 6.9 s. A sensitive value short or simple
// enough to guess is accepted (the run can still redact it) with a
// warning at the variable that names it, never its value, and says what
// run.json lets whoever reads it do.
func TestGuessableSecretsWarned(t *testing.T) {
	for _, c := range []struct {
		value string
		warn  bool
	}{
		{"417", true},
		{"8312", true},
		{"527391", true},
		{"qwertyui", true},
		{"密码三", true},
		{"73914628105", true},
		{"739146281054", false}, // 12 digits: 10^12 values
		{"sk-live-Zx9+Qw/Er7_Ty5-Ui3", false},
		{"北京的秘密口令", false},
	} {
		t.Run(c.value, func(t *testing.T) {
			dir := writeSuite(t, `
suite "猜" {}
variable "pin" {
  default   = ""
  sensitive = true
}
materials "城市" { values = ["北京"] }
template "订票" { text = "去{城市}" }
`)
			code, out, errs := runCLI(t, dir, nil, "validate", dir, "--var", "pin="+c.value)
			if code != ExitPass {
				t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
			}
			warned := strings.Contains(errs, "Sensitive value easy to guess")
			if warned != c.warn {
				t.Fatalf("warned %v, want %v:\n%s", warned, c.warn, errs)
			}
			if warned && (!strings.Contains(errs, `"pin"`) || !strings.Contains(errs, "run.json") || !strings.Contains(errs, "suite.nlutest.hcl:3")) {
				t.Errorf("the warning does not name the variable, its place and run.json:\n%s", errs)
			}
			if shown := strings.ReplaceAll(errs, dir, "DIR"); strings.Contains(shown, c.value) {
				t.Errorf("the warning prints the value:\n%s", errs)
			}
		})
	}
}
