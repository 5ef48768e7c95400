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
