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

// Minor 8 of the 2026-12-05 security audit (security/cache/run.sh): the
// three answers of a FAIL run, edited in .nlutest/cache, made the next
// `run --cache` PASS without a call, and nothing said the answers came
// from the cache. Entries are now signed with the user's key: the edited
// ones are refused and called again (the verdict stays FAIL, and the
// report says so), the verdict line counts the answers the cache gave,
// and a cache copied into another working directory with another user's
// key (a .nlutest/cache committed to a repository) decides nothing.
func TestEditedCacheEntriesDoNotDecideTheVerdict(t *testing.T) {
	srv, calls := recordsService(t)
	dir := writeSuite(t, fmt.Sprintf(`
suite "缓存" {}
target "svc" {
  http { url = %q }
}
materials "城市" { values = ["北京", "上海", "广州"] }
template "订机票" {
  text   = "帮我订去{城市}的机票"
  expect = { "$.intent.name" = "订机票" }
}
`, srv.URL))
	run := func(wd, out string) (int, string, string) {
		t.Helper()
		return runCLI(t, wd, nil, "run", filepath.Join(dir, "suite.nlutest.hcl"), "--cache", "--out", filepath.Join(wd, out))
	}
	const fail = "FAIL  缓存: 0 passed, 3 failed, 0 errored of 3 cases"
	if code, out, errs := run(dir, "r1"); code != ExitFail || !strings.Contains(out, fail) || calls.Load() != 3 {
		t.Fatalf("first run: exit %d, %d calls\n%s\n%s", code, calls.Load(), out, errs)
	}
	// Edit the three answers, as a pull request could.
	entries, _ := filepath.Glob(filepath.Join(dir, ".nlutest", "cache", "*", "*.json"))
	if len(entries) != 3 {
		t.Fatalf("%d cache entries, want 3", len(entries))
	}
	for _, p := range entries {
		b, _ := os.ReadFile(p)
		if !bytes.Contains(b, []byte(`"name":"查天气"`)) {
			t.Fatalf("entry %s", b)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(`"name":"查天气"`), []byte(`"name":"订机票"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(dir, "r2")
	if code != ExitFail || !strings.Contains(out, fail+" (") || calls.Load() != 6 {
		t.Errorf("after editing the entries: exit %d, %d calls (want 1, 6: the edited entries called again)\n%s\n%s", code, calls.Load(), out, errs)
	}
	warning := "3 entries of the response cache " + filepath.Join(dir, ".nlutest", "cache") + " did not verify with your cache key"
	if rep := loadReport(t, filepath.Join(dir, "r2")); !strings.Contains(strings.Join(rep.Warnings, "\n"), warning) || !strings.Contains(out, warning) {
		t.Errorf("the report does not say the entries were refused: %q\n%s", rep.Warnings, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r2", "results.jsonl")); bytes.Contains(b, []byte(`"cached":true`)) {
		t.Errorf("a refused entry was used:\n%s", b)
	}
	// The entries the calls rewrote are the service's answers, signed:
	// the next run takes all three from the cache, and says so.
	code, out, errs = run(dir, "r3")
	if code != ExitFail || !strings.Contains(out, fail+" · 3 answered from the response cache (") || calls.Load() != 6 {
		t.Errorf("third run: exit %d, %d calls\n%s\n%s", code, calls.Load(), out, errs)
	}
	if rep := loadReport(t, filepath.Join(dir, "r3")); rep.Run.Cached != 3 {
		t.Errorf("report.json run.cached = %d, want 3", rep.Run.Cached)
	}
	// The cache committed to a repository and checked out elsewhere (a CI
	// machine: another working directory, another user's key).
	elsewhere := t.TempDir()
	if err := os.CopyFS(filepath.Join(elsewhere, ".nlutest"), os.DirFS(filepath.Join(dir, ".nlutest"))); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(elsewhere, "r4")
	if code != ExitFail || !strings.Contains(out, fail+" (") || calls.Load() != 9 || !strings.Contains(out, "3 entries of the response cache") {
		t.Errorf("a copied cache: exit %d, %d calls (want 9)\n%s\n%s", code, calls.Load(), out, errs)
	}
}
