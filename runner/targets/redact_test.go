package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// redactKey is an OpenAI-style key with + / _ -; redactKeyNet is it as
// System.Text.Json writes it inside a string (every character but letters
// and digits \u-escaped).
// testCacheKey signs the response cache entries of these tests.
var testCacheKey = bytes.Repeat([]byte{0x5a}, runner.CacheKeySize)

const (
	redactKey    = "sk-proj-Ab3+De/Fg9_Hi-Jk7Lm0Qr"
	redactKeyNet = `sk\u002Dproj\u002DAb3\u002BDe\u002FFg9\u005FHi\u002DJk7Lm0Qr`
)

func redactSuite(url string) string {
	return fmt.Sprintf(`
suite "密钥" {}
variable "api_key" { sensitive = true }
target "bot" {
  openai {
    url     = %q
    model   = "m"
    api_key = var.api_key
  }
}
`, url)
}

// callOnce makes one call of text through the default target of the
// suite in src (in dir, a new directory when ""), api_key set to the key.
func callOnce(t *testing.T, dir, src string, o runner.CallerOptions, text string) *schema.Result {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, TargetKinds: Kinds(), Env: func(k string) (string, bool) { return redactKey, k == "NLUTEST_VAR_api_key" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	caller, err := NewCaller(context.Background(), s, s.Target(""), o)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	sc := &schema.Script{ID: "s", Turns: []*schema.Case{{ID: "s/1", Script: "s", Turn: 1, Text: text}}}
	sess, err := caller.Open(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	return sess.Call(context.Background(), sc.Turns[0], nil)
}

// noKey fails when the result, as results.jsonl would hold it, carries
// the key raw or \u-escaped.
func noKey(t *testing.T, what string, r *schema.Result) string {
	t.Helper()
	b, _ := json.Marshal(r)
	for _, f := range []string{redactKey, redactKeyNet, "proj"} {
		if strings.Contains(string(b), f) {
			t.Errorf("%s: the record holds %q: %s", what, f, b)
		}
	}
	return string(b)
}

// An error body that is JSON (a 401 quoting the key \u-escaped) is
// recorded redacted and still JSON; a text body escaping every character
// is redacted too.
func TestErrorBodiesRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "text") {
			w.WriteHeader(http.StatusInternalServerError)
			var all strings.Builder
			for _, c := range redactKey {
				fmt.Fprintf(&all, `\u%04x`, c)
			}
			fmt.Fprintf(w, "trace: 出错了 u=%s end", all.String())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`, redactKeyNet)
	}))
	defer srv.Close()
	r := callOnce(t, "", redactSuite(srv.URL+"/json/v1"), runner.CallerOptions{}, "你好")
	noKey(t, "401", r)
	if r.Error == nil || r.Status != 401 || !json.Valid([]byte(r.Body)) || !strings.Contains(r.Body, "Incorrect API key provided: [redacted]") {
		t.Errorf("401: error %v, status %d, body %s", r.Error, r.Status, r.Body)
	}
	r = callOnce(t, "", redactSuite(srv.URL+"/text/v1"), runner.CallerOptions{}, "你好")
	noKey(t, "500", r)
	if r.Body != "trace: 出错了 u=[redacted] end" {
		t.Errorf("500: body %q", r.Body)
	}
}

// A response read back from the cache is redacted again: an entry an
// earlier version stored with the key double-encoded in the reply (JSON
// text inside the content) does not reach the record or the reply.
func TestCachedResponseRedactedAgain(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"好的"}}]}`))
	}))
	defer srv.Close()
	cacheDir := t.TempDir()
	cache, err := runner.NewCache(cacheDir, testCacheKey)
	if err != nil {
		t.Fatal(err)
	}
	src := redactSuite(srv.URL + "/v1")
	callOnce(t, "", src, runner.CallerOptions{Cache: cache}, "你好")
	// What an older nlutest could have stored: the key double-encoded.
	old := `{"choices":[{"message":{"content":"{\"key\":\"` + strings.ReplaceAll(redactKeyNet, `\`, `\\`) + `\"}"}}]}`
	entries := 0
	_ = filepath.WalkDir(cacheDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			entries++
			// Signed with the cache's key: that version's own entry.
			cache.Put(strings.TrimSuffix(filepath.Base(p), ".json"), &schema.Result{Status: 200, Response: json.RawMessage(old), Headers: map[string]string{"X-Echo": redactKeyNet}})
		}
		return err
	})
	if entries != 1 {
		t.Fatalf("%d cache entries", entries)
	}
	r := callOnce(t, "", src, runner.CallerOptions{Cache: cache}, "你好")
	if calls != 1 || !r.Cached {
		t.Fatalf("the second call was not answered from the cache (%d calls)", calls)
	}
	noKey(t, "cached", r)
	if r.Reply != `{"key":"[redacted]"}` || r.Headers["X-Echo"] != runner.Redacted {
		t.Errorf("cached: reply %q, headers %v", r.Reply, r.Headers)
	}
}

// A replay target redacts what it replays: a results file recorded
// before a form was redacted (or by another suite) gives back no secret.
func TestReplayRedacts(t *testing.T) {
	dir := t.TempDir()
	rec := schema.Result{Case: schema.Case{ID: "s/1", Script: "s", Turn: 1, Text: "你好"}, Target: "old",
		Response: json.RawMessage(`{"choices":[{"message":{"content":"` + redactKeyNet + `"}}]}`),
		Reply:    `{"key":"` + redactKeyNet + `"}`, Body: "u=" + redactKeyNet,
		Error: &schema.CallError{Type: schema.ErrHTTP, Message: "key " + redactKey}}
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
suite "重放" {}
variable "api_key" { sensitive = true }
target "r" {
  replay { source = "results.jsonl" }
}
`
	r := callOnce(t, dir, src, runner.CallerOptions{}, "你好")
	got := noKey(t, "replayed", r)
	if strings.Count(got, runner.Redacted) < 4 {
		t.Errorf("replayed: %s", got)
	}
}
