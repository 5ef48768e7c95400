package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
)

// memorySuite tells the demo memory bot (on 127.0.0.1) a name and a city,
// then asks two questions about the name and one about the city after 0,
// 1, 2, 4 and 8 filler turns.
const memorySuite = `
suite "mem" {}
target "bot" {
  demo {
    endpoint = "memory"
  }
}
materials "姓名" {
  values = ["张伟", "王芳", "李雷", "韩梅梅"]
}
materials "城市" {
  values = ["北京", "上海", "广州", "成都"]
}
memory "个人信息" {
  fact {
    say    = "我叫{姓名}。"
    ask    = ["我叫什么名字？", "你还记得我的名字吗？"]
    expect = "{姓名}"
  }
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  filler   = ["今天天气怎么样？", "给我讲个笑话。", "推荐一部电影。"]
  distance = [0, 1, 2, 4, 8]
}
threshold "near" {
  condition = metrics.memory.distance["0"].score >= 1
}
`

// Acceptance 1 of issue 14: against a bot that remembers only the facts
// of its last k = 4 turns (and misremembers them, naming another value of
// the same materials, up to 2k turns, then says it does not remember), the
// memory score per distance equals a hand count. Turns: the name at 1, the
// city at 2, d fillers, then the questions at 3+d (name), 4+d (name), 5+d
// (city); a question's age is its turn minus its fact's turn:
//
//	d=0: ages 2, 3, 3     → 3 entailed           (×4 cases: 12/12)
//	d=1: ages 3, 4, 4     → 3 entailed           (12/12)
//	d=2: ages 4, 5, 5     → 1 entailed, 2 contradicted (4/12; 8 contradicted)
//	d=4: ages 6, 7, 7     → 3 contradicted       (0/12; 12 contradicted)
//	d=8: ages 10, 11, 11  → 3 neutral            (0/12; 12 neutral)
//
// eval re-judges the saved run and gives the same figures.
func TestMemoryScoreByDistance(t *testing.T) {
	if demo.MemoryTurns != 4 {
		t.Fatalf("the hand count assumes demo.MemoryTurns = 4, not %d", demo.MemoryTurns)
	}
	dir := writeSuite(t, memorySuite)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run, "--report-json", filepath.Join(dir, "r.json"), "--report-markdown", filepath.Join(dir, "r.md"))
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errs)
	}
	var rep struct {
		Metrics struct {
			Memory schema.Memory `json:"memory"`
		} `json:"metrics"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	m := rep.Metrics.Memory
	want := map[string][4]int{ // entailed, neutral, contradicted, unanswered of 12
		"0": {12, 0, 0, 0}, "1": {12, 0, 0, 0}, "2": {4, 0, 8, 0}, "4": {0, 0, 12, 0}, "8": {0, 12, 0, 0},
	}
	for d, w := range want {
		st := m.Distance[d]
		if st == nil {
			t.Errorf("no metrics.memory.distance[%q]", d)
			continue
		}
		got := [4]int{st.Entailed, st.Neutral, st.Contradicted, st.Unanswered}
		if got != w || st.Questions != 12 || st.Facts != 8 {
			t.Errorf("distance %s: %d questions, %d facts, verdicts %v; want 12, 8, %v", d, st.Questions, st.Facts, got, w)
		}
		if v, _ := st.Score.Value(); v != float64(w[0])/12 {
			t.Errorf("distance %s: score %v, want %d/12", d, v, w[0])
		}
	}
	if m.Questions != 60 || m.Entailed != 28 || m.Neutral != 12 || m.Contradicted != 20 || m.Facts != 40 {
		t.Errorf("metrics.memory = %+v, want 60 questions, 28 entailed, 12 neutral, 20 contradicted, 40 facts", m.MemoryStats)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
	for _, want := range []string{"contradicted: fact", "neutral: fact", "我叫什么名字？", "你叫李雷。"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
	checkAgreement(t, dir, run)
	_, list, errs := runCLI(t, dir, nil, "eval", run, "--list-metrics")
	for _, want := range []string{
		"metrics.memory.score = 0.466667 (28/60)", `metrics.memory.distance["2"].contradicted = 8`,
		`metrics.memory.distance["8"].neutral = 12`, `metrics.memory_source.个人信息.memory.entailed = 28`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("eval --list-metrics lacks %q:\n%s%s", want, list, errs)
		}
	}
}

// checkAgreement: `memory agreement` compares the run's verdicts with
// people's. Rated: 3 answers the judge found entailed (people agree), 3
// contradicted (people: 2 contradicted, 1 neutral) and 2 neutral (people
// agree). Observed agreement 7/8; chance agreement from the margins
// (judge 3, 3, 2; people 3, 2, 3) (3·3 + 3·2 + 2·3)/64 = 21/64; Cohen's
// kappa (7/8 − 21/64) / (1 − 21/64) = 35/43 = 0.8140 (Cohen 1960, the
// formula scikit-learn's cohen_kappa_score implements).
func checkAgreement(t *testing.T, dir, run string) {
	t.Helper()
	byVerdict := map[string][]string{}
	raw, err := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r schema.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Verdict != "" {
			byVerdict[r.Verdict] = append(byVerdict[r.Verdict], r.ID)
		}
	}
	if len(byVerdict["entailed"]) < 3 || len(byVerdict["contradicted"]) < 3 || len(byVerdict["neutral"]) < 2 {
		t.Fatalf("verdicts recorded: %v", byVerdict)
	}
	sheet := "id,verdict\n"
	e, c, n := byVerdict["entailed"], byVerdict["contradicted"], byVerdict["neutral"]
	for _, row := range [][2]string{{e[0], "entailed"}, {e[1], "entailed"}, {e[2], "Entailed"}, {c[0], "contradicted"}, {c[1], "contradicted"},
		{c[2], "neutral"}, {n[0], "neutral"}, {n[1], "neutral"}, {"no-such-id", "neutral"}, {e[3], ""}} {
		sheet += row[0] + "," + row[1] + "\n"
	}
	path := filepath.Join(dir, "people.csv")
	if err := os.WriteFile(path, []byte(sheet), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, dir, nil, "memory", "agreement", run, "--ratings", path)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{`8 answers rated`, `not judged 1 rated ids`, `(?m)^\s*agreement\s+0\.875 \(7/8\)`, `(?m)^\s*cohen_kappa\s+0\.8140`,
		`(?m)^\s*contradicted\s+0\s+1\s+2\s+0\s+0\s*$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("memory agreement lacks %s:\n%s", want, out)
		}
	}
	_, md, _ := runCLI(t, dir, nil, "memory", "agreement", run, "--ratings", path, "--format", "markdown")
	if !strings.Contains(md, `| cohen\_kappa | 0.8140 |`) || !strings.Contains(md, "| contradicted | 0 | 1 | 2 | 0 | 0 |") {
		t.Errorf("memory agreement --format markdown:\n%s", md)
	}
	if err := os.WriteFile(path, []byte("id,verdict\n"+e[0]+",maybe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, dir, nil, "memory", "agreement", run, "--ratings", path)
	if code != ExitInvalid || !strings.Contains(errs, "people.csv:2:") || !strings.Contains(errs, `"maybe" is not a verdict`) {
		t.Errorf("a bad verdict: exit %d, %s", code, errs)
	}
}

// Minor 5 of the 2026-12-01 security audit, end to end: a bot that
// answers every turn with every city passes the default contains judge
// (documented), and fails it with exclusive = true.
func TestMemoryContainsExclusiveHedge(t *testing.T) {
	suite := func(judge string) string {
		return `
suite "含糊" {}
target "bot" {
  exec { command = ["sh", "-c", "cat > /dev/null; echo '\"我不确定，可能是北京、上海、广州或深圳。\"'"] }
  timeout = "10m"
}
materials "城市" { values = ["北京", "上海", "广州", "深圳"] }
memory "mem" {
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }` + judge + `
}
`
	}
	for _, tc := range []struct {
		name, judge string
		code        int
		verdict     string
	}{
		{"default", "", ExitPass, schema.Entailed},
		{"exclusive", "\n  judge = { name = \"contains\", exclusive = true }", ExitFail, schema.Contradicted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSuite(t, suite(tc.judge))
			run := filepath.Join(dir, "run")
			code, out, errs := runBounded(t, hangLimit, dir, "run", dir, "--out", run)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			verdicts := map[string]int{}
			_ = runner.ReadResults(filepath.Join(run, runner.ResultsFile), func(r *schema.Result) error {
				if r.Verdict != "" {
					verdicts[r.Verdict]++
				}
				return nil
			})
			if len(verdicts) != 1 || verdicts[tc.verdict] != 4 {
				t.Errorf("verdicts %v, want 4 %s", verdicts, tc.verdict)
			}
		})
	}
}
