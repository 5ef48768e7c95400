package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// The secrets of the hostile-service suite: a token with characters JSON,
// URLs and base64 treat specially, a numeric PIN, and a password sent as
// URL userinfo (so as Authorization: Basic base64("bot:" + password)).
const (
	hostileToken = "S3cr3t+k/机密=Q7<&>"
	hostilePIN   = "73914628"
	hostilePass  = "pa55-w0rd_Xy9"
	hostileUser  = "bot"
)

const hostileSuite = `
suite "敌意" {}

variable "host" {}
variable "token" {
  default   = env("NLU_TOKEN", "")
  sensitive = true
}
variable "pin" {
  default   = env("NLU_PIN", "")
  sensitive = true
}
variable "pass" {
  default   = env("NLU_PASS", "")
  sensitive = true
}

target "nlu" {
  http {
    url     = "http://bot:${var.pass}@${var.host}/${slot.route}?token=${var.token}&pin=${var.pin}"
    # No Authorization header: Go sends the userinfo as Basic auth.
    headers = {
      X-Key = var.token
      X-Pin = var.pin
    }
    body = jsonencode({ text = case.text, token = var.token, pin = tonumber(var.pin) })
  }
  retries      = 0
  error_budget = 1
}

target "cmd" {
  exec {
    command = ["sh", "-c", <<-EOT
      read -r line
      case "$line" in
        *echo*) printf '{"intent": "%s", "pin": %s, "vars": "%s"}' "$NLU_TOKEN" "$NLU_PIN" "$(env | grep -c '^NLUTEST_VAR_')";;
        *500*) printf 'partial %s' "$NLU_TOKEN"; echo "failed: $NLU_TOKEN $NLU_PIN" >&2; exit 3;;
        *) printf 'not json %s %s' "$NLU_TOKEN" "$NLU_PASS";;
      esac
    EOT
    ]
  }
  error_budget = 1
}

materials "route" {
  values = ["echo", "uescape", "redirect-port", "redirect-host", "500", "badjson"]
}

template "敌意" {
  text   = "测试{route}"
  expect = { "$.intent" = "订机票" }
  assert {
    condition = response.echo.body == var.token
    message   = "the echo must equal the token"
  }
  assert {
    condition = tonumber(var.token) > 0
  }
  assert {
    condition = response.pin == tonumber(var.pin) && http.headers["x-echo"] == var.pass
  }
}

threshold "pin" {
  condition = metrics.accuracy >= tonumber(var.pin) || metrics.accuracy >= tonumber(var.token)
  severity  = "error"
}
`

// hostileService answers by path: a JSON echo of every secret it received,
// the same with every non-alphanumeric character \u-escaped (as
// System.Text.Json writes "+"), redirects to another port and another host,
// a 500 and an invalid JSON body echoing them. other is the redirects'
// destination; it must never be reached.
type hostileService struct {
	srv, other *httptest.Server
	mu         sync.Mutex
	seen       map[string]bool // which secret arrived where
	otherHits  int
}

func newHostileService(t *testing.T) *hostileService {
	h := &hostileService{seen: map[string]bool{}}
	h.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.otherHits++
		h.mu.Unlock()
	}))
	t.Cleanup(h.other.Close)
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileService) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Text, Token string
		PIN         json.Number
	}
	_ = json.Unmarshal(raw, &req)
	user, pass, _ := r.BasicAuth()
	q := r.URL.Query()
	h.mu.Lock()
	h.seen["body token"] = h.seen["body token"] || req.Token == hostileToken
	h.seen["body pin"] = h.seen["body pin"] || string(req.PIN) == hostilePIN
	h.seen["header token"] = h.seen["header token"] || r.Header.Get("X-Key") == hostileToken
	h.seen["userinfo"] = h.seen["userinfo"] || user == hostileUser && pass == hostilePass
	h.seen["query pin"] = h.seen["query pin"] || q.Get("pin") == hostilePIN
	h.mu.Unlock()
	echo := map[string]any{
		"text": req.Text, "intent": req.Token, "pin": req.PIN,
		"echo": map[string]any{"body": req.Token, "auth": r.Header.Get("Authorization"), "key": r.Header.Get("X-Key"),
			"query": r.URL.RawQuery, "basic": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)), "pass": pass},
	}
	b, _ := json.Marshal(echo)
	w.Header().Set("X-Echo", pass)
	w.Header().Set("X-Echo-Token", req.Token)
	switch strings.TrimPrefix(r.URL.Path, "/") {
	case "echo":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	case "uescape":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, escapeAll(string(b)))
	case "redirect-port":
		http.Redirect(w, r, h.other.URL+"/steal?"+r.URL.RawQuery, http.StatusFound)
	case "redirect-host":
		http.Redirect(w, r, strings.Replace(h.srv.URL, "127.0.0.1", "localhost", 1)+"/echo?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	case "500":
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(b)
	default:
		_, _ = w.Write(append([]byte("not json: "), b...))
	}
}

// escapeAll \u-escapes every character inside JSON strings that is not a
// letter or digit, and every non-ASCII one: valid JSON no byte of which
// shows a secret's punctuation.
func escapeAll(doc string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(doc); {
		r, n := utf8.DecodeRuneInString(doc[i:])
		switch {
		case r == '"' && (i == 0 || doc[i-1] != '\\'):
			in = !in
			b.WriteRune(r)
		case in && r == '\\':
			b.WriteString(doc[i : i+2])
			n = 2
		case in && (r > 0x7f || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// secretForms returns every form the acceptance test searches for: the
// leak forms of findLeaks, every character \u-escaped, and base64.
func hostileForms(secret string) []leakForm {
	forms := leakForms(secret)
	forms = append(forms, leakForm{"all-\\u-escaped", strings.Trim(escapeAll(`"`+secret+`"`), `"`)},
		leakForm{"base64", base64.StdEncoding.EncodeToString([]byte(secret))},
		leakForm{"base64url", base64.URLEncoding.EncodeToString([]byte(secret))})
	return forms
}

// TestNoSecretEscapes is issue 12's acceptance 1: a hostile loopback
// service and an exec target, suites whose secrets (strings, a number, a
// short value, URL userinfo) are in url, headers, body and conditions; run,
// eval, diff, annotate and validate (with typos in variable files); no
// secret in any file or output stream, in any form.
func TestNoSecretEscapes(t *testing.T) {
	h := newHostileService(t)
	t.Setenv("NLU_TOKEN", hostileToken) // the exec target's command reads them
	t.Setenv("NLU_PIN", hostilePIN)
	t.Setenv("NLU_PASS", hostilePass)
	t.Setenv("NLUTEST_VAR_token", hostileToken)
	env := map[string]string{"NLU_TOKEN": hostileToken, "NLU_PIN": hostilePIN, "NLU_PASS": hostilePass}
	dir := writeSuite(t, hostileSuite)
	host := strings.TrimPrefix(h.srv.URL, "http://")
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var streams []string
	cli := func(want []int, args ...string) {
		t.Helper()
		code, o, e := runCLI(t, dir, env, args...)
		streams = append(streams, strings.Join(args[:1], " ")+" stdout\x00"+o, args[0]+" stderr\x00"+e)
		for _, w := range want {
			if code == w {
				return
			}
		}
		t.Errorf("%s: exit %d, want %v\n%s%s", strings.Join(args, " "), code, want, o, e)
	}
	reports := func(name string) []string {
		return []string{"--report-json", filepath.Join(out, name+".json"), "--report-junit", filepath.Join(out, name+".xml"),
			"--report-markdown", filepath.Join(out, name+".md"), "--report-html", filepath.Join(out, name+".html"), "--junit-cases"}
	}
	runA, runB, runX := filepath.Join(dir, "runs", "a"), filepath.Join(dir, "runs", "b"), filepath.Join(dir, "runs", "exec")
	cli([]int{ExitFail}, append([]string{"run", dir, "--var", "host=" + host, "--out", runA, "--color", "always"}, reports("a")...)...)
	cli([]int{ExitFail}, append([]string{"run", dir, "--var", "host=" + host, "--out", runB, "--color", "never"}, reports("b")...)...)
	cli([]int{ExitFail}, append([]string{"run", dir, "--target", "cmd", "--out", runX, "--var", "host=" + host}, reports("exec")...)...)
	cli([]int{ExitFail}, append([]string{"eval", runA, "--var", "host=" + host}, reports("eval")...)...)
	cli([]int{ExitPass, ExitFail}, "diff", runA, runB, "--all", "--html", filepath.Join(out, "diff.html"))
	cli([]int{ExitPass, ExitFail}, "diff", runA, runX, "--all", "--format", "markdown")
	cli([]int{ExitPass, ExitFail}, "annotate", dir, "--var", "host="+host, "-n", "6")
	cli([]int{ExitPass, ExitFail}, "annotate", dir, "--var", "host="+host, "--target", "cmd", "-n", "6", "--write")
	cli([]int{ExitPass}, "validate", dir, "--var", "host="+host)
	cli([]int{ExitPass}, "generate", dir, "--var", "host="+host, "-o", filepath.Join(out, "cases.jsonl"))

	// Variable files with typos and wrong types, and a short secret.
	varFiles := map[string]string{
		"typo.hcl":   fmt.Sprintf("tokn = %q\npinn = %s\n", hostileToken, hostilePIN),
		"typo.json":  fmt.Sprintf(`{"pas": %q}`, hostilePass),
		"broken.hcl": fmt.Sprintf("token = %q\npin = \n", hostileToken),
		"short.hcl":  "token = \"Q7\"\n",
	}
	for name, text := range varFiles {
		p := filepath.Join(t.TempDir(), name) // outside dir: they hold the secrets
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cli([]int{ExitInvalid}, "validate", dir, "--var", "host="+host, "--var-file", p)
		cli([]int{ExitInvalid}, "run", dir, "--var", "host="+host, "--var-file", p, "--out", filepath.Join(dir, "runs", name))
	}
	cli([]int{ExitInvalid}, "validate", dir, "--var", "host="+host, "--var", "tokn="+hostileToken, "--var", "pinn="+hostilePIN)

	if os.Getenv("NLUTEST_DEBUG_ACCEPT") != "" {
		t.Log(streams[0] + streams[1])
	}
	// The service did receive every secret, and the redirects went nowhere.
	for _, where := range []string{"body token", "body pin", "header token", "userinfo", "query pin"} {
		if !h.seen[where] {
			t.Errorf("the service never received the secret in the %s: the test proves nothing there", where)
		}
	}
	if h.otherHits != 0 {
		t.Errorf("a redirect to another port was followed %d times", h.otherHits)
	}

	// Search every file and stream in every form.
	secrets := map[string]string{"token": hostileToken, "pin": hostilePIN, "password": hostilePass,
		"user:password": hostileUser + ":" + hostilePass}
	search := func(where, text string) {
		for name, s := range secrets {
			for _, f := range hostileForms(s) {
				if f.text != "" && strings.Contains(text, f.text) {
					i := strings.Index(text, f.text)
					from, to := max(0, i-60), min(len(text), i+len(f.text)+30)
					t.Errorf("%s holds the %s (%s form) at byte %d: …%s…", where, name, f.kind, i, strings.ToValidUTF8(text[from:to], "?"))
					break
				}
			}
		}
	}
	files := eachWrittenFile(t, dir, false, search)
	for _, s := range streams {
		where, text, _ := strings.Cut(s, "\x00")
		search(where, text)
	}
	t.Logf("searched %d files and %d output streams for %d secrets in %d forms each", files, len(streams), len(secrets), len(hostileForms(hostileToken)))
	if files < 20 {
		t.Errorf("searched %d files, want the runs' results, reports, annotations and cases (20 or more)", files)
	}
	// Each kind of response was recorded, so the search covered it.
	res, _ := os.ReadFile(filepath.Join(runA, "results.jsonl"))
	for _, want := range []string{`"type":"HTTPError","message":"HTTP 302 Found: redirect to`, `"type":"InvalidJSON"`, `HTTP 500`, `"basic":"Basic [redacted]"`, `"X-Echo":"[redacted]"`} {
		if !strings.Contains(string(res), want) {
			t.Errorf("results.jsonl lacks %s", want)
		}
	}
}
