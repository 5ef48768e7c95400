package main

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// goalSecretSuite is the audit's goal suite (2026-12-05, N1: security/goal)
// with the bot and the LLM simulator on httptest servers: a sensitive PIN
// in a scenario goal's inform map, played by the agenda simulator
// (scenario "book") or by an openai simulator target (scenario "llm").
const goalSecretSuite = `suite "llmsec" {}

variable "bot_url" {}
variable "llm_url" {}
variable "llm_key" {
  default   = env("AUD_LLM_KEY", "")
  sensitive = true
}
variable "pin" {
  default   = env("AUD_PIN", "")
  sensitive = true
}

target "bot" {
  http {
    url   = "${var.bot_url}/bot"
    body  = jsonencode({ text = case.text, session = case.conversation })
    reply = response.reply
  }
}

target "sim" {
  openai {
    url     = "${var.llm_url}/v1"
    model   = "m"
    api_key = var.llm_key
  }
  simulator {
    persona = "一位着急的乘客"
  }
}

scenario "book" {
  goal {
    inform  = { city = "巴黎", pin = var.pin }
    request = ["booking number"]
  }
  user      = "agenda"
  opening   = ["我想订机票"]
  max_turns = 6
  success { condition = strcontains(reply, "booking number 42") }
}

scenario "llm" {
  goal {
    inform  = { city = "巴黎", pin = upper(var.pin) }
    request = ["booking number"]
  }
  user      = "sim"
  opening   = ["我想订机票"]
  max_turns = 6
  success { condition = strcontains(reply, "booking number 42") }
}
`

// TestGoalSecretNeverLeaves runs the audit's goal suite from the command
// line, as validate and as run with every report format: the load refuses
// the PIN in inform (exit 2, the diagnostic at the variable's
// file:line:col), no request reaches the bot or the simulator's provider,
// and the PIN is in no output and no file the run leaves. The same suite
// with the variable not sensitive runs and writes the PIN into its
// records, so the search below finds a leak where there is one.
func TestGoalSecretNeverLeaves(t *testing.T) {
	const pin = "8642097531"
	var botCalls, llmCalls atomic.Int64
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		botCalls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"reply": "请问您的 PIN 是多少？"})
	}))
	defer bot.Close()
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		llmCalls.Add(1)
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"<<DONE>>"}}]}`))
	}))
	defer llm.Close()
	env := map[string]string{"AUD_PIN": pin, "AUD_LLM_KEY": "sk-llm-key-5511"}
	run := func(dir string) (int, string, string) {
		out := filepath.Join(dir, "out")
		return runCLI(t, dir, env, "run", dir, "--var", "bot_url="+bot.URL, "--var", "llm_url="+llm.URL, "--out", out,
			"--report-html", filepath.Join(dir, "r.html"), "--report-markdown", filepath.Join(dir, "r.md"),
			"--report-junit", filepath.Join(dir, "r.xml"))
	}
	dir := writeSuite(t, goalSecretSuite)
	code, out, errs := runCLI(t, dir, env, "validate", dir, "--var", "bot_url=x", "--var", "llm_url=x")
	if code != ExitInvalid {
		t.Errorf("validate: exit %d, want %d\n%s%s", code, ExitInvalid, out, errs)
	}
	for _, at := range []string{"suite.nlutest.hcl:35:36", "suite.nlutest.hcl:46:42"} {
		if !strings.Contains(errs, at) {
			t.Errorf("validate does not point at %s:\n%s", at, errs)
		}
	}
	if n := strings.Count(errs, "Error: Sensitive variable outside a target"); n != 2 {
		t.Errorf("validate: %d refusals, want one per inform:\n%s", n, errs)
	}
	code, out2, errs2 := run(dir)
	if code != ExitInvalid {
		t.Errorf("run: exit %d, want %d", code, ExitInvalid)
	}
	if n := botCalls.Load() + llmCalls.Load(); n != 0 {
		t.Errorf("run sent %d requests (bot %d, simulator %d), want none", n, botCalls.Load(), llmCalls.Load())
	}
	leaks := pinIn(t, dir, pin, out+errs+out2+errs2)
	if len(leaks) > 0 {
		t.Errorf("the PIN is in %v", leaks)
	}
	for _, f := range []string{"out", "r.html", "r.md", "r.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused run left %s behind", f)
		}
	}

	// The control: the PIN declared not sensitive is an ordinary value,
	// told to the bot and written everywhere.
	plain := writeSuite(t, strings.Replace(goalSecretSuite, "default   = env(\"AUD_PIN\", \"\")\n  sensitive = true", "default   = env(\"AUD_PIN\", \"\")", 1))
	if code, out, errs := run(plain); code != ExitFail {
		t.Fatalf("control run: exit %d, want %d (the bot never gives the number)\n%s%s", code, ExitFail, out, errs)
	} else if leaks := pinIn(t, plain, pin, out+errs); len(leaks) < 5 {
		t.Errorf("control run: the PIN is only in %v; the search cannot find a leak", leaks)
	} else {
		t.Logf("control run (not sensitive): the PIN is in %v", leaks)
	}
}

// pinIn lists the outputs and files under dir that hold pin ("output"
// for the command's printed text).
func pinIn(t *testing.T, dir, pin, printed string) []string {
	t.Helper()
	var out []string
	if strings.Contains(printed, pin) {
		out = append(out, "output")
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), pin) || strings.Contains(string(b), strings.ToUpper(pin)) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
