package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nlutest/nlutest/runner"
)

// recordsService answers every utterance with the weather intent, except
// one naming 坏城, which gets an HTML page (a real InvalidJSON service
// error). It counts the calls.
func recordsService(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(r.Body)
		if strings.Contains(b.String(), "坏城") {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>服务坏了</html>")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"intent":{"name":"查天气","confidence":0.93},"entities":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// recordsSuite is a suite of 5 cases against url: 4 answered, 1 (坏城)
// answered with a body that is not JSON.
func recordsSuite(url string) string {
	return fmt.Sprintf(`
suite "记录" {}
target "svc" {
  http { url = %q }
}
materials "城市" { values = ["北京", "上海", "广州", "深圳", "坏城"] }
template "查天气" {
  text   = "{城市}明天天气怎么样"
  expect = { "$.intent.name" = "查天气" }
}
`, url)
}

// Minor 6 of the 2026-12-05 security audit: a results line damaged inside
// its response ("name"::) was read by eval and --resume as an InvalidJSON
// service error (PASS … 0 errored became FAIL … 1 errored, with no word of
// the damage), and merge exited 3 without file or line. Such a line is a
// damaged file for every command that reads it: exit 2 naming
// results.jsonl:LINE, the file left as it was. A real InvalidJSON service
// error (recorded as an error with the body, no response) still counts as
// an error on eval.
func TestDamagedResponseIsExit2Everywhere(t *testing.T) {
	srv, _ := recordsService(t)
	dir := writeSuite(t, recordsSuite(srv.URL))
	run := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitFail || !strings.Contains(out, "4 passed, 0 failed, 1 errored of 5 cases") {
		t.Fatalf("run: exit %d, want 1 with 1 errored\n%s\n%s", code, out, errs)
	}
	results := filepath.Join(run, runner.ResultsFile)
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"error":{"type":"InvalidJSON"`)) || !bytes.Contains(b, []byte(`"body":"<html>服务坏了</html>"`)) {
		t.Fatalf("the service's InvalidJSON is recorded as an error with its body:\n%s", b)
	}
	// The real service error stays an error on eval.
	code, out, errs = runCLI(t, dir, nil, "eval", run)
	if code != ExitFail || !strings.Contains(out, "4 passed, 0 failed, 1 errored of 5 cases") {
		t.Fatalf("eval of the intact run: exit %d\n%s\n%s", code, out, errs)
	}

	lines := bytes.SplitAfter(b, []byte("\n"))
	at := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"response":{"intent":{"name":"查天气"`)) {
			at = i + 1
			lines[i] = bytes.Replace(l, []byte(`{"name":"查天气"`), []byte(`{"name"::"查天气"`), 1)
			break
		}
	}
	if at == 0 {
		t.Fatalf("no answered record in\n%s", b)
	}
	damaged := bytes.Join(lines, nil)
	if err := os.WriteFile(results, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s:%d: not a result record: response: not JSON: invalid character ':'", results, at)
	hint := "delete the line and run `nlutest run --resume " + run + "`"
	merged := filepath.Join(t.TempDir(), "merged")
	for _, args := range [][]string{
		{"eval", run},
		{"run", "--resume", run},
		{"merge", "--out", merged, run},
	} {
		code, out, errs := runCLI(t, dir, nil, args...)
		if code != ExitInvalid || !strings.Contains(errs, want) || !strings.Contains(errs, hint) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2, %q and %q", args[0], code, errs, want, hint)
		}
		if strings.Contains(out, "errored") {
			t.Errorf("%s printed a verdict:\n%s", args[0], out)
		}
		if now, _ := os.ReadFile(results); !bytes.Equal(now, damaged) {
			t.Errorf("%s changed the damaged results file", args[0])
		}
	}
	if fileExists(merged) {
		t.Errorf("a failed merge left %s", merged)
	}
}
