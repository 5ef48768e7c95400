package main

import (
	"encoding/json"
	"fmt"
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

// concertRasa is a Rasa server playing Rasa's concertbot example
// (spec/botmodel/testdata/rasa/concertbot_domain.yml) on 127.0.0.1: the
// REST channel and the tracker, with the turn's events when asked
// (include_events=AFTER_RESTART). Its NLU is keywords; "compare reviews"
// falls back (nlu_fallback, utter_default), so a suite checking
// compare_reviews fails there.
type concertRasa struct {
	mu       sync.Mutex
	sessions map[string]*concertState
}

type concertState struct {
	slots  map[string]any
	intent string
	events []map[string]any
}

// concertTurn is the bot's answer to a message: intent, action run,
// response (utter_ name, "" for a custom action's text) and text.
func concertTurn(msg string) (intent, action, response, text string) {
	switch m := strings.ToLower(msg); {
	case strings.Contains(m, "hello") || strings.Contains(m, "hi"):
		return "greet", "utter_greet", "utter_greet", "hey there!"
	case strings.Contains(m, "thank"):
		return "thankyou", "utter_youarewelcome", "utter_youarewelcome", "you're very welcome"
	case strings.Contains(m, "bye"):
		return "goodbye", "utter_goodbye", "utter_goodbye", "goodbye :("
	case strings.Contains(m, "venues"):
		return "search_venues", "action_search_venues", "", "Big Arena, reviews 4.5"
	case strings.Contains(m, "concerts"):
		return "search_concerts", "action_search_concerts", "", "Foo Fighters, reviews 4.5"
	}
	return "nlu_fallback", "utter_default", "utter_default", "default message"
}

func (c *concertRasa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.URL.Path == "/webhooks/rest/webhook" {
		var req struct{ Sender, Message string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		st := c.sessions[req.Sender]
		if st == nil {
			st = &concertState{slots: map[string]any{"concerts": nil, "venues": nil}}
			c.sessions[req.Sender] = st
		}
		intent, action, response, text := concertTurn(req.Message)
		st.intent = intent
		st.events = append(st.events, map[string]any{"event": "user", "text": req.Message, "parse_data": map[string]any{"intent": map[string]any{"name": intent}}},
			map[string]any{"event": "action", "name": action})
		switch action {
		case "action_search_venues":
			st.slots["venues"] = []any{map[string]any{"name": "Big Arena", "reviews": 4.5}}
			st.events = append(st.events, map[string]any{"event": "slot", "name": "venues", "value": st.slots["venues"]})
		case "action_search_concerts":
			st.slots["concerts"] = []any{map[string]any{"artist": "Foo Fighters", "reviews": 4.5}}
		}
		bot := map[string]any{"event": "bot", "text": text}
		if response != "" {
			bot["metadata"] = map[string]any{"utter_action": response}
		}
		st.events = append(st.events, bot, map[string]any{"event": "action", "name": "action_listen"})
		_ = json.NewEncoder(w).Encode([]map[string]string{{"recipient_id": req.Sender, "text": text}})
		return
	}
	sender, _ := strings.CutPrefix(r.URL.Path, "/conversations/")
	sender, ok := strings.CutSuffix(sender, "/tracker")
	st := c.sessions[sender]
	if !ok || st == nil {
		http.NotFound(w, r)
		return
	}
	tr := map[string]any{"sender_id": sender, "slots": st.slots, "latest_message": map[string]any{"intent": map[string]any{"name": st.intent}, "entities": []any{}},
		"latest_action_name": "action_listen", "active_loop": map[string]any{}}
	if r.URL.Query().Get("include_events") == "AFTER_RESTART" {
		tr["events"] = st.events
	}
	_ = json.NewEncoder(w).Encode(tr)
}

// concertSuite exercises part of the concertbot's model: two
// conversations in the shape `nlutest import rasa-e2e` writes, with a
// condition on a slot; thresholds gate on metrics.coverage.
const concertSuite = `suite "concertbot" {}

variable "rasa_url" {}

target "rasa" {
  rasa {
    url            = var.rasa_url
    mode           = "webhook"
    tracker        = true
    tracker_events = true
  }
}

coverage {
  domain = "concertbot_domain.yml"
  nlu    = "concertbot_nlu.yml"
}

conversation "greet and search venues" {
  turn {
    user   = "hello"
    expect = { "state:$.latest_message.intent.name" = "greet" }
    reply {
      contains = ["hey there!"]
    }
  }
  turn {
    user   = "Show me venues"
    expect = { "state:$.latest_message.intent.name" = "search_venues" }
    assert {
      condition = try(state.slots.venues, null) != null
    }
    assert {
      condition = contains([for e in state.events : try(e.name, "")], "action_search_venues")
    }
  }
  turn {
    user   = "compare reviews"
    expect = { "state:$.latest_message.intent.name" = "compare_reviews" }
  }
}

conversation "thanks and bye" {
  turn {
    user   = "thanks"
    expect = { "state:$.latest_message.intent.name" = "thankyou" }
    reply {
      contains = ["you're very welcome"]
    }
  }
  turn {
    user   = "bye"
    expect = { "state:$.latest_message.intent.name" = "goodbye" }
    reply {
      equals = "goodbye :("
    }
  }
}

threshold "intents" {
  condition = metrics.coverage.intents.ratio >= 0.5
  message   = "test at least half the intents"
}

threshold "responses" {
  condition = metrics.coverage.responses.untested <= 2
}
`

// concertDir writes the suite beside copies of Rasa's concertbot domain
// and NLU data.
func concertDir(t *testing.T) string {
	t.Helper()
	dir := writeSuite(t, concertSuite)
	for _, f := range []string{"concertbot_domain.yml", "concertbot_nlu.yml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "spec", "botmodel", "testdata", "rasa", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// concertWant is the coverage of concertSuite's run, hand-checked: the
// status of every item of the domain and NLU data, in declaration order.
var concertWant = map[string][]string{
	"intents": {"greet passing", "thankyou passing", "goodbye passing", "search_concerts untested", "search_venues passing",
		"compare_reviews failing_only", "bot_challenge untested", "nlu_fallback untested", "how_to_get_started untested", "affirm untested", "deny untested"},
	"entities":  {"name untested"},
	"slots":     {"concerts untested", "venues passing"},
	"responses": {"utter_greet passing", "utter_goodbye passing", "utter_default untested", "utter_youarewelcome passing", "utter_iamabot untested"},
	"actions":   {"action_search_concerts untested", "action_search_venues passing", "action_show_concert_reviews untested", "action_show_venue_reviews untested"},
}

// coverageJSON runs `nlutest coverage RUN --format json` and returns the
// report, each kind's rows as "NAME STATUS".
func coverageJSON(t *testing.T, dir string, env map[string]string, runDir string, extra ...string) (*schema.CoverageReport, map[string][]string) {
	t.Helper()
	code, out, errs := runCLI(t, dir, env, append([]string{"coverage", runDir, "--format", "json"}, extra...)...)
	if code != 0 {
		t.Fatalf("coverage: exit %d\n%s%s", code, out, errs)
	}
	var cr schema.CoverageReport
	if err := json.Unmarshal([]byte(out), &cr); err != nil {
		t.Fatalf("coverage JSON: %v\n%s", err, out)
	}
	rows := map[string][]string{}
	for _, k := range cr.Kinds {
		for _, r := range k.Rows {
			rows[k.Kind] = append(rows[k.Kind], r.Name+" "+r.Status)
		}
	}
	return &cr, rows
}

// A run of a suite over Rasa's own concertbot domain and NLU data against
// a Rasa-like bot: the run's metrics.coverage gates its thresholds (5 of
// 11 intents exercised: the intents gate fails), `nlutest coverage` lists
// every item with the status hand-checked in concertWant, the untested
// ones among them, as a console table, JSON and HTML, offline from the
// saved run.
func TestCoverageOfRasaConcertbot(t *testing.T) {
	srv := httptest.NewServer(&concertRasa{sessions: map[string]*concertState{}})
	t.Cleanup(srv.Close)
	dir := concertDir(t)
	env := map[string]string{"NLUTEST_VAR_rasa_url": srv.URL}
	runDir := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, env, "run", dir, "--out", runDir)
	if code != 1 || !strings.Contains(out+errs, `threshold "intents" not met: metrics.coverage.intents.ratio >= 0.5 (metrics.coverage.intents.ratio = 0.4545 (5/11))`) {
		t.Fatalf("run: exit %d, want 1 (the intents gate: 5/11)\n%s%s", code, out, errs)
	}
	for _, line := range []string{"Coverage of the bot's model metrics.coverage", "✗ intents failing only: compare_reviews",
		"⚠ intents untested: affirm, bot_challenge, deny, how_to_get_started, nlu_fallback, search_concerts",
		"⚠ actions untested: action_search_concerts, action_show_concert_reviews, action_show_venue_reviews"} {
		if !strings.Contains(out, line) {
			t.Errorf("the run's report lacks %q:\n%s", line, out)
		}
	}
	cr, rows := coverageJSON(t, dir, env, runDir)
	for k, want := range concertWant {
		if !reflect.DeepEqual(rows[k], want) {
			t.Errorf("%s\n got %q\nwant %q", k, rows[k], want)
		}
	}
	if len(rows) != len(concertWant) || cr.Cases != 5 || cr.Totals.Items != 23 || cr.Totals.Passing != 9 || cr.Totals.FailingOnly != 1 || cr.Totals.Untested != 13 {
		t.Errorf("kinds %d, cases %d, totals %+v", len(rows), cr.Cases, cr.Totals)
	}
	byName := map[string]schema.CoverageRow{}
	for _, k := range cr.Kinds {
		for _, r := range k.Rows {
			byName[r.Name] = r
		}
	}
	for name, want := range map[string]schema.CoverageItem{
		"compare_reviews":      {Failed: 1},
		"nlu_fallback":         {Seen: 1}, // what the bot said instead
		"utter_default":        {Seen: 1}, // its reply and its event
		"venues":               {Passed: 1, Seen: 2},
		"action_search_venues": {Passed: 1, Seen: 1}, // the turn's events
		"utter_greet":          {Passed: 1, Seen: 1},
	} {
		if got := byName[name].CoverageItem; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if at := byName["how_to_get_started"].At; !strings.HasSuffix(at, "concertbot_nlu.yml:41") {
		t.Errorf("how_to_get_started declared at %q", at)
	}

	html := filepath.Join(dir, "coverage.html")
	code, out, errs = runCLI(t, dir, env, "coverage", runDir, "--report-html", html)
	if code != 0 {
		t.Fatalf("coverage: exit %d\n%s%s", code, out, errs)
	}
	for _, line := range []string{`Coverage of the bot's model by suite "concertbot": 10 of 23 items exercised`, "compare_reviews", "failing only", "search_concerts", "untested"} {
		if !strings.Contains(out, line) {
			t.Errorf("console lacks %q:\n%s", line, out)
		}
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "action_show_venue_reviews") || !strings.Contains(string(b), "<html") {
		t.Errorf("HTML report: %v", err)
	}

	// eval gates the same way offline; the JSON report has the family.
	code, out, errs = runCLI(t, dir, env, "eval", runDir, "--report-json", filepath.Join(dir, "report.json"))
	if code != 1 || !strings.Contains(out+errs, `threshold "intents" not met: metrics.coverage.intents.ratio >= 0.5 (metrics.coverage.intents.ratio = 0.4545 (5/11))`) {
		t.Errorf("eval: exit %d\n%s%s", code, out, errs)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var rep struct {
		Metrics struct {
			Coverage schema.Coverage `json:"coverage"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Metrics.Coverage.Intents == nil || rep.Metrics.Coverage.Intents.Ratio != schema.R(5, 11) {
		t.Errorf("report.json's metrics.coverage: %v %+v", err, rep.Metrics.Coverage.Intents)
	}
}

// Shard runs merged give the coverage of the unsharded run, item by item
// (three shards: the two conversations land in different ones).
func TestCoverageOfMergedShards(t *testing.T) {
	srv := httptest.NewServer(&concertRasa{sessions: map[string]*concertState{}})
	t.Cleanup(srv.Close)
	dir := concertDir(t)
	env := map[string]string{"NLUTEST_VAR_rasa_url": srv.URL}
	whole, merged := filepath.Join(dir, "whole"), filepath.Join(dir, "merged")
	runCLI(t, dir, env, "run", dir, "--out", whole, "--quiet")
	const n = 3
	args := []string{"merge", "--out", merged, "--quiet"}
	nonEmpty, total := 0, 0
	for k := 1; k <= n; k++ {
		sd := filepath.Join(dir, fmt.Sprintf("shard%d", k))
		runCLI(t, dir, env, "run", dir, "--shard", fmt.Sprintf("%d/%d", k, n), "--out", sd, "--quiet")
		args = append(args, sd)
		c := runCases(t, sd)
		total += c
		if c > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 2 || total != 5 || runCases(t, whole) != 5 {
		t.Fatalf("%d of %d shards hold cases (%d cases): not a real split", nonEmpty, n, total)
	}
	if code, out, errs := runCLI(t, dir, env, args...); code != 1 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errs)
	}
	a, _ := coverageJSON(t, dir, env, whole)
	b, _ := coverageJSON(t, dir, env, merged)
	a.Run, b.Run = "", ""
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("merged shards' coverage differs from the whole run's\n%s\n%s", jb, ja)
	}
}

// runCases counts a run directory's results.
func runCases(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// zhParseNLU is a Chinese NLU in Rasa's /model/parse shape: 你好 is 问候,
// 订…票 is 订票 with the city as 城市; it takes 退票 for 订票 and knows no
// 改签 (nlu_fallback).
func zhParseNLU(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if r.URL.Path != "/model/parse" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.NotFound(w, r)
			return
		}
		intent, ents := "nlu_fallback", []any{}
		switch {
		case strings.Contains(req.Text, "你好"):
			intent = "问候"
		case strings.Contains(req.Text, "票"):
			intent = "订票"
			for _, city := range []string{"北京", "上海"} {
				if i := strings.Index(req.Text, city); i >= 0 {
					ents = append(ents, map[string]any{"entity": "城市", "value": city})
				}
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"text": req.Text, "intent": map[string]any{"name": intent, "confidence": 0.9}, "entities": ents})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Another engine's model as a plain list (Chinese intents, entity, slots,
// responses, an action), against an NLU the rasa schema reads: intents
// are checked through the intent dimension, the entity through the
// entity dimension's expected items; an intent the list lacks (改签) is
// undeclared. Statuses hand-checked.
func TestCoverageOfPlainListChinese(t *testing.T) {
	srv := zhParseNLU(t)
	items, err := filepath.Abs("../../spec/botmodel/testdata/zh/items.yml")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSuite(t, `suite "订票" {
  schema = "rasa"
}
variable "nlu" {}
target "nlu" {
  rasa { url = var.nlu }
}
materials "城市" { values = ["北京", "上海"] }
template "问候" {
  text   = "你好"
  expect = { "$.intent.name" = "问候" }
}
template "订票" {
  text   = "我要订去{城市}的票"
  expect = { "$.intent.name" = "订票", "$.entities" = [{ entity = "城市", value = "{城市}" }] }
}
template "退票" {
  text   = "帮我退票"
  expect = { "$.intent.name" = "退票" }
}
template "改签" {
  text   = "我要改签"
  expect = { "$.intent.name" = "改签" }
}
`)
	env := map[string]string{"NLUTEST_VAR_nlu": srv.URL}
	runDir := filepath.Join(dir, "run")
	if code, out, errs := runCLI(t, dir, env, "run", dir, "--out", runDir, "--quiet"); code != 1 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	cr, rows := coverageJSON(t, dir, env, runDir, "--items", items)
	want := map[string][]string{
		"intents":   {"问候 passing", "订票 passing", "退票 failing_only", "改签 undeclared"},
		"entities":  {"城市 passing"},
		"slots":     {"出发城市 untested", "到达城市 untested", "日期 untested"},
		"responses": {"问候回复 untested", "确认 untested"},
		"actions":   {"查询余票 untested"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n%q\nwant\n%q", rows, want)
	}
	if cr.Totals != (schema.CoverageCounts{Items: 10, Passing: 3, FailingOnly: 1, Untested: 6, Undeclared: 1, Ratio: schema.R(4, 10), PassingRatio: schema.R(3, 10)}) {
		t.Errorf("totals %+v", cr.Totals)
	}
	for _, k := range cr.Kinds {
		for _, r := range k.Rows {
			if r.Name == "订票" && r.CoverageItem != (schema.CoverageItem{Passed: 2, Seen: 3}) {
				t.Errorf("订票: %+v (two cases check it and pass; the bot also says it for 退票)", r.CoverageItem)
			}
			if r.Name == "城市" && r.CoverageItem != (schema.CoverageItem{Passed: 2, Seen: 2}) {
				t.Errorf("城市: %+v", r.CoverageItem)
			}
		}
	}
	// Markdown output; no model at all is a usage error.
	code, out, _ := runCLI(t, dir, env, "coverage", runDir, "--items", items, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| 退票 |") || !strings.Contains(out, "failing only") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	code, _, errs := runCLI(t, dir, env, "coverage", runDir)
	if code != 2 || !strings.Contains(errs, "coverage needs the bot's model: --domain FILE") {
		t.Errorf("no model: exit %d\n%s", code, errs)
	}
}

// A bad model gives located diagnostics and exit 2, whether the suite's
// coverage block or a flag names it; so do a coverage block without a
// model and a misspelt metrics.coverage figure.
func TestCoverageModelDiagnostics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("bad_domain.yml", "intents:\n  - 问候\nslots:\n  城市: text\n")
	write("items.yml", "intent: [问候]\n")
	base := "suite \"s\" {}\ntarget \"t\" {\n  rasa { url = \"http://127.0.0.1:9\" }\n}\ntemplate \"问候\" { text = \"你好\" }\n"
	for _, c := range []struct {
		name, block string
		want        []string
	}{
		{"bad domain", `coverage { domain = "bad_domain.yml" }`, []string{"Error: Invalid slot", "bad_domain.yml:4:7", "4 |   城市: text", `Slot "城市" is a mapping of its settings`}},
		{"bad items", `coverage { items = "items.yml" }`, []string{"Error: Unknown kind of item", "items.yml:1:1", `Did you mean "intents"?`}},
		{"missing domain", `coverage { domain = "nowhere.yml" }`, []string{"Error: Cannot read domain", "nowhere.yml does not exist"}},
		{"no model", `coverage { nlu = "bad_domain.yml" }`, []string{"Error: Coverage without a model", "domain = \"domain.yml\""}},
		{"misspelt figure", `coverage { items = "items_ok.yml" }` + "\nthreshold \"c\" { condition = metrics.coverage.intents.ration >= 0.5 }", []string{"Error: Unknown metric", `Did you mean "ratio"?`}},
		{"unknown dimension", `coverage {` + "\n" + `  items = "items_ok.yml"` + "\n" + `  intent_dimension = "intnet"` + "\n}", []string{"Error: Unknown dimension", `has no dimension "intnet"`}},
	} {
		write("items_ok.yml", "intents: [问候]\n")
		write("s"+".nlutest.hcl", base+c.block+"\n")
		code, out, errs := runCLI(t, dir, nil, "validate", dir)
		if code != 2 {
			t.Errorf("%s: validate exit %d, want 2\n%s%s", c.name, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: diagnostics lack %q:\n%s", c.name, w, errs)
			}
		}
	}
	// The flags' model: the same diagnostics, nothing evaluated.
	write("s.nlutest.hcl", strings.Replace(base, "http://127.0.0.1:9", zhParseNLU(t).URL, 1))
	runDir := filepath.Join(dir, "run")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", runDir, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runCLI(t, dir, nil, "coverage", runDir, "--domain", filepath.Join(dir, "bad_domain.yml"))
	if code != 2 || out != "" || !strings.Contains(errs, "bad_domain.yml:4:7") || !strings.Contains(errs, "the bot's model has 1 error; nothing was evaluated") {
		t.Errorf("coverage --domain bad: exit %d\n%s%s", code, out, errs)
	}
}

// The README's coverage block, verbatim, validates beside a domain and
// NLU data at the paths it names (Rasa's concertbot files).
func TestREADMECoverageBlock(t *testing.T) {
	dir := writeSuite(t, "suite \"s\" {}\ntarget \"t\" {\n  rasa { url = \"http://127.0.0.1:9\" }\n}\ntemplate \"hi\" { text = \"hello\" }\n"+readmeBlock(t, "## What the suite never tests"))
	for from, to := range map[string]string{"concertbot_domain.yml": "domain.yml", "concertbot_nlu.yml": "data/nlu.yml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "spec", "botmodel", "testdata", "rasa", from))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, to)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := runCLI(t, dir, nil, "validate", dir); code != 0 {
		t.Errorf("validate: exit %d\n%s%s", code, out, errs)
	}
}
