package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/pipeline/pipelinetest"
	"github.com/nlutest/nlutest/runner"
)

// Shards of one run merge into the run a single machine makes; eval of
// the merged directory reports what the whole run reports.
func TestMergeShardsEqualsTheWholeRun(t *testing.T) {
	s := weatherSuite(t, 30)
	root := t.TempDir()
	whole, wholeOut := runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", ""), filepath.Join(root, "whole")), newFakeCaller())
	var dirs []string
	for _, sh := range []string{"1/3", "2/3", "3/3"} {
		d := filepath.Join(root, "shard"+sh[:1])
		runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", sh), d), newFakeCaller())
		dirs = append(dirs, d)
	}
	// A shard given twice, a shard missing, a whole run among shards are
	// refused (issue 12: they were merged as the whole release).
	_, err := pipeline.ReadShards(append(dirs, dirs[0]), false)
	wantInvalid(t, err, "given twice")
	_, err = pipeline.ReadShards(dirs[:2], false)
	wantInvalid(t, err, "shard 3/3 missing")
	// One shard alone is not the whole run either (issue 24).
	_, err = pipeline.ReadShards(dirs[1:2], false)
	wantInvalid(t, err, "shard 1/3, 3/3 missing")
	if _, err := pipeline.ReadShards(dirs[:2], true); err != nil {
		t.Errorf("--partial: %v", err)
	}
	_, err = pipeline.ReadShards(append([]string{filepath.Join(root, "whole")}, dirs...), false)
	wantInvalid(t, err, "is a whole run, not a shard")
	metas, err := pipeline.ReadShards(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "merged")
	meta, n, err := pipeline.Merge(s, out, dirs, metas, pipeline.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 60 || meta.Shard != "" || len(recordedIDs(t, filepath.Join(out, runner.ResultsFile))) != 60 {
		t.Errorf("merged %d results (shard %q), want 60 and no shard", n, meta.Shard)
	}
	_, rep, err := pipeline.Evaluate(s, []string{out}, meta, pipeline.EvalOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := whole.Report(wholeOut).Metrics, rep.Metrics
	if a.Passed != b.Passed || a.Failed != b.Failed || a.Total != b.Total {
		t.Errorf("merged: %d passed %d failed of %d; whole run: %d, %d of %d", b.Passed, b.Failed, b.Total, a.Passed, a.Failed, a.Total)
	}

	// A merged directory is never merged over.
	_, _, err = pipeline.Merge(s, out, dirs, metas, pipeline.MergeOptions{})
	wantInvalid(t, err, out+" already holds a run")
	// Only shards of one run merge.
	other := filepath.Join(root, "smoke")
	runAll(t, context.Background(), s, options(s, mustSelection(t, "smoke", "", ""), other), newFakeCaller())
	_, err = pipeline.ReadShards([]string{dirs[0], other}, false)
	wantInvalid(t, err, "only shards of one run merge")
}

// Offline evaluation of a run directory gives the live run's report, and
// refuses a directory without results.
func TestEvaluateReproducesTheRun(t *testing.T) {
	s := weatherSuite(t, 15)
	dir := filepath.Join(t.TempDir(), "run")
	run, out := runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", ""), dir), newFakeCaller())
	col, rep, err := pipeline.Evaluate(s, []string{dir}, run.Meta, pipeline.EvalOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	sameCollected(t, col, run.Collector)
	if rep.Verdict.Outcome != run.Report(out).Verdict.Outcome {
		t.Errorf("eval verdict %v, run verdict %v", rep.Verdict.Outcome, run.Report(out).Verdict.Outcome)
	}
	if err := os.Truncate(filepath.Join(dir, runner.ResultsFile), 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pipeline.Evaluate(s, []string{dir}, run.Meta, pipeline.EvalOptions{}); err == nil || !strings.Contains(err.Error(), "no results in "+dir) {
		t.Errorf("eval of an empty run: %v", err)
	}
}

// Replay reports the first bad record by its line, however the batches
// fall on the workers, and skips ids it has seen.
func TestReplayNamesTheFirstBadLine(t *testing.T) {
	s, path, err := pipelinetest.WriteEvalBench(t.TempDir(), 3000, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for _, n := range []int{2600, 1300} { // two bad lines in different batches
		lines[n-1] = []byte("{\"id\":\"bad" + strconv.Itoa(n) + "\",\"slots\":[\n")
	}
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), assert.NewCollector(s, nil), pipeline.NewKeySet())
	if err == nil || !strings.Contains(err.Error(), path+":1300: not a result record") {
		t.Errorf("replay of a file with bad lines 1300 and 2600: %v", err)
	}

	// Ids seen in an earlier directory are skipped.
	_, path, err = pipelinetest.WriteEvalBench(t.TempDir(), 100, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := pipeline.NewKeySet()
	col := assert.NewCollector(s, nil)
	for range 2 {
		if _, err := pipeline.Replay(path, assert.NewEvaluator(s), s.NewRebuilder(), col, seen); err != nil {
			t.Fatal(err)
		}
	}
	if col.Total() != 100 || seen.Len() != 100 {
		t.Errorf("the same results replayed twice count %d (seen %d), want 100", col.Total(), seen.Len())
	}
}
