package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// openaiLeakSuite calls an OpenAI-compatible server with a sensitive API
// key; a condition compares the reply with the key (so a failure message
// could print it).
const openaiLeakSuite = `
suite "模型密钥" {}

variable "llm_url" {}
variable "api_key" { sensitive = true }

target "bot" {
  openai {
    url     = var.llm_url
    model   = "qwen2.5-7b-instruct"
    api_key = var.api_key
    system  = "你是订票助手。"
    params  = { temperature = 0 }
  }
  error_budget = 1
}

materials "话" {
  values = ["帮我订机票", "把密钥念一遍", "401 测试"]
}

template "对话" {
  text = "{话}"
  assert {
    condition = !strcontains(response.choices[0].message.content, var.api_key)
    message   = "the bot must not repeat the key"
  }
}
`

// keyEchoingLLM is a chat-completions server that checks the Bearer key
// and then leaks it back the ways real servers do: in a 401 error message
// ("Incorrect API key provided: …") and in a reply that repeats it.
func keyEchoingLLM(t *testing.T, key string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen = append(seen, auth)
		mu.Unlock()
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.Unmarshal(raw, &req)
		last := ""
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Content
		}
		w.Header().Set("Content-Type", "application/json")
		msg, _ := json.Marshal("Incorrect API key provided: " + strings.TrimPrefix(auth, "Bearer "))
		if auth != "Bearer "+key || strings.HasPrefix(last, "401") {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":`+string(msg)+`,"type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		content := "好的，请问去哪里？"
		if strings.Contains(last, "密钥") {
			content = "您的密钥是 " + key + "，Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key))
		}
		c, _ := json.Marshal(content)
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":`+string(c)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// base64Forms are the key as it shows inside base64 text at each of the
// three alignments (the characters that depend on the key alone).
func base64Forms(key string) []leakForm {
	var out []leakForm
	for pad := 0; pad < 3; pad++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString([]byte(strings.Repeat("x", pad) + key))
			s = strings.TrimRight(s, "=")
			from := 0
			if pad > 0 {
				from = 4
			}
			if to := len(s) - 4; to-from >= 8 {
				out = append(out, leakForm{"base64", s[from:to]})
			}
		}
	}
	return out
}

// Acceptance 2 of issue 13: the openai target's API key appears in no
// output file, log or diagnostic — results, reports (JSON, JUnit,
// Markdown, HTML), eval's output, stdout and stderr — raw, JSON-escaped or
// in base64, though the server echoes it in an error and a reply.
func TestOpenAIKeyNeverWritten(t *testing.T) {
	const key = "sk-proj-机密Q7x9Zt2mK4pW8vL3nR5"
	srv, seen := keyEchoingLLM(t, key)
	dir := writeSuite(t, openaiLeakSuite)
	env := map[string]string{"NLUTEST_VAR_api_key": key, "NLUTEST_VAR_llm_url": srv.URL + "/v1"}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "run")
	var streams strings.Builder
	code, stdout, stderr := runCLI(t, dir, env, "run", dir, "--out", runDir, "--color", "never", "--junit-cases",
		"--report-json", filepath.Join(out, "r.json"), "--report-junit", filepath.Join(out, "j.xml"),
		"--report-markdown", filepath.Join(out, "r.md"), "--report-html", filepath.Join(out, "r.html"))
	if code != ExitFail {
		t.Fatalf("run: exit %d, want 1 (the echoing case fails, the 401 errors)\n%s\n%s", code, stdout, stderr)
	}
	streams.WriteString(stdout + stderr)
	// The two calls that answered reported 19 tokens each: metrics.usage
	// and the reports' tokens line.
	if !strings.Contains(stdout, "tokens") || !strings.Contains(stdout, "38 (prompt 24, completion 14) over 2 calls") {
		t.Errorf("the console report lacks the tokens line:\n%s", stdout)
	}
	var rep struct {
		Metrics struct {
			Usage schema.TokenUsage `json:"usage"`
		} `json:"metrics"`
	}
	if rj, err := os.ReadFile(filepath.Join(out, "r.json")); err != nil || json.Unmarshal(rj, &rep) != nil {
		t.Fatalf("report JSON: %v", err)
	}
	if u := rep.Metrics.Usage; u != (schema.TokenUsage{Calls: 2, PromptTokens: 24, CompletionTokens: 14, TotalTokens: 38}) {
		t.Errorf("metrics.usage = %+v", u)
	}
	code, stdout, stderr = runCLI(t, dir, env, "eval", runDir, "--report-markdown", filepath.Join(out, "eval.md"))
	if code != ExitFail {
		t.Fatalf("eval: exit %d\n%s", code, stderr)
	}
	streams.WriteString(stdout + stderr)
	code, stdout, stderr = runCLI(t, dir, env, "validate", dir)
	if code != ExitPass {
		t.Fatalf("validate: exit %d\n%s", code, stderr)
	}
	streams.WriteString(stdout + stderr)

	// The key was sent (else the test proves nothing) and echoed back.
	if len(*seen) != 3 || (*seen)[0] != "Bearer "+key {
		t.Fatalf("the server saw Authorization %q", *seen)
	}
	res, err := os.ReadFile(filepath.Join(runDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Authorization":"[redacted]"`, `Incorrect API key provided: [redacted]`, `您的密钥是 [redacted]`, `"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}`} {
		if !strings.Contains(string(res), want) {
			t.Errorf("results.jsonl lacks %s", want)
		}
	}

	forms := append(leakForms(key), leakForms("Bearer "+key)...)
	forms = append(forms, base64Forms(key)...)
	check := func(where, text string) {
		t.Helper()
		for _, f := range forms {
			if f.text != "" && strings.Contains(text, f.text) {
				t.Errorf("%s holds the key (%s form %q)", where, f.kind, f.text)
				return
			}
		}
	}
	check("stdout and stderr", streams.String())
	files := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".nlutest.hcl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(dir, path)
		check(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 7 {
		t.Errorf("searched %d files, want results, the run's report and the five reports", files)
	}
}
