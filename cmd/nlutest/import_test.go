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

	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/schema"
)

// fakeRasaBot is a Rasa server's REST channel and tracker with scripted
// answers: each message gets its replies (one bot message each) and
// sets the tracker's latest_message entities and slots.
type fakeRasaBot struct {
	replies  map[string][]string
	entities map[string][]map[string]string
	// reply, when set, answers instead of replies (a bot with memory).
	reply func(sender, msg string) []string
	mu    sync.Mutex
	last  map[string]string // sender → last message
	calls int
}

func (b *fakeRasaBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/conversations/") {
		sender := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/conversations/"), "/tracker")
		msg := b.last[sender]
		ents := b.entities[msg]
		if ents == nil {
			ents = []map[string]string{}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"sender_id": sender, "slots": map[string]any{},
			"latest_message":     map[string]any{"text": msg, "intent": map[string]any{"name": "x", "confidence": 0.9}, "entities": ents},
			"latest_action_name": "action_listen"})
		return
	}
	var req struct{ Sender, Message string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/webhooks/rest/webhook" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	b.calls++
	if b.last == nil {
		b.last = map[string]string{}
	}
	b.last[req.Sender] = req.Message
	texts := b.replies[req.Message]
	if b.reply != nil {
		texts = b.reply(req.Sender, req.Message)
	}
	msgs := []map[string]string{}
	for _, t := range texts {
		msgs = append(msgs, map[string]string{"recipient_id": req.Sender, "text": t})
	}
	_ = json.NewEncoder(w).Encode(msgs)
}

// importAndCheck imports into dir/suite: first without --partial (exit 2,
// the listed steps, nothing written), then with it; the suite validates
// and is formatted.
func importAndCheck(t *testing.T, dir string, wantListed []string, args ...string) string {
	t.Helper()
	suite := filepath.Join(dir, "suite")
	if len(wantListed) > 0 {
		code, out, errs := runCLI(t, dir, nil, append(args, "-o", suite)...)
		if code != ExitInvalid {
			t.Fatalf("import without --partial: exit %d, want 2\n%s%s", code, out, errs)
		}
		for _, w := range wantListed {
			if !strings.Contains(errs, w) {
				t.Errorf("import without --partial does not list %q:\n%s", w, errs)
			}
		}
		if _, err := os.Stat(suite); !os.IsNotExist(err) {
			t.Fatalf("import without --partial wrote %s (%v)", suite, err)
		}
	}
	code, out, errs := runCLI(t, dir, nil, append(args, "-o", suite, "--partial")...)
	if code != ExitPass {
		t.Fatalf("import --partial: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "Wrote ") {
		t.Errorf("import --partial says %q", out)
	}
	if len(wantListed) > 0 && (!strings.Contains(errs, "Warning: Untranslatable") || !strings.Contains(errs, "It is left as an UNTRANSLATED comment in the imported suite") || !strings.Contains(out, "left as UNTRANSLATED comments")) {
		t.Errorf("import --partial does not warn of each untranslated step:\n%s%s", out, errs)
	}
	if code, out, errs := runCLI(t, dir, nil, "validate", suite); code != ExitPass {
		t.Fatalf("validate of the imported suite: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, dir, nil, "fmt", "--check", suite); code != ExitPass {
		t.Fatalf("fmt --check of the imported suite: exit %d\n%s%s", code, out, errs)
	}
	return suite
}

// runImported runs the suite against url and returns the outcome of each
// case by "source|text" (a turn's text), joined when two cases share it.
func runImported(t *testing.T, dir, suite string, vars ...string) (map[string][]schema.Outcome, *schema.Dialogue) {
	t.Helper()
	report := filepath.Join(dir, "r.json")
	args := []string{"run", suite, "--out", filepath.Join(dir, "run"), "--report-json", report}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	code, out, errs := runCLI(t, dir, nil, args...)
	if code != ExitFail {
		t.Fatalf("run: exit %d, want 1 (some cases fail)\n%s%s", code, out, errs)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cases   []schema.CaseReport `json:"cases"`
		Metrics struct {
			Dialogue *schema.Dialogue `json:"dialogue"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string][]schema.Outcome{}
	for _, c := range rep.Cases {
		src := c.Source
		if src == "" {
			src = c.Template
		}
		got[src+"|"+c.Text] = append(got[src+"|"+c.Text], c.Outcome)
	}
	return got, rep.Metrics.Dialogue
}

func checkOutcomes(t *testing.T, got map[string][]schema.Outcome, want map[string]string) {
	t.Helper()
	for k, w := range want {
		var parts []string
		for _, o := range got[k] {
			parts = append(parts, o.String())
		}
		if g := strings.Join(parts, ","); g != w {
			t.Errorf("%s: outcomes %s, want %s", k, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct cases, want %d: %v", len(got), len(want), got)
	}
}

// TestImportBotiumSamples imports Botium's own sample and test convos
// (importer/testdata/botium, README there), runs them against a fake
// bot and checks the hand-counted outcomes: of 5 templates 4 pass
// ("2 steps neg" meets the Hugo it must not), of 3 conversations 2
// complete, 11 of 12 turns pass ("10th of january" gets "Fine.", not OK).
func TestImportBotiumSamples(t *testing.T) {
	samples, err := filepath.Abs("../../importer/testdata/botium")
	if err != nil {
		t.Fatal(err)
	}
	bot := &fakeRasaBot{replies: map[string][]string{
		"Hello": {"Hello Hugo"}, "bye": {"goodbye!"}, "hi": {"Hello! What can I do for you?"}, "nothing": {"ok"},
		"Login please": {"Password please!"}, "123456": {"You are logged in!"}, "Logout please!": {"Are you sure?"}, "Yes": {"You are logged out!"},
		"where is the next restauran": {"I understand you want me to find a location. I can find restaurants, gas stations and restrooms nearby."},
		"find my a restaurant":        {"Of course. Do you have a specific cuisine in mind?"},
		"pizza":                       {"Super! I've found 5 locations for you. Which one would you like to drive to?"},
		"1":                           {"Sure! Restaurant 1 on the list gets great reviews.", "What day/time did you want to go to the restaurant?"},
		"10th of january":             {"Fine."},
		"word1 word2 hi":              {"hello! there"},
		"Im Joe, my number is 12345, and my ID is id1_123": {"Your ID id1_123 and number 12345"},
	}}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	dir := t.TempDir()
	suite := importAndCheck(t, dir, []string{
		"restaurant.convo.txt:35:1", `"PAUSE 1000" cannot be translated`,
		"convos_and_utterances.yml:19:1", `"?!TEXT hello" cannot be translated: optional asserters`,
		"convos_and_utterances.yml:28:1", "Untranslatable Botium step", "6 steps cannot be translated; nothing was written",
	}, "import", "botium", samples)
	got, d := runImported(t, dir, suite, "bot_url="+srv.URL)
	joe := "|Im Joe, my number is 12345, and my ID is id1_123"
	checkOutcomes(t, got, map[string]string{
		"2 steps neg|Hello": "fail", "goodbye|bye": "pass", "text_contains_any_ok_utterances|word1 word2 hi": "pass",
		"text_regexp_all_nok" + joe: "pass", "text_wildcard_any_ok" + joe: "pass",
		"convo 1 name|hi": "pass", "convo 1 name|nothing": "pass",
		"Main|Login please": "pass", "Main|123456": "pass", "Main|Logout please!": "pass", "Main|Yes": "pass",
		"restaurant|hi": "pass", "restaurant|where is the next restauran": "pass", "restaurant|find my a restaurant": "pass",
		"restaurant|pizza": "pass", "restaurant|1": "pass", "restaurant|10th of january": "fail",
	})
	if d == nil || d.Conversations != 3 || d.Completed != 2 || d.Turns != 12 || d.TurnsPassed != 11 {
		t.Errorf("metrics.dialogue = %+v, want 3 conversations, 2 completed, 12 turns, 11 passed", d)
	}
}

// TestImportBotiumChinese imports a hand-written Chinese convo whose #me
// names an utterance list (two instances, 北京 and 上海) and a one-turn
// convo (a template): the fake bot books 北京 but has no flight for 上海,
// and the weather is 多云, not 晴.
func TestImportBotiumChinese(t *testing.T) {
	samples, err := filepath.Abs("../../importer/testdata/botium-zh")
	if err != nil {
		t.Fatal(err)
	}
	dest := map[string]string{}
	bot := &fakeRasaBot{reply: func(sender, msg string) []string {
		switch {
		case msg == "你好":
			return []string{"您好，请问有什么可以帮您？"}
		case strings.Contains(msg, "机票"):
			dest[sender] = msg
			return []string{"好的，请问哪天出发？"}
		case msg == "明天" && strings.Contains(dest[sender], "北京"):
			return []string{"已为您订好，订单号12345"}
		case msg == "明天":
			return []string{"抱歉，明天没有航班"}
		}
		return []string{"北京今天多云"}
	}}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	dir := t.TempDir()
	suite := importAndCheck(t, dir, nil, "import", "botium", samples)
	raw, err := os.ReadFile(filepath.Join(suite, "botium-zh.nlutest.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`materials "BOOK_FLIGHT"`, `user = "{BOOK_FLIGHT}"`, `template "查天气"`, `conversation "订机票"`} {
		if !strings.Contains(string(raw), w) {
			t.Errorf("the imported suite lacks %s:\n%s", w, raw)
		}
	}
	got, d := runImported(t, dir, suite, "bot_url="+srv.URL)
	checkOutcomes(t, got, map[string]string{
		"订机票|你好": "pass,pass", "订机票|我想订一张去北京的机票": "pass", "订机票|帮我订去上海的机票": "pass",
		"订机票|明天": "fail,pass", "查天气|北京天气怎么样": "fail",
	})
	if d == nil || d.Conversations != 2 || d.Completed != 1 || d.Turns != 6 || d.TurnsPassed != 5 {
		t.Errorf("metrics.dialogue = %+v, want 2 conversations, 1 completed, 6 turns, 5 passed", d)
	}
}

// TestImportRasaSamples imports Rasa's own end-to-end test cases and test
// stories (importer/testdata/rasa, README there) with the e2ebot domain
// for utter_greet, runs them against a fake Rasa and checks the
// hand-counted outcomes: test_standard_booking fails twice (the greeting
// is not utter_greet's "hi!", and the three bot messages are one), the
// joe story's first turn fails on the tracker's state (the entity's value
// is "Joe", not the annotated "joe"), the cranky story's template fails
// ("I'm sorry." is not "I'm sorry!"); 3 of 5 conversations complete, 9 of
// 12 turns pass.
func TestImportRasaSamples(t *testing.T) {
	samples, err := filepath.Abs("../../importer/testdata/rasa")
	if err != nil {
		t.Fatal(err)
	}
	bot := &fakeRasaBot{
		replies: map[string][]string{
			"Hi!": {"Hey! How are you?"}, "I would like to book a trip.": {"Where would you like to travel?"},
			"I want to travel to Lisbon.": {"Your trip to Lisbon has been booked."}, "I am feeling wonderful.": {"Great, carry on!"},
			"my name is joe": {"hi joe!"}, "I am feeling happy": {"I'm glad"}, "today I was very cranky": {"I'm sorry."},
		},
		entities: map[string][]map[string]string{
			"my name is joe":          {{"entity": "name", "value": "Joe"}},
			"I am feeling happy":      {{"entity": "mood", "value": "happy"}},
			"today I was very cranky": {{"entity": "mood", "value": "cranky"}},
		},
	}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	dir := t.TempDir()
	listed := []string{"e2e_test_cases_with_fixtures.yml:9:5", `"fixtures: standard_membership" cannot be translated`, "1 step cannot be translated"}
	suite := importAndCheck(t, dir, listed, "import", "rasa-e2e",
		filepath.Join(samples, "e2e_test_cases.yml"), filepath.Join(samples, "e2e_test_cases_with_fixtures.yml"),
		filepath.Join(samples, "test_e2ebot_test_stories.yml"), "--domain", filepath.Join(samples, "test_e2ebot_domain.yml"))
	got, d := runImported(t, dir, suite, "rasa_url="+srv.URL)
	checkOutcomes(t, got, map[string]string{
		"test_booking|Hi!": "pass", "test_booking|I would like to book a trip.": "pass", "test_booking|I want to travel to Lisbon.": "pass",
		"test_mood_great|Hi!": "pass", "test_mood_great|I am feeling wonderful.": "pass",
		"test_mood_great (2)|Hi!": "pass", "test_mood_great (2)|I am feeling wonderful.": "pass",
		"test_standard_booking|Hi!": "fail", "test_standard_booking|I would like to book a trip.": "pass",
		"test_standard_booking|I want to travel to Lisbon.": "fail",
		"Test with two easy entities|my name is joe":        "fail", "Test with two easy entities|I am feeling happy": "pass",
		"Test with a hard entity|today I was very cranky": "fail",
	})
	if d == nil || d.Conversations != 5 || d.Completed != 3 || d.Turns != 12 || d.TurnsPassed != 9 {
		t.Errorf("metrics.dialogue = %+v, want 5 conversations, 3 completed, 12 turns, 9 passed", d)
	}
}

// TestImportUsage: mistakes on the command line or in the input are exit
// 2 with a sentence saying what to do, and write nothing.
func TestImportUsage(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	samples, _ := filepath.Abs("../../importer/testdata/botium-zh")
	// The formats and those that read --domain, as the set lists them.
	var formats, withDomain []string
	for _, f := range extensions.Default().Importers {
		formats = append(formats, f.Name())
		if importer.TakesDomain(f) {
			withDomain = append(withDomain, f.Name())
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "botium", samples}, "import needs -o SUITE_DIR"},
		{[]string{"import", "botium", samples, "-o", full}, "already holds files"},
		{[]string{"import", "dialogflow", samples, "-o", "out"}, `import reads ` + orList(formats) + `, not "dialogflow"`},
		{[]string{"import", "botium", empty, "-o", "out"}, "no Botium convos in"},
		{[]string{"import", "botium", filepath.Join(dir, "missing"), "-o", "out"}, "missing does not exist"},
		{[]string{"import", "rasa-e2e", filepath.Join(samples, "天气.convo.txt"), "-o", "out"}, "has no test_cases or stories: nlutest import rasa-e2e reads"},
		{[]string{"import", "botium", samples, "-o", "out", "--domain", "d.yml"}, "--domain is for import " + orList(withDomain) + "; import botium reads no bot model"},
		{[]string{"import", "botium", samples, empty, "-o", "out"}, "import botium takes one directory of convos, got 2 paths"},
		{[]string{"import", "-o", "out"}, "import takes a format (" + orList(formats) + ") and what to import"},
	} {
		code, out, errs := runCLI(t, dir, nil, tc.args...)
		if code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q (stdout %q)", tc.args, code, errs, tc.want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a failed import wrote out/ (%v)", err)
	}
	// An empty directory is filled.
	if code, out, errs := runCLI(t, dir, nil, "import", "botium", samples, "-o", empty); code != ExitPass {
		t.Fatalf("import into an empty directory: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(empty, "botium-zh.nlutest.hcl")); err != nil {
		t.Error(err)
	}
}

// TestImportBotFirst: a Botium convo the bot opens imports as a
// bot_first turn, which the rasa target opens with /session_start; the
// fake bot welcomes, then answers the user (welcome passes, the answer
// lacks 几点 and fails).
func TestImportBotFirst(t *testing.T) {
	dir := t.TempDir()
	convos := filepath.Join(dir, "convos")
	if err := os.MkdirAll(convos, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(convos, "欢迎.convo.txt"), []byte("欢迎\n\n#bot\n欢迎*光临\n\n#me\n我想订餐\n\n#bot\nTEXT_CONTAINS_ALL 几位|几点\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bot := &fakeRasaBot{replies: map[string][]string{"/session_start": {"欢迎再次光临！"}, "我想订餐": {"好的，请问几位？"}}}
	srv := httptest.NewServer(bot)
	defer srv.Close()
	suite := importAndCheck(t, dir, nil, "import", "botium", convos)
	raw, err := os.ReadFile(filepath.Join(suite, "convos.nlutest.hcl"))
	if err != nil || !strings.Contains(string(raw), "bot_first = true") {
		t.Fatalf("no bot_first turn (%v):\n%s", err, raw)
	}
	got, d := runImported(t, dir, suite, "bot_url="+srv.URL)
	checkOutcomes(t, got, map[string]string{"欢迎|": "pass", "欢迎|我想订餐": "fail"})
	if d == nil || d.Conversations != 1 || d.Completed != 0 || d.Turns != 2 || d.TurnsPassed != 1 {
		t.Errorf("metrics.dialogue = %+v, want 1 conversation, 0 completed, 2 turns, 1 passed", d)
	}
}
