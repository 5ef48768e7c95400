package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// onePassFiles is a valid suite of two files and its data, with every kind
// of block, for TestValidateEveryMistakeInOnePass.
var onePassFiles = map[string]string{
	"suite.nlutest.hcl": `suite "一遍全报" {
  schema = "rasa"
}

variable "地址" {
  default = "http://127.0.0.1:9"
}

variable "重试" {
  default = 2
}

target "nlu" {
  http {
    url = "${var.地址}/model/parse"
  }
  retries = var.重试
}

materials "城市" {
  values = ["北京", "上海"]
}

template "订票" {
  text   = "帮我订去{城市}的机票"
  level  = "S1"
  expect = { "$.intent.name" = "book_flight" }
}

template "问天气" {
  text   = "{城市}天气怎么样"
  expect = { "$.intent.name" = "weather" }
}

template "问候" {
  text   = "你好"
  expect = { "$.intent.name" = "greet" }
}

template "改期" {
  text   = "改到{日期}"
  expect = { "$.intent.name" = "change_date" }
}

conversation "改签" {
  turn {
    user   = "我要改签去{城市}"
    expect = { "$.intent.name" = "change" }
  }
}

conversation "退票" {
  turn {
    user = "我要退票"
  }
}

scenario "订机票" {
  goal {
    inform = { city = "{城市}" }
  }
  opening   = ["我想订机票"]
  max_turns = 4
  success {
    condition = strcontains(reply, "订单号")
  }
}

dataset "问答" {
  source = "data/qa.jsonl"
  id     = row.id
  text   = row.question
  expect = { "$.intent.name" = row.intent }
}

dataset "更多" {
  source = "data/more.csv"
  id     = row.id
  text   = row.question
}

memory "个人信息" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  filler   = ["今天天气怎么样？"]
  distance = [0, 1]
}

ranking "回复选择" {
  source         = "data/rank.jsonl"
  score          = response.intent.confidence
  positive_grade = 3
}

split "冒烟" {
  fraction = 0.5
}

threshold "准确率" {
  condition = metrics.accuracy >= 0.5
}

threshold "烟测" {
  condition = metrics.split.冒烟.accuracy >= 0.5
}
`,
	"materials.nlutest.hcl": `materials "日期" {
  values = ["今天", "明天"]
}
`,
	"data/qa.jsonl": `{"id": "q1", "question": "北京天气", "intent": "weather"}
{"id": "q2", "question": "上海天气", "intent": "weather"}
`,
	"data/more.csv": `id,question
c1,你好
c2,再见
`,
	"data/rank.jsonl": `{"id": "r1", "query": "你好", "candidates": [{"text": "你好呀", "grade": 4}, {"text": "再见", "grade": 0}]}
`,
}

// onePassMistake is one mistake made in onePassFiles: old becomes new in
// file, and validate must report it once, as summary at the place marked
// in at ("PREFIX|MARK": where MARK starts, after PREFIX).
type onePassMistake struct {
	name, file, old, new, summary, at string
}

// onePassMistakes are fifteen unrelated mistakes across every kind of
// block, two suite files and a data file. Each keeps the line count, so
// each is at the same place alone and together.
var onePassMistakes = []onePassMistake{
	{"type error in a variable default", "suite.nlutest.hcl", "default = 2\n", "default = 2 + \"次\"\n", "Invalid operand", `2 + |"次"`},
	{"bad URL expression in a target", "suite.nlutest.hcl", `/model/parse"`, `/model/parse/${tonumber("九")}"`, "Invalid function argument", `tonumber("|九")`},
	{"unknown attribute in a template", "suite.nlutest.hcl", `  level  = "S1"`, `  colour = "S1"`, "Unsupported argument", `|colour = "S1"`},
	{"bad JSONPath in expect", "suite.nlutest.hcl", `"$.intent.name" = "greet"`, `"$.intent[" = "greet"`, "Invalid JSONPath", `"$.intent|[" = "greet"`},
	{"undefined material", "suite.nlutest.hcl", `"{城市}天气怎么样"`, `"{城镇}天气怎么样"`, "Unknown materials", `"|{城镇}天气`},
	{"duplicate conversation name", "suite.nlutest.hcl", `conversation "退票"`, `conversation "改签"`, "Duplicate conversation block", "conversation |\"改签\" {\n  turn {\n    user = \"我要退票\""},
	{"bad max_turns in a scenario", "suite.nlutest.hcl", "max_turns = 4", "max_turns = 0", "Value out of range", "max_turns = |0"},
	{"dataset file that does not exist", "suite.nlutest.hcl", `"data/qa.jsonl"`, `"data/问答.jsonl"`, "Cannot read dataset file", `|"data/问答.jsonl"`},
	{"bad distance in a memory block", "suite.nlutest.hcl", "distance = [0, 1]", "distance = [0, -1]", "Invalid distance", "distance = |[0, -1]"},
	{"bad positive_grade in a ranking", "suite.nlutest.hcl", "positive_grade = 3", `positive_grade = "高"`, "Invalid positive_grade", `positive_grade = |"高"`},
	{"bad split fraction", "suite.nlutest.hcl", "fraction = 0.5", "fraction = 1.5", "Value out of range", "fraction = |1.5"},
	{"threshold naming an unknown metric", "suite.nlutest.hcl", "metrics.accuracy >=", "metrics.accuracyy >=", "Unknown metric", "metrics|.accuracyy"},
	{"syntax error in a threshold", "suite.nlutest.hcl", "冒烟.accuracy >= 0.5\n", "冒烟.accuracy >= 0.5 0.5\n", "Missing newline after argument", "冒烟.accuracy >= 0.5 |0.5"},
	{"syntax error in materials another file uses", "materials.nlutest.hcl", `"明天"]`, `"明天"`, "Missing item separator", "\"明天\"\n|}"},
	{"bad data row", "data/more.csv", "c2,再见\n", "c2,再见,多余\n", "Invalid CSV row", "|c2,再见,多余"},
}

// writeOnePassSuite writes onePassFiles with the mistakes made and returns
// the directory and where each mistake's diagnostic must be
// ("Summary@file:line:col").
func writeOnePassSuite(t *testing.T, mistakes []onePassMistake) (string, []string) {
	t.Helper()
	files := map[string]string{}
	for name, text := range onePassFiles {
		files[name] = text
	}
	for _, m := range mistakes {
		if strings.Count(files[m.file], m.old) != 1 {
			t.Fatalf("%s: %q is not once in %s", m.name, m.old, m.file)
		}
		files[m.file] = strings.Replace(files[m.file], m.old, m.new, 1)
	}
	var want []string
	for _, m := range mistakes {
		prefix, mark, _ := strings.Cut(m.at, "|")
		text := files[m.file]
		if strings.Count(text, prefix+mark) != 1 {
			t.Fatalf("%s: the place %q is not once in %s", m.name, m.at, m.file)
		}
		at := strings.Index(text, prefix+mark) + len(prefix)
		line := strings.Count(text[:at], "\n") + 1
		col := utf8.RuneCountInString(text[strings.LastIndex(text[:at], "\n")+1:at]) + 1
		want = append(want, m.summary+"@"+m.file+":"+strconv.Itoa(line)+":"+strconv.Itoa(col))
	}
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	return dir, want
}

// diagLocRE reads an error's summary and place from the console output.
var diagLocRE = regexp.MustCompile(`(?m)^Error: (.+)\n\n  on (\S+):(\d+):(\d+):`)

// located returns the errors of a command's output as
// "Summary@file:line:col" (file relative to dir, with slashes), sorted.
func located(dir, errs string) []string {
	var got []string
	for _, m := range diagLocRE.FindAllStringSubmatch(errs, -1) {
		file := m[2]
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		got = append(got, m[1]+"@"+filepath.ToSlash(file)+":"+m[3]+":"+m[4])
	}
	slices.Sort(got)
	return got
}

// TestValidateEveryMistakeInOnePass (issue 35): a suite broken in fifteen
// unrelated places — a variable default, a target's URL, three templates,
// a conversation, a scenario, two datasets (a missing file, a bad row), a
// memory block, a ranking, a split, two thresholds (one a syntax error)
// and a materials block in another file that a template uses (a syntax
// error) — gets exactly fifteen located diagnostics from one validate, and
// the same from run, which writes nothing. Before, a syntax error hid the
// rest of its file, the data rows were read only once everything else was
// right, and a variable's bad default was three diagnostics.
func TestValidateEveryMistakeInOnePass(t *testing.T) {
	clean, _ := writeOnePassSuite(t, nil)
	if code, out, errs := runCLI(t, clean, nil, "validate", clean); code != ExitPass {
		t.Fatalf("the suite without mistakes: exit %d\n%s%s", code, out, errs)
	}
	dir, want := writeOnePassSuite(t, onePassMistakes)
	if len(want) != 15 {
		t.Fatalf("%d mistakes, want 15", len(want))
	}
	for _, cmd := range [][]string{{"validate", dir}, {"run", dir, "--out", filepath.Join(dir, "out")}, {"run", dir}} {
		code, _, errs := runCLI(t, dir, nil, cmd...)
		if code != ExitInvalid {
			t.Fatalf("%s: exit %d, want 2\n%s", cmd[0], code, errs)
		}
		got := located(dir, errs)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || strings.Count(errs, "Error: ") != len(want) {
			t.Errorf("%s: %d diagnostics\n%s\nwant %d\n%s\n\n%s", cmd[0], len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"), errs)
		}
		if !strings.Contains(errs, "has 15 errors; nothing ran.") {
			t.Errorf("%s: no count of 15 errors:\n%s", cmd[0], errs)
		}
		assertNothingWritten(t, dir)
	}
}

// TestValidateOneMistakeOneDiagnostic: each mistake of
// TestValidateEveryMistakeInOnePass alone is one diagnostic at its place
// (so the fifteen are independent: none hides or repeats another), from
// validate and from run, which writes nothing.
func TestValidateOneMistakeOneDiagnostic(t *testing.T) {
	for _, m := range onePassMistakes {
		t.Run(m.name, func(t *testing.T) {
			dir, want := writeOnePassSuite(t, []onePassMistake{m})
			for _, cmd := range [][]string{{"validate", dir}, {"run", dir, "--out", filepath.Join(dir, "out")}} {
				code, _, errs := runCLI(t, dir, nil, cmd...)
				if code != ExitInvalid {
					t.Fatalf("%s: exit %d, want 2\n%s", cmd[0], code, errs)
				}
				if got := located(dir, errs); strings.Join(got, " ") != want[0] || strings.Count(errs, "Error: ") != 1 {
					t.Errorf("%s: diagnostics %v, want %v\n%s", cmd[0], got, want, errs)
				}
				assertNothingWritten(t, dir)
			}
		})
	}
}

// assertNothingWritten checks that a refused command left no run
// directory, in --out or under .nlutest.
func assertNothingWritten(t *testing.T, dir string) {
	t.Helper()
	for _, p := range []string{"out", ".nlutest"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s was written (%v)", p, err)
		}
	}
}
