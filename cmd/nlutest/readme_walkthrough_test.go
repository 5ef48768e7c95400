package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner/targets"
)

// readmeBlock is the first ```hcl block after the README heading.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(after, "```hcl\n")
	if !ok {
		t.Fatalf("no hcl block under %q", heading)
	}
	block, _, _ = strings.Cut(block, "```\n")
	return block
}

// The README's chatbot walkthrough suite, verbatim, validates and runs
// against an OpenAI-compatible fake bot and a rule-based fake judge: its
// reply checks, capture_reply, the assert reading the capture and both
// rubrics pass on the 2 × 2 turns, so the empathy gate passes (exit 0);
// a bot that forgets the booking number fails turn 2's assert.
func TestREADMEChatbotWalkthrough(t *testing.T) {
	suite := readmeBlock(t, "## Walkthrough: a chatbot conversation with an LLM judge")
	booking := regexp.MustCompile(`订单号\s*([A-Z0-9]{6})`)
	forget := false
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		last := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(last, "怎么办") {
			code := "AB12CD"
			if strings.Contains(last, "上海") {
				code = "XY34ZW"
			}
			openaiAnswer(w, "很抱歉您的航班取消了。订单号 "+code+" 已为您保留，可以改签或退票。")
			return
		}
		code := ""
		for _, m := range req.Messages {
			if g := booking.FindStringSubmatch(m.Content); m.Role == "assistant" && g != nil {
				code = g[1]
			}
		}
		if forget {
			code = "订单"
		}
		openaiAnswer(w, "已为您改签"+code+"到明天上午的航班，确认短信稍后发送。")
	}))
	defer bot.Close()
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		user := req.Messages[1].Content
		switch req.Messages[0].Content {
		case targets.RubricSystemPrompt:
			answer := "fail"
			if strings.Contains(user, "抱歉") {
				answer = "pass"
			}
			openaiAnswer(w, answer)
		case targets.RubricScoreSystemPrompt:
			answer := "2"
			if strings.Contains(user, "明天") && strings.Contains(user, targets.HistoryFence) {
				answer = "5"
			}
			openaiAnswer(w, answer)
		default:
			http.Error(w, "not a rubric prompt", http.StatusBadRequest)
		}
	}))
	defer judge.Close()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "airline"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "airline", "airline.nlutest.hcl")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, dir, nil, "validate", filepath.Join(dir, "airline")); code != ExitPass {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, dir, nil, "fmt", "--check", filepath.Join(dir, "airline")); code != ExitPass {
		t.Errorf("the README's suite is not in canonical layout: exit %d\n%s%s", code, out, errs)
	}
	vars := []string{"--var", "bot_url=" + bot.URL + "/v1", "--var", "judge_url=" + judge.URL + "/v1"}
	rep := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, dir, nil, append([]string{"run", filepath.Join(dir, "airline"), "--out", filepath.Join(dir, "a1"), "--report-json", rep}, vars...)...)
	if code != ExitPass || !strings.Contains(out, "4 passed, 0 failed, 0 errored of 4 cases") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	checkRubric(t, "walkthrough", rubricMetrics(t, rep), map[string]rubricWant{"empathy": {judged: 2, passed: 2}, "helpful": {judged: 2, passed: 2, mean: 5}})
	forget = true
	code, out, _ = runCLI(t, dir, nil, append([]string{"run", filepath.Join(dir, "airline"), "--out", filepath.Join(dir, "a2")}, vars...)...)
	if code != ExitPass || !strings.Contains(out, "2 passed, 2 failed") || !strings.Contains(out, "the bot confirms the same booking") {
		t.Errorf("a bot that forgets the booking: exit %d\n%s", code, out)
	}
}
