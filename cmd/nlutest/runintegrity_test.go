package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// Issue 24 (run integrity): a merge must be of a whole run, --resume and
// merge must not mix variable values, and dataset ids must count the same
// in every command.

// varSuite calls the embedded demo NLU with texts that hold var.city.
const varSuite = `suite "出行" { schema = "rasa" }

variable "city" { default = "拉萨" }

target "demo" {
  demo {}
  concurrency = 1
}

materials "日子" { values = ["明天", "后天", "周五", "下周一", "月底", "今晚"] }

template "订机票" {
  text   = "帮我订一张{日子}去${var.city}的机票"
  expect = { "$.intent.name" = "book_flight" }
}
`

// wantCode fails the test unless the command exited with want and its
// stderr holds every one of wants.
func wantCode(t *testing.T, what string, code, want int, errs string, wants ...string) {
	t.Helper()
	if code != want {
		t.Fatalf("%s: exit %d, want %d\n%s", what, code, want, errs)
	}
	for _, w := range wants {
		if !strings.Contains(errs, w) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, w, errs)
		}
	}
}

func readMeta(t *testing.T, dir string) pipeline.Meta {
	t.Helper()
	m, err := pipeline.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func warningsOf(t *testing.T, dir string) string {
	t.Helper()
	return strings.Join(loadReport(t, dir).Warnings, "\n")
}

// Item 6 (audit F): shard 1/2 alone was merged as the whole run (exit 0,
// "PASS 95 of 95"). It is refused like any missing shard; --partial
// merges it and every report of the merged run says what is missing.
func TestMergeOfOneShardIsRefused(t *testing.T) {
	dir := writeSuite(t, varSuite)
	sh1 := filepath.Join(dir, "sh1")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--shard", "1/2", "--out", sh1, "--quiet")
	wantCode(t, "shard 1/2", code, ExitPass, errs)
	out := filepath.Join(dir, "m")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", out, sh1)
	wantCode(t, "merge of one shard", code, ExitInvalid, errs, "shard 2/2 missing", "--partial")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote %s (%v)", out, err)
	}

	code, stdout, errs := runCLI(t, dir, nil, "merge", "--partial", "--out", out, sh1)
	wantCode(t, "merge --partial of one shard", code, ExitPass, errs, "a partial merge: shard 2/2 missing")
	const warn = "a partial merge (--partial): shards 1/2 only, 2/2 missing"
	if !strings.Contains(stdout, warn) || !strings.Contains(warningsOf(t, out), warn) {
		t.Errorf("the console and report.json must say the merge is partial:\n%s\n%s", stdout, warningsOf(t, out))
	}
	if m := readMeta(t, out); strings.Join(m.MissingShards, " ") != "2/2" {
		t.Errorf("run.json missing_shards = %v, want [2/2]", m.MissingShards)
	}
	// eval of the merged run says it too: it reads run.json.
	code, _, errs = runCLI(t, dir, nil, "eval", out, "--quiet")
	wantCode(t, "eval of a partial merge", code, ExitPass, errs)
	if !strings.Contains(warningsOf(t, out), warn) {
		t.Errorf("eval's report lost the partial warning: %s", warningsOf(t, out))
	}
	// A copy of the partial merge (merge of it alone) stays partial.
	cp := filepath.Join(dir, "m-copy")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", cp, out, "--quiet")
	wantCode(t, "merge of the partial merge alone", code, ExitPass, errs)
	if m := readMeta(t, cp); !strings.Contains(warningsOf(t, cp), warn) || strings.Join(m.Shards, " ") != "1/2" {
		t.Errorf("the copy lost what it lacks: shards %v, warnings %s", m.Shards, warningsOf(t, cp))
	}
	// A whole run alone is complete: merge copies and evaluates it.
	whole := filepath.Join(dir, "whole")
	runCLI(t, dir, nil, "run", dir, "--out", whole, "--quiet")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", filepath.Join(dir, "copy"), whole, "--quiet")
	wantCode(t, "merge of one whole run", code, ExitPass, errs)
}

// Item 9 (audit I), --resume: a run resumed with other variable values
// (a kill, then `run --resume DIR` without the --var flags) mixed results
// of two endpoints without a word. run.json now holds a salted print of
// each variable's value, never the value; --resume refuses another value
// unless --allow-changed-vars, which the report then names.
func TestResumeRefusesOtherVariableValues(t *testing.T) {
	dir := writeSuite(t, varSuite)
	r := filepath.Join(dir, "r")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "city=北京", "--out", r, "--quiet")
	wantCode(t, "run", code, ExitPass, errs)
	raw, err := os.ReadFile(filepath.Join(r, pipeline.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	m := readMeta(t, r)
	if strings.Contains(string(raw), "北京") || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(m.VarSalt) ||
		!strings.HasPrefix(m.VarPrints["city"], "hmac-sha256:") {
		t.Errorf("run.json must hold a salt and a print of var.city, never its value:\n%s", raw)
	}

	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--var", "city=上海")
	wantCode(t, "resume with another --var", code, ExitInvalid, errs, "var.city differs from the value "+r+" was recorded with", "--allow-changed-vars")
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r)
	wantCode(t, "resume without the --var (the default)", code, ExitInvalid, errs, "var.city differs")
	code, _, errs = runCLI(t, dir, map[string]string{"NLUTEST_VAR_city": "北京"}, "run", "--resume", r, "--quiet")
	wantCode(t, "resume with the same value (from the environment)", code, ExitPass, errs)

	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--var", "city=上海", "--allow-changed-vars", "--quiet")
	wantCode(t, "resume --allow-changed-vars", code, ExitPass, errs, "going on (--allow-changed-vars)")
	const warn = "results made with different values of var.city are mixed in this run"
	if !strings.Contains(warningsOf(t, r), warn) {
		t.Errorf("the report must name the changed variable: %s", warningsOf(t, r))
	}
	if m := readMeta(t, r); strings.Join(m.ChangedVars, " ") != "city" {
		t.Errorf("run.json changed_vars = %v", m.ChangedVars)
	}
	runCLI(t, dir, nil, "eval", r, "--quiet")
	if !strings.Contains(warningsOf(t, r), warn) {
		t.Errorf("eval's report must name the changed variable too: %s", warningsOf(t, r))
	}

	// A run.json of an earlier nlutest (no prints) resumes with a notice,
	// and is checked from then on.
	old := filepath.Join(dir, "old")
	runCLI(t, dir, nil, "run", dir, "--var", "city=北京", "--out", old, "--quiet")
	m = readMeta(t, old)
	m.VarSalt, m.VarPrints = "", nil
	if err := pipeline.WriteMeta(old, m); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", old, "--var", "city=北京", "--quiet")
	wantCode(t, "resume of an old run.json", code, ExitPass, errs, "records no fingerprint of the variable values")
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", old, "--var", "city=上海")
	wantCode(t, "the old run, resumed again with another value", code, ExitInvalid, errs, "var.city differs")
}

// Item 9 (audit I), merge: shards run with different variable values
// merged into one report with no remark. Each shard's prints are checked
// against the values merge is given (with that shard's salt).
func TestMergeRefusesShardsOfOtherVariableValues(t *testing.T) {
	dir := writeSuite(t, varSuite)
	a1, a2, b2 := filepath.Join(dir, "a1"), filepath.Join(dir, "a2"), filepath.Join(dir, "b2")
	runCLI(t, dir, nil, "run", dir, "--shard", "1/2", "--var", "city=北京", "--out", a1, "--quiet")
	runCLI(t, dir, nil, "run", dir, "--shard", "2/2", "--var", "city=北京", "--out", a2, "--quiet")
	runCLI(t, dir, nil, "run", dir, "--shard", "2/2", "--var", "city=上海", "--out", b2, "--quiet")
	if readMeta(t, a1).VarSalt == readMeta(t, a2).VarSalt {
		t.Errorf("two runs drew the same salt")
	}

	out := filepath.Join(dir, "m")
	code, _, errs := runCLI(t, dir, nil, "merge", "--out", out, "--var", "city=北京", a1, b2)
	wantCode(t, "merge of shards of two values", code, ExitInvalid, errs, "var.city differs from the value "+b2+" (shard 2/2) was recorded with")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", out, "--var", "city=上海", a1, b2)
	wantCode(t, "the same, given the other value", code, ExitInvalid, errs, a1+" (shard 1/2)")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", out, a1, a2)
	wantCode(t, "merge without the shards' --var", code, ExitInvalid, errs, "var.city differs")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote %s (%v)", out, err)
	}

	code, _, errs = runCLI(t, dir, map[string]string{"NLUTEST_VAR_city": "北京"}, "merge", "--out", out, a1, a2, "--quiet")
	wantCode(t, "merge with the shards' value", code, ExitPass, errs)
	if m := readMeta(t, out); m.VarSalt == "" || m.VarSalt == readMeta(t, a1).VarSalt || len(m.ChangedVars) != 0 {
		t.Errorf("the merged run.json must have a salt of its own and no changed variable: %+v", m)
	}

	mixed := filepath.Join(dir, "mixed")
	code, _, errs = runCLI(t, dir, nil, "merge", "--out", mixed, "--var", "city=北京", "--allow-changed-vars", a1, b2, "--quiet")
	wantCode(t, "merge --allow-changed-vars", code, ExitPass, errs, "merging all the same (--allow-changed-vars)")
	if w := warningsOf(t, mixed); !strings.Contains(w, "different values of var.city are mixed") {
		t.Errorf("the merged report must name the variable: %s", w)
	}
	if m := readMeta(t, mixed); strings.Join(m.ChangedVars, " ") != "city" {
		t.Errorf("merged run.json changed_vars = %v", m.ChangedVars)
	}
}

// A sensitive variable's print is stretched (PBKDF2) before the HMAC, and
// neither run.json nor any other file of the run holds its value.
func TestSensitiveVariablePrint(t *testing.T) {
	srv := fakeNLU(t)
	suite := strings.Replace(offlineSuite, `variable "url" {}`, `variable "url" {}
variable "key" { sensitive = true }`, 1)
	suite = strings.Replace(suite, `body = jsonencode({ text = case.text })`, `body = jsonencode({ text = case.text })
    headers = { Authorization = "Bearer ${var.key}" }`, 1)
	dir := writeSuite(t, suite)
	r := filepath.Join(dir, "r")
	const key = "sk-测试-0123456789abcdef"
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--var", "key="+key, "--out", r, "--quiet")
	if code != ExitPass && code != ExitFail {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	if p := readMeta(t, r).VarPrints; !strings.HasPrefix(p["key"], "pbkdf2-sha256:") || !strings.HasPrefix(p["url"], "hmac-sha256:") {
		t.Errorf("prints: %v", p)
	}
	entries, _ := os.ReadDir(r)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(r, e.Name()))
		if strings.Contains(string(b), key) {
			t.Errorf("%s holds the sensitive value", e.Name())
		}
	}
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--var", "url="+srv.URL, "--var", "key=sk-另一个-0123456789abcdef")
	wantCode(t, "resume with another key", code, ExitInvalid, errs, "var.key differs")
	if strings.Contains(errs, "0123456789abcdef") {
		t.Errorf("the refusal shows a value:\n%s", errs)
	}
}

// Minor 8: --resume --repeat 2 of a --repeat 3 run was refused with a
// message naming target, split, filter and shard, not repeat.
func TestResumeNamesTheRepeatThatDiffers(t *testing.T) {
	dir := writeSuite(t, varSuite)
	r := filepath.Join(dir, "r")
	code, _, errs := runCLI(t, dir, nil, "run", dir, "--repeat", "3", "--out", r, "--quiet")
	wantCode(t, "run --repeat 3", code, ExitPass, errs)
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--repeat", "2")
	wantCode(t, "resume --repeat 2", code, ExitInvalid, errs, "was run with --repeat 3 (now 2); resume it with the same selection")
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--split", "", "--filter", "周五")
	wantCode(t, "resume --filter", code, ExitInvalid, errs, `--filter none (now "周五")`)
}

// Minor 10: a shard that holds no case (3 cases in 5 shards) exited 2
// with "no case to run" and wrote no run, so merge of the matrix failed.
// It records an empty run that merge accepts; a selection empty in every
// shard is still refused.
func TestEmptyShardRecordsAnEmptyRun(t *testing.T) {
	dir := writeSuite(t, strings.Replace(varSuite, `"明天", "后天", "周五", "下周一", "月底", "今晚"`, `"明天", "后天", "周五"`, 1))
	var shards []string
	empty := 0
	for k := 1; k <= 5; k++ {
		d := filepath.Join(dir, "shard", string(rune('0'+k)))
		shards = append(shards, d)
		code, _, errs := runCLI(t, dir, nil, "run", dir, "--shard", string(rune('0'+k))+"/5", "--out", d, "--quiet")
		if strings.Contains(errs, "it records an empty run, for merge") {
			empty++
			if code != ExitFail || readMeta(t, d).Total != 0 || !fileExists(filepath.Join(d, runner.ResultsFile)) {
				t.Errorf("empty shard %d/5: exit %d (want 1: no case ran), run.json total %d", k, code, readMeta(t, d).Total)
			}
			continue
		}
		wantCode(t, "shard", code, ExitPass, errs)
	}
	if empty < 2 {
		t.Fatalf("3 cases in 5 shards leave at least 2 empty; %d said so", empty)
	}
	merged := filepath.Join(dir, "merged")
	code, _, errs := runCLI(t, dir, nil, append([]string{"merge", "--out", merged, "--quiet"}, shards...)...)
	wantCode(t, "merge of 5 shards, some empty", code, ExitPass, errs)
	if n := loadReport(t, merged).Metrics.Total; n != 3 {
		t.Errorf("merged run has %d cases, want 3", n)
	}
	code, _, errs = runCLI(t, dir, nil, "run", dir, "--filter", "不存在", "--shard", "1/5", "--out", filepath.Join(dir, "none"))
	wantCode(t, "a filter matching nothing", code, ExitInvalid, errs, "no case to run")
}

// dataSuite reads 问句.jsonl with ids from its id column.
const dataSuite = `suite "数据" { schema = "rasa" }

target "demo" {
  demo {}
  concurrency = 1
}

dataset "问句" {
  source = "data/问句.jsonl"
  id     = row.id
  text   = row.q
  expect = { "$.intent.name" = row.intent }
}
`

func writeData(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	rowBook    = `"q":"帮我订一张明天去北京的机票","intent":"book_flight"`
	rowWeather = `"q":"上海明天天气怎么样","intent":"check_weather"`
	rowCancel  = `"q":"帮我取消明天去拉萨的机票","intent":"cancel_booking"`
)

// Item 11 (audit K): two rows with one id — run counted both, eval,
// merge and --resume one. Every command refuses them, naming both lines.
func TestDuplicateDatasetIDsAreRefusedEverywhere(t *testing.T) {
	dir := writeSuite(t, dataSuite)
	writeData(t, dir, "问句.jsonl", `{"id":"q1",`+rowBook+"}\n{\"id\":\"q2\","+rowWeather+"}\n{\"id\":\"q3\","+rowCancel+"}\n")
	r, sh1, sh2 := filepath.Join(dir, "r"), filepath.Join(dir, "sh1"), filepath.Join(dir, "sh2")
	for _, args := range [][]string{{"--out", r}, {"--out", sh1, "--shard", "1/2"}, {"--out", sh2, "--shard", "2/2"}} {
		code, _, errs := runCLI(t, dir, nil, append([]string{"run", dir, "--quiet"}, args...)...)
		wantCode(t, "run before the duplicate", code, ExitPass, errs)
	}
	// Line 3 now has line 1's id.
	writeData(t, dir, "问句.jsonl", `{"id":"q1",`+rowBook+"}\n{\"id\":\"q2\","+rowWeather+"}\n{\"id\":\"q1\","+rowCancel+"}\n")
	file := filepath.Join(dir, "data", "问句.jsonl")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"validate", []string{"validate", dir}},
		{"generate", []string{"generate", dir}},
		{"stats", []string{"stats", dir}},
		{"run", []string{"run", dir, "--out", filepath.Join(dir, "new")}},
		{"run --resume", []string{"run", "--resume", r}},
		{"eval", []string{"eval", r}},
		{"merge", []string{"merge", "--out", filepath.Join(dir, "m"), sh1, sh2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, dir, nil, tc.args...)
			wantCode(t, tc.name, code, ExitInvalid, errs, "Error: Duplicate case id", "on "+file+":3:1",
				`The rows at `+file+`:1 and `+file+`:3 both have the id "q1".`)
		})
	}
	if fileExists(filepath.Join(dir, "m")) || fileExists(filepath.Join(dir, "new", runner.ResultsFile)) {
		t.Errorf("a refused merge or run wrote its directory")
	}
}

// Two datasets of one suite must not share an id either: eval keys on
// the id alone.
func TestDuplicateIDsAcrossDatasets(t *testing.T) {
	dir := writeSuite(t, dataSuite+strings.NewReplacer(`"问句"`, `"问句二"`, "问句.jsonl", "问句二.jsonl").Replace(dataSuite[strings.Index(dataSuite, "dataset"):]))
	writeData(t, dir, "问句.jsonl", `{"id":"q1",`+rowBook+"}\n")
	writeData(t, dir, "问句二.jsonl", `{"id":"q2",`+rowWeather+"}\n{\"id\":\"q1\","+rowCancel+"}\n")
	code, _, errs := runCLI(t, dir, nil, "validate", dir)
	one, two := filepath.Join(dir, "data", "问句.jsonl"), filepath.Join(dir, "data", "问句二.jsonl")
	wantCode(t, "validate", code, ExitInvalid, errs, "The rows at "+one+":1 and "+two+":2 both have the id \"q1\".")
}

// Item 11 (audit K): identical rows without an id shared the id derived
// from their content — run counted 3, eval 2. They now get distinct ids
// (the hash, then hash-2, hash-3 … in file order) in every command.
func TestIdenticalDatasetRowsCountInEveryCommand(t *testing.T) {
	dir := writeSuite(t, strings.Replace(dataSuite, "  id     = row.id\n", "", 1))
	writeData(t, dir, "问句.jsonl", "{"+rowBook+"}\n{"+rowBook+"}\n{"+rowWeather+"}\n\n{"+rowBook+"}\n")
	code, gen, errs := runCLI(t, dir, nil, "generate", dir)
	wantCode(t, "generate", code, ExitPass, errs)
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(gen), "\n") {
		var c schema.Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if len(ids) != 4 || ids[1] != ids[0]+"-2" || ids[3] != ids[0]+"-3" || ids[2] == ids[0] {
		t.Fatalf("ids %v: want h, h-2, another, h-3", ids)
	}
	r := filepath.Join(dir, "r")
	code, _, errs = runCLI(t, dir, nil, "run", dir, "--out", r, "--quiet")
	wantCode(t, "run", code, ExitPass, errs)
	if n := loadReport(t, r).Metrics.Total; n != 4 {
		t.Errorf("run counts %d cases, want 4", n)
	}
	code, _, errs = runCLI(t, dir, nil, "eval", r, "--quiet")
	wantCode(t, "eval", code, ExitPass, errs)
	if rep := loadReport(t, r); rep.Metrics.Total != 4 || len(rep.Warnings) != 0 {
		t.Errorf("eval counts %d cases (want 4, each rebuilt: no warning): %v", rep.Metrics.Total, rep.Warnings)
	}
	code, _, errs = runCLI(t, dir, nil, "run", "--resume", r, "--quiet")
	wantCode(t, "resume", code, ExitPass, errs, "4 of 4 cases already recorded")
	var shards []string
	for _, sh := range []string{"1/2", "2/2"} {
		d := filepath.Join(dir, "sh"+sh[:1])
		shards = append(shards, d)
		runCLI(t, dir, nil, "run", dir, "--shard", sh, "--out", d, "--quiet")
	}
	m := filepath.Join(dir, "m")
	code, _, errs = runCLI(t, dir, nil, append([]string{"merge", "--out", m, "--quiet"}, shards...)...)
	wantCode(t, "merge", code, ExitPass, errs)
	if n := loadReport(t, m).Metrics.Total; n != 4 {
		t.Errorf("merge counts %d cases, want 4", n)
	}
}
