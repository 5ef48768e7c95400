package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// TestExecTargetSecrets (issue 12, item 4): an exec target's stdout is
// recorded redacted on every path (an answer, a failed exit, invalid
// JSON), and the command does not inherit NLUTEST_VAR_ variables.
func TestExecTargetSecrets(t *testing.T) {
	const tok = "sk-执行-Zq81+/x7"
	// The command reads the secret from its own environment (NLU_TOKEN),
	// as the suite's variable does; NLUTEST_VAR_ variables are nlutest's.
	t.Setenv("NLU_TOKEN", tok)
	t.Setenv("NLUTEST_VAR_token", tok)
	t.Setenv("NLUTEST_VAR_other", "for-nlutest-only")
	dir := writeSuite(t, `
suite "命令密钥" {}
variable "token" {
  default   = env("NLU_TOKEN", "")
  sensitive = true
}
target "nlu" {
  exec {
    # Echoes the token, and says how many NLUTEST_VAR_ variables it
    # inherited.
    command = ["sh", "-c", <<-EOT
      read -r line
      n=$(env | grep -c '^NLUTEST_VAR_')
      case "$line" in
        *好的*) printf '{"n": "%s", "echo": "%s"}' "$n" "$NLU_TOKEN";;
        *坏的*) printf 'not json %s' "$NLU_TOKEN";;
        *) printf 'partial %s' "$NLU_TOKEN"; echo "failed with $NLU_TOKEN" >&2; exit 3;;
      esac
    EOT
    ]
  }
}
materials "句子" { values = ["好的", "坏的", "失败"] }
template "t" {
  text   = "{句子}"
  expect = { "$.n" = "0" }
}
`)
	run := filepath.Join(dir, "run")
	env := map[string]string{"NLU_TOKEN": tok, "NLUTEST_VAR_token": tok}
	code, out, errs := runCLI(t, dir, env, "run", dir, "--out", run)
	if code != ExitFail {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	findLeaks(t, "run output", out+errs, tok)
	b, err := os.ReadFile(filepath.Join(run, runner.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	findLeaks(t, "results.jsonl", string(b), tok)
	got := map[string]string{}
	_ = runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
		s := r.Outcome.String()
		if r.Error != nil {
			s += " " + r.Error.Type + " " + r.Error.Message
		}
		got[r.Text] = s + " " + r.Body + string(r.Response)
		return nil
	})
	want := map[string]string{
		"好的": `pass {"n":"0","echo":"[redacted]"}`,
		"坏的": "error InvalidJSON",
		"失败": "error ExecError",
	}
	for text, w := range want {
		if !strings.HasPrefix(got[text], w) || !strings.Contains(got[text], "[redacted]") {
			t.Errorf("%s: recorded %q, want %q… with the token redacted", text, got[text], w)
		}
	}
}

// TestExecTimeoutBound: a command that leaves a process holding its
// output (outside its process group, so the kill misses it) does not hold
// the call past its timeout. Both processes wait until the test ends, so
// the timeout must fire; before the fix the call waited for the outside
// process, and runBounded fails.
func TestExecTimeoutBound(t *testing.T) {
	dir := writeSuite(t, fmt.Sprintf(`
suite "超时" {}
target "nlu" {
  exec {
    command = ["sh", "-c", %q]
    env     = { HOLD = %q }
  }
  timeout = "500ms"
}
materials "句子" { values = ["一", "二"] }
template "t" { text = "{句子}" }
`, "setsid sh -c '"+blockShell+"' & "+blockShell, holdDir(t)))
	code, _, errs := runBounded(t, hangLimit, dir, "run", dir, "--out", filepath.Join(dir, "run"))
	if code != ExitFail {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	n := 0
	_ = runner.ReadResults(filepath.Join(dir, "run", runner.ResultsFile), func(r *schema.Result) error {
		if r.Error == nil || r.Error.Type != schema.ErrTimeout {
			t.Errorf("%s: %+v, want a Timeout", r.Text, r.Error)
		}
		n++
		return nil
	})
	if n != 2 {
		t.Errorf("%d results, want 2", n)
	}
}

// Minor 16 of the 2026-12-01 security audit: docs/security.md said to give
// an exec command its secret "through the target's env", but the load
// refused a sensitive variable there, saying the value "would be written
// to case files, results and reports", which is not where env goes. env
// may now carry a sensitive variable: the value reaches the command's
// environment and nothing nlutest writes (an echo of it is redacted).
func TestExecEnvCarriesSecret(t *testing.T) {
	const tok = "sk-env-Zq81+/x7Qp"
	dir := writeSuite(t, `
suite "环境变量密钥" {}
variable "token" { sensitive = true }
target "nlu" {
  exec {
    command = ["sh", "-c", "read -r line; printf '{\"len\": \"%s\", \"echo\": \"%s\"}' \"$${#NLU_KEY}\" \"$NLU_KEY\""]
    env     = { NLU_KEY = var.token, 模型 = "小" }
  }
  timeout = "10m"
}
materials "句子" { values = ["你好", "订机票"] }
template "t" {
  text   = "{句子}"
  expect = { "$.len" = "17", "$.echo" = "[redacted]" }
}
`)
	if code, out, errs := runCLI(t, dir, map[string]string{"NLUTEST_VAR_token": tok}, "validate", dir); code != ExitPass {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
	run := filepath.Join(dir, "run")
	reports := []string{filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html"), filepath.Join(dir, "junit.xml")}
	code, out, errs := runBounded(t, hangLimit, dir, "run", dir, "--var", "token="+tok, "--out", run, "--junit-cases",
		"--report-markdown", reports[0], "--report-html", reports[1], "--report-junit", reports[2])
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	findLeaks(t, "run output", out+errs, tok)
	for _, p := range append(reports, filepath.Join(run, runner.ResultsFile), filepath.Join(run, "report.json"), filepath.Join(run, "run.json")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		findLeaks(t, filepath.Base(p), string(b), tok)
	}
}
