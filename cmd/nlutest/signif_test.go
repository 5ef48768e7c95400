package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// The A/A and power checks at the level of nlutest diff: run
// directories of a suite of 2,000 cases whose results are written with
// seeded answers, compared by diff's own code (evaluating both runs'
// results with the suite, recording their units, testing).

// signifIntents are the bot's labels (Chinese, as users name them).
var signifIntents = []string{"订机票", "查天气", "退票", "改签", "问候"}

const signifPlaceholder = "@@意图@@"

// signifBench is a suite of n cases answered by a replay target, and the
// results of one run of it whose responses hold a placeholder for the
// predicted intent: a run with any answers is those lines with the
// placeholder replaced.
type signifBench struct {
	dir, template string
	expected      []string // each case's intent, in case order
	lines         []string
}

func newSignifBench(t *testing.T, n int, threshold string) *signifBench {
	t.Helper()
	dir := t.TempDir()
	var data, rec strings.Builder
	data.WriteString("id,text,intent\n")
	b := &signifBench{dir: dir}
	for i := range n {
		intent := signifIntents[i%len(signifIntents)]
		id := fmt.Sprintf("c%04d", i)
		text := fmt.Sprintf("第%d句：%s，明天去上海", i, intent)
		fmt.Fprintf(&data, "%s,%s,%s\n", id, text, intent)
		fmt.Fprintf(&rec, `{"id":%q,"text":%q,"outcome":"pass","latency_ms":10,"response":{"text":%q,"intent":{"name":%q,"confidence":0.9},"entities":[]}}`+"\n",
			id, text, text, signifPlaceholder)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "data", "intents.csv"), data.String())
	writeFile(t, filepath.Join(dir, "recorded.jsonl"), rec.String())
	writeFile(t, filepath.Join(dir, "suite.nlutest.hcl"), `suite "显著性" {
  schema = "rasa"
}

target "bot" {
  replay { source = "recorded.jsonl" }
}

dataset "意图" {
  source = "data/intents.csv"
  id     = row.id
  text   = row.text
  expect = { "$.intent.name" = row.intent }
}
`+threshold)
	b.template = filepath.Join(dir, "template")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", b.template, "--quiet"); code != ExitPass && code != ExitFail {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(filepath.Join(b.template, runner.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	// In case order, not the run's (its calls are concurrent), so that a
	// trial's seed gives the same answers to the same cases every time.
	b.lines = make([]string, n)
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		at := strings.Index(l, `"id":"`)
		var i int
		if _, err := fmt.Sscanf(l[at+6:], "c%04d", &i); at < 0 || err != nil || i >= n || b.lines[i] != "" {
			t.Fatalf("no case id, or one out of range or seen twice, in %s", l)
		}
		b.lines[i] = l
	}
	for i := range n {
		b.expected = append(b.expected, signifIntents[i%len(signifIntents)])
	}
	if slices.Contains(b.lines, "") || !strings.Contains(b.lines[0], signifPlaceholder) {
		t.Fatalf("template run: %d results, first %s", len(b.lines), b.lines[0])
	}
	return b
}

// write makes a run directory at name holding the answers (one intent
// per case, in the results' order).
func (b *signifBench) write(t *testing.T, name string, answers []string) string {
	t.Helper()
	dst := filepath.Join(b.dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(b.template, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, l := range b.lines {
		out.WriteString(strings.Replace(l, signifPlaceholder, answers[i], 1))
		out.WriteByte('\n')
	}
	writeFile(t, filepath.Join(dst, "run.json"), string(meta))
	writeFile(t, filepath.Join(dst, runner.ResultsFile), out.String())
	return dst
}

// bot answers each case right with probability acc (else another label),
// then drops a further `drop` right answers (made wrong), seeded.
func (b *signifBench) bot(r *rand.Rand, acc float64, drop int) []string {
	out := make([]string, len(b.expected))
	for i, e := range b.expected {
		out[i] = e
		if r.Float64() >= acc {
			out[i] = otherIntent(r, e)
		}
	}
	for i := 0; drop > 0 && i < len(out); i++ {
		if out[i] == b.expected[i] {
			out[i] = otherIntent(r, b.expected[i])
			drop--
		}
	}
	return out
}

// flip changes a seeded random share of the answers to another label.
func flip(r *rand.Rand, answers []string, share float64) []string {
	out := append([]string(nil), answers...)
	for i := range out {
		if r.Float64() < share {
			out[i] = otherIntent(r, out[i])
		}
	}
	return out
}

func otherIntent(r *rand.Rand, not string) string {
	for {
		if l := signifIntents[r.IntN(len(signifIntents))]; l != not {
			return l
		}
	}
}

// diffSig runs diff's evaluation and comparison of two run directories.
func diffSig(t *testing.T, dir, a, b string) *schema.Significance {
	t.Helper()
	app := &App{Stdout: new(strings.Builder), Stderr: new(strings.Builder), Getwd: dir, Env: func(string) (string, bool) { return "", false }}
	df := &diffFlags{alpha: 0.05}
	df.color = "never"
	_, _, sig, code := app.diffRuns([]string{a, b}, df)
	if sig == nil {
		t.Fatalf("diff: exit %d\n%s", code, app.Stderr)
	}
	return sig
}

// flagged lists the gated metrics whose verdict is not "no detectable
// difference".
func flagged(sig *schema.Significance) []string {
	var out []string
	for _, m := range sig.Metrics {
		if m.Gated && m.Verdict != "" && m.Verdict != schema.VerdictNoDifference {
			out = append(out, m.Metric+" "+m.Verdict)
		}
	}
	return out
}

// TestDiffAATest is the A/A test: the same bot (78 % right) run
// twice, each run with a seeded random 10 % of its answers flipped, 2,000
// cases, compared by diff at alpha 0.05, 200 seeded trials. The gated
// metrics are accuracy, error rate and the label dimension's macro F1 a
// threshold names, Holm-adjusted together (the error rate, 0 in both
// runs, is left out of the adjustment), so a trial flags a difference
// with probability at most 0.05: at most 10 of 200 expected. The test
// allows 19, 10 plus 3 binomial standard deviations (√(200·0.05·0.95) =
// 3.08). So that a test that never rejects cannot pass, accuracy's
// unadjusted McNemar p-value must fall below 0.05 in about 5 % of the
// trials too: at least 3 (the exact test is a little conservative).
func TestDiffAATest(t *testing.T) {
	if testing.Short() || underRace {
		t.Skip("200 diffs of 2,000 cases (80 s; six minutes under -race, which .ci/run skips: a statistical check, run there without it)")
	}
	b := newSignifBench(t, 2000, `threshold "意图" { condition = metrics.label.intent.macro_f1 >= 0.5 }`)
	n, raw := 0, 0
	for trial := range 200 {
		r := rand.New(rand.NewPCG(uint64(trial), 36))
		base := b.bot(r, 0.78, 0)
		ra := b.write(t, "a", flip(r, base, 0.10))
		rb := b.write(t, "b", flip(r, base, 0.10))
		sig := diffSig(t, b.dir, ra, rb)
		if f := flagged(sig); len(f) > 0 {
			n++
			t.Logf("trial %d flags %s", trial, strings.Join(f, ", "))
		}
		for _, m := range sig.Metrics {
			if m.Metric == "metrics.accuracy" && m.Test == "McNemar exact" && *m.P < 0.05 {
				raw++
			}
		}
		if trial == 0 && (len(sig.Units) != 1 || sig.Units[0].Paired != 2000) {
			t.Fatalf("units: %+v; want 2000 cases paired", sig.Units)
		}
	}
	t.Logf("A/A: %d of 200 trials flag a difference at alpha 0.05 (accuracy's McNemar p < 0.05 unadjusted: %d)", n, raw)
	if n > 19 {
		t.Errorf("A/A: %d of 200 trials flag a difference; want at most 19 (10 expected)", n)
	}
	if raw < 3 || raw > 19 {
		t.Errorf("A/A: accuracy's McNemar p < 0.05 in %d of 200 trials; want about 10 (3 to 19)", raw)
	}
}

// TestDiffFlagsFivePointDrop: the same setup with the candidate bot
// failing a further 5 % of the cases (100 of 2,000 right answers made
// wrong before the flips) is flagged worse on accuracy, and diff
// --fail-on-worse exits 1 naming it first, in every one of 20 seeded
// trials (McNemar's power here is about 98 %).
func TestDiffFlagsFivePointDrop(t *testing.T) {
	if testing.Short() || underRace {
		t.Skip("20 diffs of 2,000 cases (a statistical check .ci/run runs without -race)")
	}
	b := newSignifBench(t, 2000, "")
	for trial := range 20 {
		r := rand.New(rand.NewPCG(uint64(trial), 37))
		seed := r.Uint64()
		base := b.bot(rand.New(rand.NewPCG(seed, 1)), 0.78, 0)
		worse := b.bot(rand.New(rand.NewPCG(seed, 1)), 0.78, 100)
		ra := b.write(t, "a", flip(r, base, 0.10))
		rb := b.write(t, "b", flip(r, worse, 0.10))
		sig := diffSig(t, b.dir, ra, rb)
		if len(sig.Metrics) == 0 || sig.Metrics[0].Metric != "metrics.accuracy" || sig.Metrics[0].Verdict != schema.VerdictWorse {
			t.Errorf("trial %d: first metric %+v; want metrics.accuracy worse", trial, sig.Metrics[0])
		}
		if trial == 0 {
			code, out, errs := runCLI(t, b.dir, nil, "diff", ra, rb, "--fail-on-worse")
			if code != ExitFail || !strings.Contains(errs, "metrics.accuracy") || !strings.Contains(out, "B is worse than A on") {
				t.Errorf("diff --fail-on-worse: exit %d\n%s\n%s", code, out, errs)
			}
		}
	}
}

// TestDiffMcNemarMatchesStatsmodels: diff's p-value of accuracy on runs
// built with known discordant pairs is McNemar's exact test as
// statsmodels computes it (mcnemar([[a, b], [c, d]], exact=True).pvalue,
// statsmodels 0.13.5), and the verdict follows the direction.
func TestDiffMcNemarMatchesStatsmodels(t *testing.T) {
	b := newSignifBench(t, 1000, "")
	for _, c := range []struct {
		both, onlyA, onlyB int
		p                  float64
		verdict            string
	}{
		{700, 60, 100, 0.001953728034064355, schema.VerdictBetter},
		{700, 35, 20, 0.05806414679240905, schema.VerdictNoDifference},
		{500, 13, 0, 0.000244140625, schema.VerdictWorse},
	} {
		ans := func(right func(i int) bool) []string {
			out := make([]string, len(b.expected))
			for i, e := range b.expected {
				out[i] = e
				if !right(i) {
					out[i] = otherIntent(rand.New(rand.NewPCG(uint64(i), 0)), e)
				}
			}
			return out
		}
		ra := b.write(t, "a", ans(func(i int) bool { return i < c.both+c.onlyA }))
		rb := b.write(t, "b", ans(func(i int) bool { return i < c.both || i >= c.both+c.onlyA && i < c.both+c.onlyA+c.onlyB }))
		sig := diffSig(t, b.dir, ra, rb)
		var acc *schema.MetricChange
		for i := range sig.Metrics {
			if sig.Metrics[i].Metric == "metrics.accuracy" {
				acc = &sig.Metrics[i]
			}
		}
		if acc == nil || acc.Test != "McNemar exact" || acc.P == nil || math.Abs(*acc.P-c.p) > 1e-12*c.p || acc.Verdict != c.verdict {
			t.Errorf("both %d, only A %d, only B %d: %+v; want McNemar p %v (statsmodels), %s", c.both, c.onlyA, c.onlyB, acc, c.p, c.verdict)
			continue
		}
		if want := float64(c.onlyB-c.onlyA) / 1000; math.Abs(*acc.Diff-want) > 1e-12 || !(*acc.CILow <= want && want <= *acc.CIHigh) {
			t.Errorf("Δ %v in [%v, %v]; want %v inside its interval", *acc.Diff, *acc.CILow, *acc.CIHigh, want)
		}
	}
}

// TestPairedF1HandChecked: two targets (Chinese names, Chinese intent
// labels) answer four cases; the run against both writes comparison.json
// with the second target's significance against the first, and diff of
// the two targets' run directories gives the same figures. Hand count,
// entity dimension (correct, recognised, expected) per case:
//
//	k1 北京         旧版 北京 (1,1,1)        新版 — (0,0,1)
//	k2 上海 广州    旧版 上海 (1,1,2)        新版 上海 广州 (2,2,2)
//	k3 深圳         旧版 深圳 杭州 (1,2,1)   新版 深圳 (1,1,1)
//	k4 拉萨         旧版 拉萨 (1,1,1)        新版 西安 (0,1,1)
//
// 旧版: 4 correct of 5 recognised and 5 expected, F1 8/10 = 0.8, precision
// and recall 0.8; 新版: 3, 4, 5: F1 6/9, precision 0.75, recall 0.6; Δ F1
// −2/15. Intent: 旧版 right on all four; 新版 says 订机票 for k3 (查天气):
// 订机票 P 2/3 R 1 F1 0.8, 查天气 P 1 R 1/2 F1 2/3, macro F1 11/15.
func TestPairedF1HandChecked(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "s.nlutest.hcl"), `suite "槽位" {
  schema = "rasa"
}

target "旧版" {
  replay { source = "a.jsonl" }
}

target "新版" {
  replay { source = "b.jsonl" }
}

dataset "订票" {
  source = "cases.jsonl"
  id     = row.id
  text   = row.text
  expect = {
    "$.intent.name" = row.intent
    "$.entities"    = [for c in row.cities : { entity = "city", value = c }]
  }
}

threshold "城市" { condition = metrics.dimension.entity.f1 >= 0.5 }
`)
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"id": "k1", "text": "去北京", "intent": "订机票", "cities": ["北京"]}
{"id": "k2", "text": "上海和广州", "intent": "订机票", "cities": ["上海", "广州"]}
{"id": "k3", "text": "深圳天气", "intent": "查天气", "cities": ["深圳"]}
{"id": "k4", "text": "拉萨", "intent": "查天气", "cities": ["拉萨"]}
`)
	answer := func(id, intent string, cities ...string) string {
		var es []string
		for _, c := range cities {
			es = append(es, fmt.Sprintf(`{"entity":"city","value":%q}`, c))
		}
		return fmt.Sprintf(`{"id":%q,"text":"x","response":{"intent":{"name":%q,"confidence":0.9},"entities":[%s]}}`+"\n", id, intent, strings.Join(es, ","))
	}
	writeFile(t, filepath.Join(dir, "a.jsonl"), answer("k1", "订机票", "北京")+answer("k2", "订机票", "上海")+answer("k3", "查天气", "深圳", "杭州")+answer("k4", "查天气", "拉萨"))
	writeFile(t, filepath.Join(dir, "b.jsonl"), answer("k1", "订机票")+answer("k2", "订机票", "上海", "广州")+answer("k3", "订机票", "深圳")+answer("k4", "查天气", "西安"))
	run := filepath.Join(dir, "run")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--target", "旧版", "--target", "新版", "--out", run); code != ExitPass {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	var c schema.Comparison
	if raw, err := os.ReadFile(filepath.Join(run, "comparison.json")); err != nil || json.Unmarshal(raw, &c) != nil {
		t.Fatalf("comparison.json: %v", err)
	}
	if c.Baseline != "旧版" || len(c.Targets) != 2 || c.Targets[0].Significance != nil || c.Targets[1].Significance == nil {
		t.Fatalf("comparison: baseline %q, targets %+v; want 旧版 and 新版's significance", c.Baseline, c.Targets)
	}
	check := func(where string, sig *schema.Significance) {
		t.Helper()
		got := map[string]schema.MetricChange{}
		for _, m := range sig.Metrics {
			got[m.Metric] = m
		}
		for _, w := range []struct {
			metric      string
			a, b        float64
			test        string
			gated       bool
			lowerBetter bool
		}{
			{"metrics.dimension.entity.f1", 0.8, 6.0 / 9, "paired bootstrap", true, false},
			{"metrics.dimension.entity.precision", 0.8, 0.75, "paired bootstrap", false, false},
			{"metrics.dimension.entity.recall", 0.8, 0.6, "paired bootstrap", false, false},
			{"metrics.dimension.entity.error_rate", 0.2, 0.25, "paired bootstrap", false, true},
			{"metrics.label.intent.macro_f1", 1, 11.0 / 15, "paired bootstrap", false, false},
			{"metrics.label.intent.accuracy", 1, 0.75, "McNemar exact", false, false},
			{"metrics.accuracy", 0.5, 0.25, "McNemar exact", true, false},
			{"metrics.latency.p95_ms", 0, 0, "none", false, true},
		} {
			m, ok := got[w.metric]
			if !ok || m.Baseline == nil || m.Candidate == nil || m.Diff == nil ||
				math.Abs(*m.Baseline-w.a) > 1e-12 || math.Abs(*m.Candidate-w.b) > 1e-12 || math.Abs(*m.Diff-(w.b-w.a)) > 1e-12 ||
				m.Test != w.test || m.Gated != w.gated || m.LowerBetter != w.lowerBetter {
				t.Errorf("%s: %s = %+v; want %v → %v by %s (gated %v, lower better %v)", where, w.metric, m, w.a, w.b, w.test, w.gated, w.lowerBetter)
				continue
			}
			if w.test != "none" && (m.Verdict != schema.VerdictNoDifference || m.P == nil || m.PAdjusted == nil || m.Paired != 4 || m.Unit != "cases") {
				t.Errorf("%s: %s = %+v; want a p-value over 4 cases and no detectable difference", where, w.metric, m)
			}
		}
		if !sig.Paired || len(sig.Units) != 1 || sig.Units[0] != (schema.UnitPairs{Unit: "cases", Paired: 4}) {
			t.Errorf("%s: paired %v, units %+v; want 4 cases paired", where, sig.Paired, sig.Units)
		}
	}
	check("comparison.json", c.Targets[1].Significance)
	a, b := filepath.Join(run, "旧版"), filepath.Join(run, "新版")
	check("diff", diffSig(t, dir, a, b))
	code, out, errs := runCLI(t, dir, nil, "diff", a, b, "--fail-on-worse")
	if code != ExitPass || !strings.Contains(out, "B is not worse than A on any metric") ||
		!regexp.MustCompile(`metrics\.dimension\.entity\.f1 \(⚑\) +0\.8 \(8/10\) +0\.6667 \(6/9\) +-0\.1333 +\[-1, \+0\.333\] +0\.\d+ +1 +no detectable difference`).MatchString(out) {
		t.Errorf("diff: exit %d\n%s\n%s", code, out, errs)
	}
}
