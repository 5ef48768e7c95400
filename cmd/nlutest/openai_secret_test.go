package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
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

conversation "订票" {
  turn {
    user = "我想订机票"
  }
  turn {
    user = "去北京"
  }
  turn {
    user = "明天"
    assert {
      condition = reply != ""
      message   = "the bot answers every turn"
    }
  }
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
func keyEchoingLLM(t *testing.T, key string) (*httptest.Server, *[]string, *[][]chatMsg) {
	var mu sync.Mutex
	var seen []string
	var sent [][]chatMsg
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen = append(seen, auth)
		mu.Unlock()
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []chatMsg `json:"messages"`
		}
		_ = json.Unmarshal(raw, &req)
		mu.Lock()
		sent = append(sent, req.Messages)
		mu.Unlock()
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
		content := "好的：" + last
		if strings.Contains(last, "密钥") {
			content = "您的密钥是 " + key + "，Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key))
		}
		c, _ := json.Marshal(content)
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":`+string(c)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen, &sent
}

// chatMsg is one message of a chat-completions request.
type chatMsg struct {
	Role    string `json:"role"`
	Content string `json:"content"`
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
// in base64, though the server echoes it in an error and a reply. A
// three-turn conversation in the same run shows the target sends the
// system message and the whole conversation, in order, every turn.
func TestOpenAIKeyNeverWritten(t *testing.T) {
	const key = "sk-proj-机密Q7x9Zt2mK4pW8vL3nR5"
	srv, seen, sent := keyEchoingLLM(t, key)
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
	// The five calls that answered reported 19 tokens each: metrics.usage
	// and the reports' tokens line.
	if !strings.Contains(stdout, "tokens") || !strings.Contains(stdout, "95 (prompt 60, completion 35) over 5 calls") {
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
	if u := rep.Metrics.Usage; u != (schema.TokenUsage{Calls: 5, PromptTokens: 60, CompletionTokens: 35, TotalTokens: 95}) {
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
	if len(*seen) != 6 || (*seen)[0] != "Bearer "+key {
		t.Fatalf("the server saw Authorization %q", *seen)
	}
	// The conversation's third turn sent the system message and the whole
	// conversation before it, in order.
	want := []chatMsg{{"system", "你是订票助手。"}, {"user", "我想订机票"}, {"assistant", "好的：我想订机票"},
		{"user", "去北京"}, {"assistant", "好的：去北京"}, {"user", "明天"}}
	found := false
	for _, m := range *sent {
		found = found || reflect.DeepEqual(m, want)
	}
	if !found {
		t.Errorf("no request carried the whole conversation %v; sent %v", want, *sent)
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
	files := eachWrittenFile(t, dir, true, check)
	if files < 7 {
		t.Errorf("searched %d files, want results, the run's report and the five reports", files)
	}
}
