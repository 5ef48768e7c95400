package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// loadDiags loads src with the target kinds and the given --var settings.
func loadDiags(t *testing.T, src string, vars ...string) (*spec.Suite, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, TargetKinds: Kinds(), Vars: vars})
}

// An exec target's env may carry a sensitive variable (it goes to the
// command's environment, never into a record); its command and dir may
// not, and the diagnostic says where a secret may go instead. A function
// that fails on the secret in env does not quote it.
func TestExecEnvSensitive(t *testing.T) {
	const secret = "sk-密钥-Zq81+/x7Qp"
	suite := func(exec string) string {
		return `
suite "s" {}
variable "token" { sensitive = true }
target "t" {
  exec {
` + exec + `
  }
}
`
	}
	s, diags := loadDiags(t, suite(`    command = ["sh", "-c", "cat"]
    env     = { TOKEN = var.token, PLAIN = "明文" }`), "token="+secret)
	if diags.HasErrors() {
		t.Fatalf("env with a sensitive variable: %v", diags)
	}
	if env := s.Target("").Config.(*execConfig).Env; env["TOKEN"] != secret || env["PLAIN"] != "明文" {
		t.Errorf("env %v", env)
	}
	for _, tc := range []struct {
		name, exec, summary, detail string
	}{
		{"command", `    command = ["sh", "-c", var.token]`, "Sensitive variable outside a target",
			"an exec target's env, and conditions (assert and success conditions, threshold conditions, a split's where). In the \"command\" attribute of target \"t\" › exec its value could end up in case files, results, reports, diagnostics or what a simulator or judge target is sent. Give the command the secret through the target's env instead: env = { TOKEN = var.token }"},
		{"dir", `    command = ["cat"]
    dir     = var.token`, "Sensitive variable outside a target", "an exec target's env"},
		{"function on the secret in env", `    command = ["cat"]
    env     = { N = tostring(tonumber(var.token)) }`, "", "the call failed on a value derived from a sensitive variable"},
	} {
		_, diags := loadDiags(t, suite(tc.exec), "token="+secret)
		if !diags.HasErrors() || (tc.summary != "" && diags[0].Summary != tc.summary) || !strings.Contains(diags.Error(), tc.detail) {
			t.Errorf("%s: %v\nwant %q: …%s…", tc.name, diags, tc.summary, tc.detail)
		}
		for _, d := range diags {
			if strings.Contains(d.Summary+d.Detail, "Zq81") {
				t.Errorf("%s: a diagnostic quotes the secret: %s: %s", tc.name, d.Summary, d.Detail)
			}
		}
		if d := diags[0]; d.Subject == nil || d.Subject.Start.Line < 6 {
			t.Errorf("%s: diagnostic at %v, want the exec block's line", tc.name, d.Subject)
		}
	}
}
