package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnotateNumbersPassOnTheirSample (issue 12, "annotate drafts numbers
// that fail on their own sample"): numbers float64 does not hold exactly
// (an integer beyond int64, one beyond float64's range, 18 fraction
// digits) are drafted as written, and the drafted suite passes on the
// service that answered them.
func TestAnnotateNumbersPassOnTheirSample(t *testing.T) {
	const body = `{"intent":"查余额","big":123456789012345678901234567890,"huge":1e400,"tiny":-1e-400,"precise":0.123456789012345678,"f":0.1,"i":9007199254740993}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	dir := writeSuite(t, `
suite "数字" {}
variable "url" {}
target "nlu" {
  http { url = var.url }
}
materials "账户" { values = ["储蓄卡"] }
template "查余额" { text = "查{账户}" }
`)
	code, out, errs := runCLI(t, dir, nil, "annotate", dir, "--var", "url="+srv.URL, "--write")
	if code != ExitPass {
		t.Fatalf("annotate: exit %d\n%s%s", code, out, errs)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "suite.nlutest.hcl"))
	for _, want := range []string{"= 123456789012345678901234567890", "= 1e400", "= 0.123456789012345678"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the drafted suite lacks %q:\n%s", want, src)
		}
	}
	code, out, errs = runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--include-unreviewed", "--out", filepath.Join(dir, "run"))
	if code != ExitPass {
		t.Errorf("the drafted expectations fail on their own sample: exit %d\n%s%s", code, out, errs)
	}
}
