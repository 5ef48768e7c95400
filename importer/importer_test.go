package importer

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/spec/format"
)

var update = flag.Bool("update", false, "rewrite the golden suites under testdata/golden")

var (
	noFeatures  = Features{}
	allFeatures = Features{ReplyBlocks: true, State: true, BotFirst: true}
)

func TestTextCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		not    bool
		want   string // kind:values or the reason
	}{
		{"plain", []string{"Hello"}, false, "contains:Hello"},
		{"utterance list", []string{"hi", "hello"}, false, "contains_any:hi|hello"},
		{"negated", []string{"Hugo"}, true, "not_contains:Hugo"},
		{"wildcard", []string{"您好*请问"}, false, `matches:(?s)您好.*请问`},
		{"wildcard list", []string{"a*b", "c.d"}, false, `matches:(?s)(?:a.*b|c\.d)`},
		{"lines", []string{"year is\n2024"}, false, `matches:(?s)year\s+is\s+2024`},
		{"negated wildcard", []string{"a*b"}, true, "a negated text with a * wildcard has no reply check (reply checks have not_contains, not a negated pattern)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, why := textCheck(tc.values, tc.not, "o")
			got := why
			if why == "" {
				got = c.kind + ":" + strings.Join(c.values, "|")
				if !c.ignoreCase {
					t.Errorf("Botium's default matching ignores case; the check does not")
				}
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAsserterChecks(t *testing.T) {
	b := &botium{s: &suite{}, utter: map[string][]string{"GREETING": {"hi", "hello!"}}}
	for _, tc := range []struct {
		line string
		want string
	}{
		{"TEXT_CONTAINS_ANY word3|word4|GREETING", "contains_any:word3|word4|hi|hello!"},
		{"TEXT_CONTAINS_ANY_IC a|b", "contains_any(ic):a|b"},
		{"!TEXT_CONTAINS_ANY a|b", "not_contains:a|b"},
		{"TEXT_CONTAINS_ALL 北京|晴", "contains:北京|晴"},
		{"!TEXT_CONTAINS_ALL a|b", "a negated TEXT_CONTAINS_ALL (not every text present) has no reply check"},
		{"TEXT_EQUALS a", "equals:a"},
		{"TEXT_IC a|b", "one_of(ic):a|b"},
		{"TEXT", "matches:(?s)."},
		{"!TEXT", "equals:"},
		{`TEXT_REGEXP_ANY 订单号[0-9]+|a\|b`, `matches:(?:订单号[0-9]+)|(?:a|b)`},
		{`TEXT_REGEXP_ALL id1_\d\d\d|[0-9]+`, `matches:id1_\d\d\d;matches:[0-9]+`},
		{"TEXT_REGEXP_ANY (?<=a)b", "the JavaScript pattern \"(?<=a)b\" is not RE2"},
		{"TEXT_WILDCARDEXACT_ANY id1_*3", "matches:(?s)^id1_.*3$"},
		{"TEXT_WER 20", "no reply check"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			st := &bStep{sender: "bot"}
			fillStep(st, []string{tc.line}, 1, nil)
			if len(st.items) != 1 {
				t.Fatalf("%q read as %d items, text %q", tc.line, len(st.items), st.text)
			}
			cs, why := b.asserterCheck(st.items[0], "x.convo.txt", "o")
			got := why
			if why == "" {
				var parts []string
				for _, c := range cs {
					k := c.kind
					if c.ignoreCase {
						k += "(ic)"
					}
					parts = append(parts, k+":"+strings.Join(c.values, "|"))
				}
				got = strings.Join(parts, ";")
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConvoTxt reads the text form: name and description, sections with
// channels, negation and optional marks, escaped bars, CRLF line ends,
// a custom asserter (listed) and a line of capitals naming an utterance
// list (text).
func TestConvoTxt(t *testing.T) {
	src := "订票\r\n描述一\r\n描述二\r\n\r\n#me\r\n你好\r\n\r\n#bot web\r\n!抱歉\r\nTEXT_CONTAINS_ANY a\\|b|c\r\nDUMMY x | y\r\n\r\n#bot\r\nHELLO\r\n"
	c := parseConvoTxt("x.convo.txt", src, map[string]bool{"HELLO": true})
	if c.name != "订票" || c.description != "描述一\n描述二" {
		t.Errorf("name %q, description %q", c.name, c.description)
	}
	if len(c.steps) != 3 {
		t.Fatalf("%d steps, want 3", len(c.steps))
	}
	me, bot, bot2 := c.steps[0], c.steps[1], c.steps[2]
	if me.sender != "me" || me.text != "你好" || me.textLine != 6 {
		t.Errorf("me step %+v", me)
	}
	if bot.channel != "web" || !bot.not || bot.text != "抱歉" || len(bot.items) != 2 {
		t.Fatalf("bot step %+v", bot)
	}
	if it := bot.items[0]; it.kind != "asserter" || strings.Join(it.args, ",") != "a|b,c" || it.line != 10 {
		t.Errorf("asserter %+v", it)
	}
	if it := bot.items[1]; it.kind != "unknown" || it.name != "DUMMY" {
		t.Errorf("custom asserter %+v", it)
	}
	if bot2.text != "HELLO" || len(bot2.items) != 0 {
		t.Errorf("utterance reference %+v", bot2)
	}
}

// writeFiles writes name → content under a new temp dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func problems(r *Result) string {
	var b strings.Builder
	for _, d := range r.Problems {
		b.WriteString(filepath.Base(d.Subject.Filename) + ":" + itoa(d.Subject.Start.Line) + " " + d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestIncludes inlines partial convos from #include sections and INCLUDE
// hooks, and reports a cycle and an unknown name at their lines.
func TestIncludes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.convo.txt":   "主\n\n#me\n登录\n\n#include 密码\n\n#me\n退出\nINCLUDE 确认\n\n#include\n没有这个\n",
		"a.pconvo.txt":     "密码\n\n#bot\n请输入密码\n\n#me\n123456\n",
		"b.pconvo.txt":     "确认\n\n#bot\n确定吗\n\nINCLUDE 循环\n",
		"c.pconvo.txt":     "循环\n\n#me\n是\n\nINCLUDE 确认\n",
		"d.utterances.txt": "U\nx\n",
	})
	r, _, err := ReadBotium(dir, noFeatures)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(r)
	for _, w := range []string{"c.pconvo.txt:6 Circular partial convo", "确认 → 循环 → 确认", "main.convo.txt:12 Unknown partial convo", `named "没有这个"`} {
		if !strings.Contains(got, w) {
			t.Errorf("problems lack %q:\n%s", w, got)
		}
	}
	suite := string(r.Files[filepath.Base(dir)+".nlutest.hcl"])
	for _, w := range []string{`user = "登录"`, `lower("请输入密码")`, `user = "123456"`, `user = "退出"`, `lower("确定吗")`, `user = "是"`} {
		if !strings.Contains(suite, w) {
			t.Errorf("the suite lacks %s:\n%s", w, suite)
		}
	}
}

// TestQuoting keeps text whole in HCL: braces doubled where the suite
// reads placeholders, ${ and %{ escaped, quotes and newlines escaped.
func TestQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"去{城市}":         `"去{{城市}}"`,
		"${x} and %{y}": `"$${{x}} and %%{{y}}"`,
		"say \"hi\"\n":  `"say \"hi\"\n"`,
		`a\b`:           `"a\\b"`,
	} {
		if got := literal(in); got != want {
			t.Errorf("literal(%q) = %s, want %s", in, got, want)
		}
	}
	if got := quote("${x}"); got != `"$${x}"` {
		t.Errorf("quote(${x}) = %s", got)
	}
}

// TestRasaSteps translates a hand-written Chinese test case: slots set
// with and without a value, not set, bot texts around an utter (contains,
// not equals), assertions, and without state checks lists them.
func TestRasaSteps(t *testing.T) {
	src := `test_cases:
  - test_case: 订票
    steps:
      - user: 我想订去北京的机票
      - slot_was_set:
          - 城市: 北京
          - 日期
      - slot_was_not_set:
          - 座位
          - 舱位: 头等舱
      - bot: 好的
      - utter: utter_ask_date
      - user: 明天
        assertions:
          - bot_uttered:
              text_matches: "订单号[0-9]+"
          - bot_did_not_utter:
              text_matches: 抱歉
          - flow_started: book_flight
`
	dir := writeFiles(t, map[string]string{"t.yml": src, "domain.yml": "responses:\n  utter_ask_date:\n  - text: \"哪天出发？\"\n  - text: \"{城市}哪天出发？\"\n"})
	r, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, filepath.Join(dir, "domain.yml"), allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	suite := squash(string(r.Files["t.nlutest.hcl"]))
	for _, w := range []string{
		`"state:$.slots['城市']" = "北京"`, `try(state.slots["日期"], null) != null`, `"state:$.slots['座位']" = null`,
		`try(state.slots["舱位"], null) != "头等舱"`, `contains    = ["好的"]`, `matches = "(?s)(?:哪天出发？|.*哪天出发？)"`,
		`matches     = "订单号[0-9]+"`, `not_contains = ["抱歉"]`, "tracker = true",
	} {
		if !strings.Contains(suite, squash(w)) {
			t.Errorf("the suite lacks %s:\n%s", w, suite)
		}
	}
	if got := problems(r); !strings.Contains(got, `t.yml:19 Untranslatable Rasa step: "flow_started: book_flight"`) || strings.Count(got, "\n") != 1 {
		t.Errorf("problems:\n%s", got)
	}
	r, _, err = ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", noFeatures)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(r)
	for _, w := range []string{"t.yml:5 Untranslatable", "t.yml:8 Untranslatable", `"utter: utter_ask_date" cannot be translated: a response name is not in the bot's reply; pass --domain`} {
		if !strings.Contains(got, w) {
			t.Errorf("problems without state checks lack %q:\n%s", w, got)
		}
	}
}

// TestGolden imports every sample set with the forms this nlutest reads
// today and with every form (reply blocks, state, bot_first) and compares
// the suites with testdata/golden (go test -update rewrites them); every
// suite is canonical (fmt leaves it as is).
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Features
		read func(Features) (*Result, error)
	}{
		{"botium", noFeatures, botiumDir("testdata/botium")},
		{"botium-all", allFeatures, botiumDir("testdata/botium")},
		{"botium-zh", noFeatures, botiumDir("testdata/botium-zh")},
		{"rasa-all", allFeatures, rasaFiles("testdata/rasa/test_e2ebot_domain.yml", "testdata/rasa/e2e_test_cases_with_fixtures.yml", "testdata/rasa/e2e_test_cases_with_metadata.yml", "testdata/rasa/e2e_test_case_with_slot_was_set.yml", "testdata/rasa/test_e2ebot_test_stories.yml")},
		{"rasa-stories-all", allFeatures, rasaFiles("testdata/rasa/initial_project_domain.yml", "testdata/rasa/initial_project_test_stories.yml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.read(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Files) != 1 {
				t.Fatalf("%d files", len(r.Files))
			}
			for _, body := range r.Files {
				if out, d := format.FormatSource(body, "x.nlutest.hcl"); d.HasErrors() || string(out) != string(body) {
					t.Errorf("the suite is not canonical: %v", d)
				}
				golden := filepath.Join("testdata", "golden", tc.name+".nlutest.hcl")
				got := string(body) + "\n# Problems:\n" + commentLines(problems(r))
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("%s differs (go test ./importer -run TestGolden -update rewrites it):\n%s", golden, got)
				}
			}
		})
	}
}

// squash collapses runs of spaces, so checks ignore the alignment.
func squash(s string) string {
	return regexp.MustCompile(` +`).ReplaceAllString(s, " ")
}

func commentLines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	return b.String()
}

func botiumDir(dir string) func(Features) (*Result, error) {
	return func(f Features) (*Result, error) {
		r, _, err := ReadBotium(dir, f)
		return r, err
	}
}

func rasaFiles(domain string, files ...string) func(Features) (*Result, error) {
	return func(f Features) (*Result, error) {
		r, _, err := ReadRasa(files, domain, f)
		return r, err
	}
}

// TestBotiumListsEveryStep: each line Botium would act on and nlutest
// cannot is listed at its line, none dropped; a button's payload is sent.
func TestBotiumListsEveryStep(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.convo.txt": `各种步骤

#begin
SET_SCRIPTING_MEMORY 名字|张三

#me
我叫$名字

#bot
你好*

#me
BUTTON /订票|订票

#bot
{"text": "好的"}
BUTTONS 北京|上海
CHECK_DB x | y

#bot
?请选择

#me
MEDIA pic.jpg
`})
	r, _, err := ReadBotium(dir, noFeatures)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(r)
	for _, w := range []string{
		`a.convo.txt:4 Untranslatable Botium step: "SET_SCRIPTING_MEMORY 名字|张三"`,
		`a.convo.txt:7 Untranslatable Botium step: "我叫$名字" cannot be translated: scripting memory`,
		`a.convo.txt:9 Untranslatable Botium step: "#bot before any #me"`,
		`a.convo.txt:16 Untranslatable Botium step: "{\"text\": \"好的\"}" cannot be translated: Botium compares a JSON message`,
		`a.convo.txt:17 Untranslatable Botium step: "BUTTONS 北京|上海" cannot be translated: the asserter BUTTONS has no nlutest equivalent`,
		`a.convo.txt:21 Untranslatable Botium step: "?请选择" cannot be translated: optional bot messages`,
		`a.convo.txt:18 Untranslatable Botium step: "CHECK_DB x | y" cannot be translated: it reads as a custom asserter`,
		`a.convo.txt:24 Untranslatable Botium step: "MEDIA pic.jpg"`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems lack %s:\n%s", w, got)
		}
	}
	if n := len(r.Problems); n != 8 {
		t.Errorf("%d problems, want 8:\n%s", n, got)
	}
	suite := string(r.Files[filepath.Base(dir)+".nlutest.hcl"])
	if !strings.Contains(suite, `text = "/订票"`) || strings.Count(suite, "# UNTRANSLATED") != 8 {
		t.Errorf("the suite should send the button's payload and keep 8 UNTRANSLATED comments:\n%s", suite)
	}
}

// TestBotFirst: a #bot before any #me (Botium) and an utter before any
// user step (Rasa) open the conversation as a bot_first turn, without
// user text, when this nlutest has them.
func TestBotFirst(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"w.convo.txt": "欢迎\n\n#bot\n欢迎光临\n\n#me\n你好\n\n#bot\n请问*\n",
		"t.yml":       "test_cases:\n  - test_case: 欢迎\n    steps:\n      - bot: 欢迎光临\n      - user: 你好\n      - bot: 请问需要什么？\n",
	})
	r, _, err := ReadBotium(dir, allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{string(r.Files[filepath.Base(dir)+".nlutest.hcl"]), string(r2.Files["t.nlutest.hcl"])} {
		want := "  turn {\n    bot_first = true\n    reply {\n"
		if !strings.Contains(s, want) || !strings.Contains(s, `conversation "欢迎"`) || strings.Count(s, "user = ") != 1 {
			t.Errorf("want a bot_first turn without user text, then one user turn:\n%s", s)
		}
	}
	if len(r.Problems)+len(r2.Problems) != 0 {
		t.Errorf("problems: %s%s", problems(r), problems(r2))
	}
}

// TestHasMemoryVar: Botium's scripting memory names start with a letter
// or an underscore after the dollar sign (Botium's docs, "Scripting
// Memory"); a price is not one.
func TestHasMemoryVar(t *testing.T) {
	for text, want := range map[string]bool{
		"我叫$名字": true, "$_x": true, "$$x": true, "a $b c": true,
		"价格 $5": false, "a$": false, "$": false, "$ x": false, "无": false, "$5 or $": false,
	} {
		if got := hasMemoryVar(text); got != want {
			t.Errorf("hasMemoryVar(%q) = %v, want %v", text, got, want)
		}
	}
}
