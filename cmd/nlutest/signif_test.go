package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	expected      []string // each case's intent, in the results' order
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
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		at := strings.Index(l, `"id":"`)
		var i int
		if _, err := fmt.Sscanf(l[at+6:], "c%04d", &i); at < 0 || err != nil {
			t.Fatalf("no case id in %s", l)
		}
		b.lines = append(b.lines, l)
		b.expected = append(b.expected, signifIntents[i%len(signifIntents)])
	}
	if len(b.lines) != n || !strings.Contains(b.lines[0], signifPlaceholder) {
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
	if testing.Short() {
		t.Skip("200 diffs of 2,000 cases")
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
	if testing.Short() {
		t.Skip("20 diffs of 2,000 cases")
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
