package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
)

// Issue 12, item 9: a resume after the suite was edited drops the results
// whose case the suite no longer generates, rebuilds the rest as eval
// does, and says what changed; run and eval of the directory then agree.
func TestResumeAfterEditingTheSuite(t *testing.T) {
	s := weatherSuite(t, 20) // 40 cases
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFakeCaller()
	f.stopAfter, f.cancel = 30, cancel
	first, _ := runAll(t, ctx, s, options(s, mustSelection(t, "", "", ""), dir), f)
	if first.Meta.Fingerprint == "" || first.Meta.SuiteName != s.Name || !filepath.IsAbs(first.Meta.Suite) {
		t.Errorf("run.json: fingerprint %q, suite name %q, suite path %q (want all set, the path absolute)", first.Meta.Fingerprint, first.Meta.SuiteName, first.Meta.Suite)
	}
	edited := weatherSuite(t, 10) // 20 cases, all among the first 40
	var notices []string
	o := options(edited, mustSelection(t, "", "", ""), "")
	o.Resume = dir
	o.Notice = func(m string) { notices = append(notices, m) }
	run, err := pipeline.Prepare(edited, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Resume(); err != nil {
		t.Fatal(err)
	}
	out, err := run.Execute(context.Background(), newFakeCaller(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notices, "\n"), "the suite changed since") {
		t.Errorf("notices do not say the suite changed: %q", notices)
	}
	got := recordedIDs(t, filepath.Join(dir, runner.ResultsFile))
	if len(got) != 20 || run.Collector.Total() != 20 {
		t.Errorf("results file holds %d cases, collector %d; want the 20 the edited suite generates", len(got), run.Collector.Total())
	}
	rep := run.Report(out)
	_, evalRep, err := pipeline.Evaluate(edited, []string{dir}, run.Meta, pipeline.EvalOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rep.Metrics, evalRep.Metrics; a.Total != b.Total || a.Passed != b.Passed {
		t.Errorf("run says %d of %d passed, eval %d of %d", a.Passed, a.Total, b.Passed, b.Total)
	}
}

// Issue 12, item 10: eval refuses a suite of another name than the run's.
func TestEvalRefusesAnotherSuite(t *testing.T) {
	s := weatherSuite(t, 5)
	dir := filepath.Join(t.TempDir(), "run")
	run, _ := runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", ""), dir), newFakeCaller())
	meta := run.Meta
	meta.SuiteName = "另一个"
	_, _, err := pipeline.Evaluate(s, []string{dir}, meta, pipeline.EvalOptions{})
	wantInvalid(t, err, `recorded with suite "另一个"`)
}

// Issue 12, item 11: shards of different suites are refused, and a failed
// merge leaves nothing that blocks the retry.
func TestMergeRefusesAndFailsCleanly(t *testing.T) {
	root := t.TempDir()
	s := weatherSuite(t, 10)
	var dirs []string
	for _, sh := range []string{"1/2", "2/2"} {
		d := filepath.Join(root, "shard"+sh[:1])
		runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", sh), d), newFakeCaller())
		dirs = append(dirs, d)
	}
	other := weatherSuite(t, 11)
	od := filepath.Join(root, "other2")
	runAll(t, context.Background(), other, options(other, mustSelection(t, "", "", "2/2"), od), newFakeCaller())
	_, err := pipeline.ReadShards([]string{dirs[0], od}, false)
	wantInvalid(t, err, "only shards of one suite merge")

	metas, err := pipeline.ReadShards(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	// A corrupt record in the second shard fails the merge half-way.
	res := filepath.Join(dirs[1], runner.ResultsFile)
	good, _ := os.ReadFile(res)
	if err := os.WriteFile(res, append(append([]byte{}, good...), "{not json\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "merged")
	if _, _, err := pipeline.Merge(s, out, dirs, metas, pipeline.MergeOptions{}); err == nil {
		t.Fatal("a corrupt shard merged")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed merge left %s behind (%v)", out, err)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.Contains(e.Name(), "merging") {
			t.Errorf("a failed merge left %s behind", e.Name())
		}
	}
	if err := os.WriteFile(res, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n, err := pipeline.Merge(s, out, dirs, metas, pipeline.MergeOptions{}); err != nil || n != 20 {
		t.Errorf("the retry: %d results, %v", n, err)
	}
	m, _ := pipeline.ReadMeta(out)
	if strings.Join(m.Shards, " ") != "1/2 2/2" {
		t.Errorf("merged run.json lists shards %v", m.Shards)
	}
}

// A run directory is locked while a run prepares and records into it.
func TestRunDirectoryLock(t *testing.T) {
	s := weatherSuite(t, 5)
	dir := filepath.Join(t.TempDir(), "run")
	first, err := pipeline.Prepare(s, options(s, mustSelection(t, "", "", ""), dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Prepare(s, options(s, mustSelection(t, "", "", ""), dir))
	wantInvalid(t, err, "in use by another nlutest run")
	first.Close()
	second, err := pipeline.Prepare(s, options(s, mustSelection(t, "", "", ""), dir))
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	second.Close()
}
