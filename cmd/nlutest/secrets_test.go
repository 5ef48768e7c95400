package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// secretSuite sends the sensitive token in a header, the URL query and the
// request body; its checks fail in ways that print what the service
// echoed (a failed expectation's actual value, a condition's values).
const secretSuite = `
suite "密钥" {
  description = "no schema: the service's echo fields are not in a preset"
}

variable "url" {}

variable "token" {
  default   = env("NLU_TOKEN", "")
  sensitive = true
}

target "nlu" {
  http {
    url     = "${var.url}/model/parse?lang=zh&token=${var.token}"
    headers = {
      Authorization = "Bearer ${var.token}"
      X-Client      = "测试客户端"
    }
    body = jsonencode({ text = case.text, token = var.token })
  }
  concurrency = 2
  error_budget = 1
}

materials "话语" {
  values = ["订一张去北京的机票", "返回无效的JSON", "服务器出错"]
}

template "回显" {
  text = "{话语}"
  expect = {
    "$.intent.name" = "订机票"
    "$.echo.body"   = "别的值"
  }
  assert {
    condition = response.echo.header == "Bearer 别的"
    message   = "the service must not echo the Authorization header"
  }
  assert {
    condition = http.headers["x-echo-token"] == ""
    message   = "no token header"
  }
}
`

// echoService echoes the token it received (header, query, body) in its
// response body and headers. For "返回无效的JSON" and "服务器出错" it sends a
// non-JSON body that holds the token twice: across byte 80 (where an
// InvalidJSON message's preview is cut) and across byte 4096 (where a
// recorded non-JSON body is cut).
func echoService(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text, Token string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		auth := r.Header.Get("Authorization")
		query := r.URL.Query().Get("token")
		w.Header().Set("X-Echo-Token", req.Token)
		w.Header().Set("Set-Cookie", "session="+url.QueryEscape(req.Token))
		switch req.Text {
		case "返回无效的JSON", "服务器出错":
			body := straddle(req.Token, 80-len(req.Token)/2, 4096-len(req.Token)/2)
			if req.Text == "服务器出错" {
				w.WriteHeader(http.StatusInternalServerError)
			}
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"text":     req.Text,
			"intent":   map[string]any{"name": "订机票", "confidence": 0.95},
			"entities": []any{},
			"echo":     map[string]any{"header": auth, "query": query, "body": req.Token},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// straddle returns a non-JSON body with tok at byte offsets a and b,
// padded with Chinese and ASCII text.
func straddle(tok string, a, b int) []byte {
	var s strings.Builder
	pad := func(to int) {
		for s.Len() < to {
			if to-s.Len() >= len("错") {
				s.WriteString("错")
			} else {
				s.WriteByte('.')
			}
		}
	}
	s.WriteString("错误: ")
	pad(a)
	s.WriteString(tok)
	pad(b)
	s.WriteString(tok)
	s.WriteString(" 结束")
	return []byte(s.String())
}

// leakForm is one way a token can appear in a file.
type leakForm struct{ kind, text string }

// leakForms returns the token as it could appear in a file, most complete
// first: raw, JSON escaped (with HTML escaping, and ASCII-only as Python
// writes it), URL encoded, and its first and last thirds (a token cut
// short).
func leakForms(tok string) []leakForm {
	forms := []leakForm{{"raw", tok}}
	html, _ := json.Marshal(tok)
	forms = append(forms, leakForm{"json", strings.Trim(string(html), `"`)})
	var ascii strings.Builder
	for _, r := range tok {
		switch {
		case r < 0x20 || r == '"' || r == '\\':
			b, _ := json.Marshal(string(r))
			ascii.WriteString(strings.Trim(string(b), `"`))
		case r < utf8.RuneSelf:
			ascii.WriteRune(r)
		default:
			fmt.Fprintf(&ascii, `\u%04x`, r)
		}
	}
	forms = append(forms, leakForm{"json-ascii", ascii.String()},
		leakForm{"query-escaped", url.QueryEscape(tok)}, leakForm{"path-escaped", url.PathEscape(tok)})
	n := len(tok) / 3
	for n > 0 && !utf8.RuneStart(tok[n]) {
		n--
	}
	m := len(tok) - len(tok)/3
	for m < len(tok) && !utf8.RuneStart(tok[m]) {
		m++
	}
	// Thirds shorter than 5 bytes would match ordinary text (digits of a
	// latency, say); they are not searched.
	for _, f := range []leakForm{{"first third", tok[:n]}, {"last third", tok[m:]}} {
		if len(f.text) >= 5 {
			forms = append(forms, f)
		}
	}
	return forms
}

// findLeaks reports the most complete form of tok found in text, if any.
func findLeaks(t *testing.T, where, text, tok string) {
	t.Helper()
	for _, f := range leakForms(tok) {
		if f.text == "" {
			continue
		}
		if i := strings.Index(text, f.text); i >= 0 {
			from, to := max(0, i-80), min(len(text), i+len(f.text)+40)
			for from > 0 && !utf8.RuneStart(text[from]) {
				from--
			}
			for to < len(text) && !utf8.RuneStart(text[to]) {
				to++
			}
			t.Errorf("%s holds the token (%s form %q) at byte %d: …%s…", where, f.kind, f.text, i, text[from:to])
			return
		}
	}
}

func TestSecretsNeverRecorded(t *testing.T) {
	tokens := map[string]string{
		// A typical API key, with Chinese in it.
		"plain": "sk-机密-7Q9xZ2mK4pW8vL3n",
		// Characters JSON (<, >, &) and URLs (+, /, =, &) escape.
		"escaped": "tok&<机密>+/=Zq81",
	}
	srv := echoService(t)
	for name, tok := range tokens {
		t.Run(name, func(t *testing.T) {
			dir := writeSuite(t, secretSuite)
			env := map[string]string{"NLU_TOKEN": tok, "NLUTEST_VAR_url": srv.URL}
			runDir := filepath.Join(dir, "run")
			if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			reports := []string{"--report-junit", filepath.Join(dir, "out", "junit.xml"),
				"--report-markdown", filepath.Join(dir, "out", "summary.md"),
				"--report-json", filepath.Join(dir, "out", "report.json")}
			code, out, errs := runCLI(t, dir, env, append([]string{"run", dir, "--var", "url=" + srv.URL, "--out", runDir, "--color", "never"}, reports...)...)
			if code != ExitFail {
				t.Fatalf("exit %d, want 1 (every case fails or errors)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			findLeaks(t, "run stdout", out, tok)
			findLeaks(t, "run stderr", errs, tok)
			// The same with every case listed in JUnit.
			code, out, errs = runCLI(t, dir, env, "run", dir, "--var", "url="+srv.URL, "--out", filepath.Join(dir, "run2"),
				"--junit-cases", "--report-junit", filepath.Join(dir, "out", "junit-cases.xml"), "--color", "always")
			if code != ExitFail {
				t.Fatalf("second run: exit %d, want 1\n%s", code, errs)
			}
			findLeaks(t, "run --junit-cases stdout", out, tok)
			findLeaks(t, "run --junit-cases stderr", errs, tok)
			for _, format := range []string{"jsonl", "csv"} {
				code, out, errs = runCLI(t, dir, env, "generate", dir, "--format", format)
				if code != ExitPass {
					t.Fatalf("generate --format %s: exit %d\n%s", format, code, errs)
				}
				findLeaks(t, "generate --format "+format+" stdout", out, tok)
				findLeaks(t, "generate stderr", errs, tok)
			}
			if code, _, errs = runCLI(t, dir, env, "generate", dir, "-o", filepath.Join(dir, "out", "cases.jsonl")); code != ExitPass {
				t.Fatalf("generate -o: exit %d\n%s", code, errs)
			}
			code, out, errs = runCLI(t, dir, env, "validate", dir)
			if code != ExitPass {
				t.Fatalf("validate: exit %d\n%s", code, errs)
			}
			findLeaks(t, "validate output", out+errs, tok)

			// The service did receive the token everywhere (else the test
			// proves nothing), and results.jsonl recorded the echoes.
			res, err := os.ReadFile(filepath.Join(runDir, "results.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			wants := []string{`"header":"Bearer [redacted]"`, `"X-Echo-Token":"[redacted]"`, `"Authorization":"[redacted]"`}
			if !strings.Contains(tok, "&") {
				// An & in the token ends the query parameter early (the
				// suite language has no urlencode).
				wants = append(wants, `"query":"[redacted]"`)
			}
			for _, want := range wants {
				if !strings.Contains(string(res), want) {
					t.Errorf("results.jsonl lacks %s: the service did not echo the token as expected", want)
				}
			}

			files := 0
			err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if strings.HasSuffix(path, ".nlutest.hcl") {
					return nil // the suite itself names var.token, not its value
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				files++
				rel, _ := filepath.Rel(dir, path)
				findLeaks(t, rel, string(b), tok)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if files < 8 {
				t.Errorf("searched %d files, want the two results files, reports and cases (8 or more)", files)
			}
		})
	}
}

// TestSensitiveOutsideTarget: a sensitive variable used where its value
// becomes part of a case (an expectation, a material value) must either be
// refused when the suite is loaded (exit 2, naming the variable) or never
// reach a case file.
func TestSensitiveOutsideTarget(t *testing.T) {
	const tok = "sk-机密-expect-5Yq2"
	uses := map[string]string{
		"expect": `
materials "城市" { values = ["北京"] }
template "回显" {
  text   = "去{城市}"
  expect = { "$.echo" = var.token }
}`,
		"materials": `
materials "口令" { values = [var.token, "公开的值"] }
template "说口令" {
  text = "口令是{口令}"
}`,
	}
	for name, body := range uses {
		t.Run(name, func(t *testing.T) {
			dir := writeSuite(t, `
suite "敏感" {}
variable "token" {
  default   = env("NLU_TOKEN", "")
  sensitive = true
}
`+body)
			env := map[string]string{"NLU_TOKEN": tok}
			code, out, errs := runCLI(t, dir, env, "generate", dir)
			switch code {
			case ExitInvalid:
				if !strings.Contains(errs, "token") {
					t.Errorf("generate refused the suite without naming the variable:\n%s", errs)
				}
			case ExitPass:
				if out == "" {
					t.Fatalf("generate printed no case")
				}
			default:
				t.Fatalf("generate: exit %d\n%s", code, errs)
			}
			findLeaks(t, "generate output", out+errs, tok)
		})
	}
}

// TestNumericSecret: a sensitive value the service echoes as a JSON number
// (an account PIN, say). Redacting it must not turn the recorded response
// into invalid JSON: the run completes with every case recorded, and the
// value appears nowhere.
func TestNumericSecret(t *testing.T) {
	const pin = "73914628"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Text string
			PIN  json.Number
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"intent":{"name":"查余额","confidence":0.9},"account":{"pin":%s,"备注":"PIN %s"}}`, req.PIN, req.PIN)
	}))
	t.Cleanup(srv.Close)
	dir := writeSuite(t, `
suite "数字密钥" {}
variable "url" {}
variable "pin" {
  default   = env("NLU_PIN", "")
  sensitive = true
}
target "nlu" {
  http {
    url  = "${var.url}/parse"
    body = jsonencode({ text = case.text, pin = tonumber(var.pin) })
  }
}
materials "账户" { values = ["储蓄卡", "信用卡"] }
template "查余额" {
  text   = "查一下{账户}的余额"
  expect = { "$.intent.name" = "查余额" }
}
`)
	runDir := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, map[string]string{"NLU_PIN": pin}, "run", dir, "--var", "url="+srv.URL, "--out", runDir)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0 (both cases pass)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	lines := readResultLines(t, filepath.Join(runDir, "results.jsonl"))
	if len(lines) != 2 {
		t.Errorf("results.jsonl has %d results, want 2", len(lines))
	}
	findLeaks(t, "run output", out+errs, pin)
	for _, f := range []string{"results.jsonl", "report.json"} {
		b, err := os.ReadFile(filepath.Join(runDir, f))
		if err != nil {
			t.Fatal(err)
		}
		findLeaks(t, f, string(b), pin)
	}
}
