package main

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportFamily decodes the root node's value of a registered family from
// report.json.
func reportFamily(t *testing.T, run, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metrics map[string]json.RawMessage `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	m, ok := doc.Metrics[name]
	if !ok {
		t.Fatalf("report.json has no metrics.%s", name)
	}
	if err := json.Unmarshal(m, v); err != nil {
		t.Fatal(err)
	}
}

type ratioJSON struct{ Num, Den float64 }

// suites/dataset-qa runs end to end offline (a replay target): text
// metrics over its question-answering JSONL, robustness over its CSV
// intents and their perturbed variants, gated by thresholds; eval
// rebuilds the dataset cases; a tightened threshold fails the run.
//
// Reference values: BLEU 45.70535803887368 is what sacrebleu's own code
// (BLEU(tokenize="zh").corpus_score, run from its source on these replies
// and references) gives; EM 4/12 and F1 0.757381507 are what the MLQA
// evaluation script's normalize_answer / f1_score (lang "zh" for Chinese
// references, SQuAD v1.1's rules for English) give on them; METEOR
// 8.420176182 / 12 is NLTK 3.8's meteor_score (synonyms off) on the same
// tokens (sacrebleu zh for the Chinese cases, 13a for the English ones).
func TestDatasetQASuite(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "dataset-qa"), dir)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"Text metrics", "45.71", "BLEU signature: nrefs:var|case:mixed|eff:no|tok:zh|smooth:exp",
		"Robustness", "R = (D1 + S1) / (D + S)", "Broken under perturbation", "消取我的酒店预订"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console report lacks %q:\n%s", want, out)
		}
	}
	var text struct {
		Cases      int       `json:"cases"`
		ExactMatch ratioJSON `json:"exact_match"`
		F1         ratioJSON `json:"f1"`
		BLEU       float64   `json:"bleu"`
		BLEUScore  float64   `json:"bleu_score"`
		Distinct1  ratioJSON `json:"distinct1"`
		Meteor     ratioJSON `json:"meteor"`
	}
	reportFamily(t, run, "text", &text)
	if math.Abs(text.Meteor.Num-8.420176182) > 1e-6 || text.Meteor.Den != 12 {
		t.Errorf("METEOR %+v, want 8.420176182/12 (NLTK meteor_score)", text.Meteor)
	}
	if text.Cases != 12 || text.ExactMatch != (ratioJSON{4, 12}) || math.Abs(text.F1.Num/text.F1.Den-0.757381507) > 1e-6 {
		t.Errorf("text metrics: %+v", text)
	}
	if math.Abs(text.BLEUScore-45.70535803887368) > 1e-4 || math.Abs(text.BLEU*100-text.BLEUScore) > 1e-9 {
		t.Errorf("BLEU %v (%v), want 45.7054 as sacrebleu", text.BLEUScore, text.BLEU)
	}
	checkRobustness(t, run)
	checkShardsMerge(t, dir, text.BLEUScore)
	// The means' bootstrap intervals (issue 36) are the run's from two
	// shards merged and from eval.
	ivs := textIntervals(t, run)
	if len(ivs) != 6 {
		t.Errorf("text intervals %v, want exact_match, f1, rouge1, rouge2, rougeL and meteor", ivs)
	}
	if merged := textIntervals(t, filepath.Join(dir, "merged")); !maps.Equal(merged, ivs) {
		t.Errorf("merged shards' text intervals %v, the run's %v", merged, ivs)
	}

	if code, out, errs := runCLI(t, dir, nil, "eval", run); code != ExitPass {
		t.Errorf("eval: exit %d\n%s\n%s", code, out, errs)
	}
	if again := textIntervals(t, run); !maps.Equal(again, ivs) {
		t.Errorf("eval's text intervals %v, the run's %v", again, ivs)
	}
	suite := filepath.Join(dir, "dataset-qa.nlutest.hcl")
	src, _ := os.ReadFile(suite)
	tight := strings.Replace(string(src), "metrics.text.bleu >= 0.3", "metrics.text.bleu >= 0.5", 1)
	if tight == string(src) {
		t.Fatal("the suite's BLEU threshold changed; update this test")
	}
	if err := os.WriteFile(suite, []byte(tight), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, dir, nil, "eval", run); code != ExitFail || !strings.Contains(out, "wording") {
		t.Errorf("eval with BLEU >= 0.5: exit %d, want 1\n%s", code, out)
	}
}

// R equals (D1 + S1) / (D + S) computed from the reported counts, and the
// per-kind counts add up to S and S1.
func checkRobustness(t *testing.T, run string) {
	t.Helper()
	var rob struct {
		Original  struct{ Total, Passed int }
		Perturbed struct{ Total, Passed int }
		Score     ratioJSON
		Kind      map[string]struct{ Total, Passed int }
		Broken    []struct{ ID, Original string }
	}
	reportFamily(t, run, "robustness", &rob)
	d, d1, s, s1 := rob.Original.Total, rob.Original.Passed, rob.Perturbed.Total, rob.Perturbed.Passed
	if d != 6 || s != 18 || d1 != 6 || s1 != 15 {
		t.Errorf("D %d D1 %d S %d S1 %d, want 6 6 18 15", d, d1, s, s1)
	}
	if rob.Score.Num != float64(d1+s1) || rob.Score.Den != float64(d+s) || rob.Score.Num/rob.Score.Den != 0.875 {
		t.Errorf("score %+v, want (D1+S1)/(D+S) = 21/24", rob.Score)
	}
	var kt, kp int
	for _, k := range rob.Kind {
		kt += k.Total
		kp += k.Passed
	}
	if kt != s || kp != s1 || len(rob.Broken) != 3 {
		t.Errorf("kinds add to %d/%d, want %d/%d; broken %d", kp, kt, s1, s, len(rob.Broken))
	}
}

// Two shards merged give the same text metrics and robustness as one run:
// BLEU's statistics, the means and the robustness counts merge exactly.
func checkShardsMerge(t *testing.T, dir string, bleu float64) {
	t.Helper()
	var runs []string
	for _, sh := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, "shard"+sh[:1])
		runs = append(runs, out)
		if code, o, errs := runCLI(t, dir, nil, "run", dir, "--out", out, "--shard", sh); code == ExitInvalid || code == ExitCannotRun {
			t.Fatalf("shard %s: exit %d\n%s\n%s", sh, code, o, errs)
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, o, errs := runCLI(t, dir, nil, append([]string{"merge", "--out", merged}, runs...)...); code != ExitPass {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, errs)
	}
	var text struct {
		BLEUScore  float64   `json:"bleu_score"`
		ExactMatch ratioJSON `json:"exact_match"`
	}
	reportFamily(t, merged, "text", &text)
	if text.BLEUScore != bleu || text.ExactMatch != (ratioJSON{4, 12}) {
		t.Errorf("merged shards: BLEU %v EM %+v, want %v and 4/12", text.BLEUScore, text.ExactMatch, bleu)
	}
	checkRobustness(t, merged)
}
