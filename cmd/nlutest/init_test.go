package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
)

// TestInitThenRun: `nlutest init` in an empty directory, for every engine,
// writes a suite that is formatted, validates, and runs against the demo
// NLU with exit 0; init refuses a directory that already holds a suite and
// an unknown engine.
func TestInitThenRun(t *testing.T) {
	for _, engine := range []string{"demo", "rasa", "http", "openai"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			if code, out, errs := runCLI(t, dir, nil, "init", "--engine", engine); code != ExitPass {
				t.Fatalf("init: exit %d\n%s%s", code, out, errs)
			}
			name := filepath.Base(dir)
			raw, err := os.ReadFile(filepath.Join(dir, name+".nlutest.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			if engine != "demo" && !strings.Contains(string(raw), "target \"") {
				t.Errorf("no %s target scaffolded", engine)
			}
			for _, args := range [][]string{{"fmt", "--check", dir}, {"validate", dir}, {"run", dir, "--out", filepath.Join(dir, "run"), "--quiet"}} {
				if code, out, errs := runCLI(t, dir, nil, args...); code != ExitPass {
					t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
				}
			}
			if code, _, errs := runCLI(t, dir, nil, "init", dir); code != ExitInvalid || !strings.Contains(errs, "already holds a suite") {
				t.Errorf("init over a suite: exit %d, %s", code, errs)
			}
		})
	}
	if code, _, _ := runCLI(t, t.TempDir(), nil, "init", "--engine", "dialogflow"); code != ExitInvalid {
		t.Errorf("unknown engine: exit %d, want 2", code)
	}
}

// fakeJSONLLM is an OpenAI-compatible server that answers as the openai
// scaffold's system prompt asks: JSON content with the intent (by keyword)
// and the city and date entities as written. It records each request's
// user member and whether it asked for a JSON object.
func fakeJSONLLM(t *testing.T) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			User           string                `json:"user"`
			ResponseFormat struct{ Type string } `json:"response_format"`
			Messages       []struct{ Role, Content string }
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) < 2 || req.Messages[0].Role != "system" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		text := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		seen = append(seen, req.User+" "+req.ResponseFormat.Type)
		mu.Unlock()
		intent := "greet"
		switch {
		case strings.Contains(text, "天气"):
			intent = "check_weather"
		case strings.Contains(text, "机票"):
			intent = "book_flight"
		}
		ents := []map[string]string{}
		for _, c := range []string{"北京", "上海", "广州", "成都"} {
			if strings.Contains(text, c) {
				ents = append(ents, map[string]string{"entity": "city", "value": c})
			}
		}
		for _, d := range []string{"明天", "后天", "周五"} {
			if strings.Contains(text, d) {
				ents = append(ents, map[string]string{"entity": "date", "value": d})
			}
		}
		content, _ := json.Marshal(map[string]any{"intent": map[string]string{"name": intent}, "entities": ents})
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]int{"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// Issue 22 item 5: the suite `init --engine openai` writes passes, as
// written, against an OpenAI-compatible server answering JSON content
// (the scaffold before read the chat-completion envelope with
// "$.intent.name", so no server could pass it); every conversation turn
// sends its session id as the request's user.
func TestInitOpenAIScaffoldPassesAgainstJSONContent(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := runCLI(t, dir, nil, "init", "--engine", "openai"); code != ExitPass {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	srv, seen := fakeJSONLLM(t)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--target", "openai", "--var", "openai_base_url="+srv.URL+"/v1", "--out", run, "--quiet")
	if code != ExitPass || !strings.Contains(out, "2/2 thresholds met · 16 passed, 0 failed, 0 errored of 16 cases") {
		t.Fatalf("run --target openai: exit %d\n%s%s", code, out, errs)
	}
	sessions := map[string]int{}
	for _, s := range *seen {
		user, format, _ := strings.Cut(s, " ")
		if format != "json_object" || user == "" {
			t.Errorf("request user %q, response_format %q; want a session id and json_object", user, format)
		}
		sessions[user]++
	}
	// 8 template cases with a session each, 4 conversations of 2 turns.
	twice := 0
	for _, n := range sessions {
		if n == 2 {
			twice++
		}
	}
	if len(*seen) != 16 || len(sessions) != 12 || twice != 4 {
		t.Errorf("%d requests in %d sessions (%d with 2 turns); want 16 in 12, 4 of them conversations", len(*seen), len(sessions), twice)
	}
}

// init without a directory names the suite after the working directory
// (it wrote "..nlutest.hcl" when the working directory was ".").
func TestInitInWorkingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "票务")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, out, errs := runCLI(t, "", nil, "init"); code != ExitPass || !strings.Contains(out, "Wrote 票务.nlutest.hcl") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "票务.nlutest.hcl")); err != nil {
		t.Error(err)
	}
}

// TestInitFeedsEntityMetrics (issue 28 item 6): the scaffold annotates its
// cases' entities in the form that feeds the entity metrics ("$.entities" =
// [{ entity, value }]), so its first run reports per-type entity figures;
// the filter form ($.entities[?(@.entity == 'city')].value) checked the
// case but fed none.
func TestInitFeedsEntityMetrics(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := runCLI(t, dir, nil, "init"); code != ExitPass {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run"), "--quiet"); code != ExitPass {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	rep, err := pipeline.ReadReport(filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Metrics.Dimension["entity"]
	if d == nil || d.Expected != 8 || d.Correct != 8 {
		t.Fatalf("the scaffold's run has no entity metrics on its 4 booking cases' 8 entities: %+v", d)
	}
	for _, typ := range []string{"city", "date"} {
		if d.Types[typ] == nil {
			t.Errorf("no per-type entity figures for %s", typ)
		}
	}
}
