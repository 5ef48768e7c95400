package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

func TestExecTarget(t *testing.T) {
	dir := writeSuite(t, `
suite "命令" {}
target "nlu" {
  exec {
    # Reads the case on stdin, answers the intent on stdout.
    command = ["sh", "-c", "read -r line; case \"$line\" in *北京天气*) echo '{\"intent\": \"查天气\"}';; *先睡*) sleep 5;; *坏掉*) echo 'not json';; *) echo 'boom' >&2; exit 3;; esac"]
  }
  timeout     = "300ms"
  concurrency = 2
}
materials "句子" { values = ["北京天气", "先睡一会", "坏掉的输出", "其他"] }
template "t" {
  text   = "{句子}"
  expect = { "$.intent" = "查天气" }
}
`)
	start := time.Now()
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"))
	if code != ExitFail {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("the sleeping command was not killed at its timeout: run took %s", el)
	}
	got := map[string]string{}
	_ = runner.ReadResults(filepath.Join(dir, "run", runner.ResultsFile), func(r *schema.Result) error {
		s := r.Outcome.String()
		if r.Error != nil {
			s += " " + r.Error.Type
		}
		got[r.Text] = s
		return nil
	})
	want := map[string]string{"北京天气": "pass", "先睡一会": "error Timeout", "坏掉的输出": "error InvalidJSON", "其他": "error ExecError"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

func TestReplayAndRasaTargets(t *testing.T) {
	srv := fakeNLU(t)
	// A rasa target needs only the server's base URL.
	rasa := strings.Replace(suiteHeader, `  http {
    url  = "${var.url}/model/parse"
    body = jsonencode({ text = case.text })
  }`, `  rasa { url = var.url }`, 1)
	dir := writeSuite(t, rasa)
	first := filepath.Join(dir, "first")
	if code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", first); code != ExitFail {
		t.Fatalf("rasa run exit %d\n%s", code, errs)
	}
	srv.Close() // from here on nothing answers: replay must not need the service
	replay := rasa + `
target "回放" {
  replay { source = "first/results.jsonl" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(replay), 0o644); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url=http://127.0.0.1:1", "--target", "回放", "--out", second)
	if code != ExitFail {
		t.Fatalf("replay run exit %d\n%s", code, errs)
	}
	a, b := readRecorded(t, filepath.Join(first, runner.ResultsFile)), readRecorded(t, filepath.Join(second, runner.ResultsFile))
	if len(a) != 8 || len(b) != 8 {
		t.Fatalf("want 8 results each, got %d and %d", len(a), len(b))
	}
	for id, r := range a {
		if b[id] != r {
			t.Errorf("replayed case %s: %+v, recorded %+v", id, b[id], r)
		}
	}
}

func TestResponseCache(t *testing.T) {
	srv := fakeNLU(t)
	calls := 0
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	dir := writeSuite(t, suiteHeader)
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	runCLI(t, dir, nil, "run", dir, "--var", "url="+counting.URL, "--out", first, "--cache", "--concurrency", "1")
	if calls != 8 {
		t.Fatalf("first run made %d calls, want 8", calls)
	}
	runCLI(t, dir, nil, "run", dir, "--var", "url="+counting.URL, "--out", second, "--cache", "--concurrency", "1")
	if calls != 8 {
		t.Errorf("second run with --cache made %d more calls, want none", calls-8)
	}
	a, b := readRecorded(t, filepath.Join(first, runner.ResultsFile)), readRecorded(t, filepath.Join(second, runner.ResultsFile))
	for id, r := range a {
		if b[id] != r {
			t.Errorf("cached case %s: %+v, first run %+v", id, b[id], r)
		}
	}
}
