package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// TestExecTarget: an exec command's answer, a bad answer, a failure, and a
// command that never answers. The first three run with a timeout that
// must not fire; the last one waits until the test ends, so its short
// timeout fires however loaded the machine is.
func TestExecTarget(t *testing.T) {
	dir := writeSuite(t, fmt.Sprintf(`
suite "命令" {}
target "nlu" {
  exec {
    # Reads the case on stdin, answers the intent on stdout.
    command = ["sh", "-c", "read -r line; case \"$line\" in *北京天气*) echo '{\"intent\": \"查天气\"}';; *坏掉*) echo 'not json';; *) echo 'boom' >&2; exit 3;; esac"]
  }
  timeout     = "10m"
  concurrency = 2
}
target "不回答" {
  exec {
    command = ["sh", "-c", %q]
    env     = { HOLD = %q }
  }
  timeout     = "300ms"
  concurrency = 2
}
materials "句子" { values = ["北京天气", "坏掉的输出", "其他"] }
template "t" {
  text   = "{句子}"
  expect = { "$.intent" = "查天气" }
}
`, blockShell, holdDir(t)))
	outcomes := func(target string) map[string]string {
		t.Helper()
		run := filepath.Join(dir, target)
		code, _, errs := runBounded(t, hangLimit, dir, "run", dir, "--target", target, "--out", run)
		if code != ExitFail {
			t.Fatalf("--target %s: exit %d\n%s", target, code, errs)
		}
		got := map[string]string{}
		_ = runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
			s := r.Outcome.String()
			if r.Error != nil {
				s += " " + r.Error.Type
			}
			got[r.Text] = s
			return nil
		})
		return got
	}
	for target, want := range map[string]map[string]string{
		"nlu": {"北京天气": "pass", "坏掉的输出": "error InvalidJSON", "其他": "error ExecError"},
		// Killed at the timeout (its process group with it): were it not,
		// the call would wait until the test ends and runBounded fails.
		"不回答": {"北京天气": "error Timeout", "坏掉的输出": "error Timeout", "其他": "error Timeout"},
	} {
		got := outcomes(target)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("--target %s: %s: got %q, want %q", target, k, got[k], v)
			}
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
