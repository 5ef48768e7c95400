package main

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/runner/targets"
)

// The secrets of issue 24 (audit of 2026-12-01, majors A–C): a token a
// query string mangles ("+" read as a space), the same stored already
// %-encoded, and the API keys of an openai bot and of its judge.
const (
	queryToken = "S3cr3tTok/en+xyz"
	preToken   = "S3cr3tTok%2Fen%2Bxyz"
	botKey     = "sk-proj-Ab3+De/Fg9_Hi-Jk7Lm0Qr"
	judgeKey   = "jk-Judge/9+Zz_KeyABCDEFGH"
)

// netEscape \u-escapes every character but ASCII letters and digits, as a
// System.Text.Json-based service writes strings.
func netEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}

var (
	uEscape   = regexp.MustCompile(`\\u[0-9a-fA-F]{4}`)
	pctEscape = regexp.MustCompile(`%[0-9a-fA-F]{2}`)
)

// peeled returns text and text with up to 4 layers of escaping taken off
// (backslashes, \u, JSON and HTML escapes, %XX), as an attacker reading
// the file would.
func peeled(text string) []string {
	out := []string{text}
	t := text
	for range 4 {
		t2 := strings.ReplaceAll(t, `\\`, `\`)
		if t2 == t {
			t2 = uEscape.ReplaceAllStringFunc(t, func(m string) string {
				n, _ := strconv.ParseUint(m[2:], 16, 32)
				return string(rune(n))
			})
			t2 = strings.NewReplacer(`\"`, `"`, `\/`, `/`).Replace(t2)
			t2 = html.UnescapeString(t2)
			t2 = pctEscape.ReplaceAllStringFunc(t2, func(m string) string {
				n, _ := strconv.ParseUint(m[1:], 16, 8)
				return string([]byte{byte(n)})
			})
		}
		if t2 == t {
			break
		}
		t = t2
		out = append(out, t)
	}
	return out
}

// secretRecoverable reports the first form of secret found in text once
// its escapes are peeled off — the secret, its query decoding ("+" a
// space), its %-decoding, or a third of it (5 bytes or more) — with the
// text around it after that many layers were peeled.
func secretRecoverable(text, secret string) (string, bool) {
	forms := []string{secret, strings.ReplaceAll(secret, "+", " ")}
	if d := pctEscape.ReplaceAllStringFunc(secret, func(m string) string {
		n, _ := strconv.ParseUint(m[1:], 16, 8)
		return string([]byte{byte(n)})
	}); d != secret {
		forms = append(forms, d, strings.ReplaceAll(d, "+", " "))
	}
	n := len(secret) / 3
	forms = append(forms, secret[:n], secret[len(secret)-n:])
	for layer, v := range peeled(text) {
		for _, f := range forms {
			if i := strings.Index(v, f); len(f) >= 5 && i >= 0 {
				from, to := max(0, i-40), min(len(v), i+len(f)+20)
				return fmt.Sprintf("%q after %d layers of escaping were peeled, in …%s…", f, layer, strings.ToValidUTF8(v[from:to], "?")), true
			}
		}
	}
	return "", false
}

// noSecretAnywhere searches every file under dir and every output stream
// for any recoverable form of the secrets; it returns how many files it
// searched.
func noSecretAnywhere(t *testing.T, dir string, streams []string, secrets ...string) int {
	t.Helper()
	check := func(where, text string) {
		for _, s := range secrets {
			if f, ok := secretRecoverable(text, s); ok {
				t.Errorf("%s holds the secret %.6s…: %s", where, s, f)
				return
			}
		}
	}
	for _, s := range streams {
		where, text, _ := strings.Cut(s, "\x00")
		check(where, text)
	}
	files := eachWrittenFile(t, dir, true, check)
	return files
}

// cliRecorder runs the CLI and keeps every output stream for the search.
type cliRecorder struct {
	t       *testing.T
	dir     string
	env     map[string]string
	streams []string
}

func (c *cliRecorder) run(want []int, args ...string) string {
	c.t.Helper()
	code, o, e := runCLI(c.t, c.dir, c.env, args...)
	c.streams = append(c.streams, strings.Join(args, " ")+" stdout\x00"+o, strings.Join(args, " ")+" stderr\x00"+e)
	for _, w := range want {
		if code == w {
			return o + e
		}
	}
	c.t.Errorf("%s: exit %d, want %v\n%s%s", strings.Join(args, " "), code, want, o, e)
	return o + e
}

// suiteCopy copies dir's suite file into the new directory dir/name.
func suiteCopy(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "suite.nlutest.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, name)
	if err := os.Mkdir(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, "suite.nlutest.hcl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

func reportFlags(out, name string) []string {
	return []string{"--report-json", filepath.Join(out, name+".json"), "--report-junit", filepath.Join(out, name+".xml"),
		"--report-markdown", filepath.Join(out, name+".md"), "--report-html", filepath.Join(out, name+".html"), "--junit-cases", "--color", "never"}
}

const queryEchoSuite = `
suite "查询回声" {}

variable "host" {}
variable "token" { sensitive = true }

target "raw" {
  http {
    url     = "http://${var.host}/echo?key=${var.token}"
    headers = { X-Key = var.token }
  }
  error_budget = 1
}

target "enc" {
  http {
    url = "http://${var.host}/echo?key=${urlencode(var.token)}"
  }
  error_budget = 1
}

materials "城市" { values = ["北京", "上海"] }

template "t" {
  text   = "去{城市}的机票"
  expect = { "$.intent.name" = "book_flight" }
}
`

// queryEchoService echoes the query's key as it parsed it (so "+" is a
// space and %2F a "/"): \u-escaped as System.Text.Json writes it, and
// plain in a message next to Chinese text. It records the values it got.
func queryEchoService(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("key")
		mu.Lock()
		got = append(got, q)
		mu.Unlock()
		msg, _ := json.Marshal("收到密钥：" + q + "。")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"intent":{"name":"%s"},"message":%s}`, netEscape(q), msg)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

// Issue 24 item 1 (audit major A): a secret sent raw in a query string
// comes back as the service read it ("S3cr3tTok/en xyz"), and one stored
// already encoded comes back decoded ("S3cr3tTok/en+xyz", also
// \u-escaped); neither form, nor any other, is in the console, the
// results, the reports or annotate's drafts. urlencode() sends the secret
// so the service reads it exactly.
func TestQueryDecodedSecretsRedacted(t *testing.T) {
	srv, received := queryEchoService(t)
	dir := writeSuite(t, queryEchoSuite)
	host := strings.TrimPrefix(srv.URL, "http://")
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cliRecorder{t: t, dir: dir}
	for _, tc := range []struct{ name, token, target string }{{"raw", queryToken, "raw"}, {"pre", preToken, "raw"}, {"enc", queryToken, "enc"}} {
		c.env = map[string]string{"NLUTEST_VAR_token": tc.token}
		console := c.run([]int{ExitFail}, append([]string{"run", dir, "--target", tc.target, "--var", "host=" + host, "--out", filepath.Join(dir, "runs", tc.name)}, reportFlags(out, tc.name)...)...)
		if !strings.Contains(console, `got "[redacted]"`) {
			t.Errorf("%s: the console does not show the echoed intent redacted:\n%s", tc.name, console)
		}
		c.run([]int{ExitFail}, append([]string{"eval", filepath.Join(dir, "runs", tc.name), "--var", "host=" + host}, reportFlags(out, tc.name+"-eval")...)...)
		// annotate --write changes the suite: it works on a copy.
		ann := suiteCopy(t, dir, "ann-"+tc.name)
		c.run([]int{ExitPass, ExitFail}, "annotate", ann, "--target", tc.target, "--var", "host="+host, "--template", "t")
		c.run([]int{ExitPass, ExitFail}, "annotate", ann, "--target", tc.target, "--var", "host="+host, "--template", "t", "--write")
	}
	// The service read the raw token with a space, the pre-encoded one
	// decoded, and urlencode's exactly: the echoes the test searches for
	// were made.
	seen := map[string]int{}
	for _, q := range received() {
		seen[q]++
	}
	if seen["S3cr3tTok/en xyz"] == 0 || seen[queryToken] < 2 {
		t.Fatalf("the service received %v", seen)
	}
	files := noSecretAnywhere(t, dir, c.streams, queryToken, preToken)
	if files < 15 {
		t.Errorf("searched %d files, want the runs' results and the reports (15 or more)", files)
	}
	res, _ := os.ReadFile(filepath.Join(dir, "runs", "raw", "results.jsonl"))
	if !strings.Contains(string(res), `"name":"[redacted]"`) || !strings.Contains(string(res), `收到密钥：[redacted]。`) {
		t.Errorf("raw: results.jsonl does not hold the redacted echoes:\n%.600s", res)
	}
}

const leakyLLMSuite = `
suite "模型回声" {}

variable "llm" {}
variable "bot_mode" { default = "double" }
variable "api_key" { sensitive = true }
variable "judge_key" { sensitive = true }

target "bot" {
  openai {
    url     = "${var.llm}/bot/${var.bot_mode}/v1"
    model   = "m"
    api_key = var.api_key
  }
  error_budget = 1
}

target "judge" {
  openai {
    url     = "${var.llm}/judge/v1"
    model   = "j"
    api_key = var.judge_key
  }
  judge {}
}

materials "城市" { values = ["北京", "上海"] }

template "t" {
  text   = "我想去{城市}"
  expect = { "$.choices[0].message.content" = "好的" }
}

memory "mem" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  judge = "judge"
}
`

// leakyLLM is an OpenAI-compatible bot that leaks the key it is sent:
// double: the reply is JSON text holding the key \u-escaped (double
// encoding); err401: a 401 JSON body quoting it \u-escaped; text500: a
// 500 text body with every character of it \u-escaped. /judge/ is the
// judge; it keeps the requests it got and answers "contradiction".
type leakyLLM struct {
	srv        *httptest.Server
	mu         sync.Mutex
	judgeBodys []string
	botCalls   int
}

func newLeakyLLM(t *testing.T) *leakyLLM {
	l := &leakyLLM{}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *leakyLLM) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	reply := func(contentJSON string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, contentJSON)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/judge/") {
		l.judgeBodys = append(l.judgeBodys, string(body))
		reply(`"contradiction"`)
		return
	}
	l.botCalls++
	switch mode := strings.Split(r.URL.Path, "/")[2]; mode {
	case "double":
		inner, _ := json.Marshal(`{"key":"` + netEscape(key) + `"}`)
		reply(string(inner))
	case "err401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`, netEscape(key))
	case "text500":
		w.WriteHeader(http.StatusInternalServerError)
		var all strings.Builder
		for _, c := range key {
			fmt.Fprintf(&all, `\u%04X`, c)
		}
		fmt.Fprintf(w, "服务出错 trace: u=%s", all.String())
	}
}

// Issue 24 items 2 and 3 (audit majors B and C): an openai bot whose reply
// is JSON holding its key \u-escaped (double encoding), that answers 401
// with a JSON body quoting the key \u-escaped, or 500 with a text body of
// the key all \u-escaped. The key is in no output — console transcript,
// results, report JSON, JUnit, Markdown, HTML, the ratings sheet,
// annotate's drafts — and the memory judge (another service) is never
// sent it: redaction happens before the reply is handed to the judge.
func TestOpenAIEncodedKeyRedactedEverywhere(t *testing.T) {
	llm := newLeakyLLM(t)
	dir := writeSuite(t, leakyLLMSuite)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cliRecorder{t: t, dir: dir, env: map[string]string{"NLUTEST_VAR_api_key": botKey, "NLUTEST_VAR_judge_key": judgeKey}}
	for _, mode := range []string{"double", "err401", "text500"} {
		run := filepath.Join(dir, "runs", mode)
		vars := []string{"--var", "llm=" + llm.srv.URL, "--var", "bot_mode=" + mode}
		console := c.run([]int{ExitFail}, append(append([]string{"run", dir, "--target", "bot", "--out", run}, vars...), reportFlags(out, mode)...)...)
		if mode == "double" && !strings.Contains(console, `{"key":"[redacted]"}`) {
			t.Errorf("the console does not show the double-encoded reply redacted:\n%s", console)
		}
		c.run([]int{ExitPass}, append([]string{"ratings", "export", run, "-o", filepath.Join(out, mode+"-sheet.csv")}, vars...)...)
		// annotate drafts from usable answers only: against the failing
		// modes it says so (exit 3), quoting the error.
		ann := suiteCopy(t, dir, "ann-"+mode)
		c.run([]int{ExitPass, ExitFail, ExitCannotRun}, append([]string{"annotate", ann, "--target", "bot", "--template", "t"}, vars...)...)
		c.run([]int{ExitPass, ExitFail, ExitCannotRun}, append([]string{"annotate", ann, "--target", "bot", "--template", "t", "--write"}, vars...)...)
		res, _ := os.ReadFile(filepath.Join(run, "results.jsonl"))
		want := map[string]string{"double": `{\"key\":\"[redacted]\"}`, "err401": `Incorrect API key provided: [redacted]`, "text500": `服务出错 trace: u=[redacted]`}[mode]
		if !strings.Contains(string(res), want) {
			t.Errorf("%s: results.jsonl lacks %s:\n%.800s", mode, want, res)
		}
	}
	llm.mu.Lock()
	judged := append([]string(nil), llm.judgeBodys...)
	llm.mu.Unlock()
	if len(judged) < 2 || !slices.Contains(judgedAnswers(t, judged), `{"key":"[redacted]"}`) {
		t.Errorf("the judge was not sent the redacted answer (%d requests): %.600s", len(judged), strings.Join(judged, "\n"))
	}
	for i, b := range judged {
		if f, ok := secretRecoverable(b, botKey); ok {
			t.Errorf("judge request %d carries the bot's key: %s", i, f)
		}
	}
	files := noSecretAnywhere(t, dir, c.streams, botKey, judgeKey)
	if files < 20 {
		t.Errorf("searched %d files, want the runs' results, the reports, the sheets and the drafts (20 or more)", files)
	}
}

// judgedAnswers returns the chatbot's answer each judge request fenced
// (the JSON string line after targets.AnswerFence in its user message).
func judgedAnswers(t *testing.T, bodies []string) []string {
	t.Helper()
	var out []string
	for _, b := range bodies {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal([]byte(b), &req); err != nil || len(req.Messages) == 0 {
			t.Fatalf("judge request: %v\n%s", err, b)
		}
		_, fenced, ok := strings.Cut(req.Messages[len(req.Messages)-1].Content, targets.AnswerFence+"\n")
		line, _, _ := strings.Cut(fenced, "\n")
		var answer string
		if err := json.Unmarshal([]byte(line), &answer); !ok || err != nil {
			t.Fatalf("judge request without a fenced answer: %v\n%s", err, b)
		}
		out = append(out, answer)
	}
	return out
}

// eachWrittenFile calls fn with every file under dir (its path relative to
// dir and its text), leaving out the suite files when skipSuites is set,
// and returns how many it read.
func eachWrittenFile(t *testing.T, dir string, skipSuites bool, fn func(rel, text string)) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (skipSuites && strings.HasSuffix(path, ".nlutest.hcl")) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(dir, path)
		fn(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
