package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// runAll prepares, resumes and executes a run of s with caller f, and
// returns the run and how it ended.
func runAll(t *testing.T, ctx context.Context, s *spec.Suite, o pipeline.Options, f *fakeCaller) (*pipeline.Run, pipeline.Outcome) {
	t.Helper()
	run, err := pipeline.Prepare(s, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Resume(); err != nil {
		t.Fatal(err)
	}
	out, err := run.Execute(ctx, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return run, out
}

// recordedIDs reads a results file: how often each id is recorded.
func recordedIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := runner.ReadResults(path, func(r *schema.Result) error { out[r.ID]++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantInvalid(t *testing.T, err error, want string) {
	t.Helper()
	var ie *pipeline.InvalidError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an InvalidError saying %q", err, want)
	}
}

func TestRunRecordsEverySelectedCaseOnce(t *testing.T) {
	s := weatherSuite(t, 20)
	dir := filepath.Join(t.TempDir(), "run")
	f := newFakeCaller()
	var seen int
	run, err := pipeline.Prepare(s, options(s, mustSelection(t, "smoke", "", ""), dir))
	if err != nil {
		t.Fatal(err)
	}
	out, err := run.Execute(context.Background(), f, func(*schema.Result) { seen++ })
	if err != nil || out.Interrupted {
		t.Fatalf("execute: %v, interrupted %v", err, out.Interrupted)
	}
	got := recordedIDs(t, run.ResultsPath())
	if len(got) != 20 || f.total() != 20 || seen != 20 {
		t.Fatalf("recorded %d cases, called %d, handed on %d; want 20 each", len(got), f.total(), seen)
	}
	rep := run.Report(out)
	if m := rep.Metrics; m.Passed != 18 || m.Failed != 2 {
		t.Errorf("passed %d failed %d, want 18 and 2 (cities ending in 7 come back wrong)", m.Passed, m.Failed)
	}
	meta, err := pipeline.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Split != "smoke" || meta.Total != 20 || meta.Target != "fake" || meta.Finished.IsZero() || !meta.Finished.After(meta.Started) {
		t.Errorf("run.json = %+v", meta)
	}
	if out.Info.ID != "run" || out.Info.Seconds <= 0 || out.Info.Split != "smoke" {
		t.Errorf("run info = %+v", out.Info)
	}
}

func TestRunDirectoryRules(t *testing.T) {
	s := weatherSuite(t, 10)
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	all := mustSelection(t, "", "", "")
	runAll(t, context.Background(), s, options(s, all, dir), newFakeCaller())

	// An existing run is never overwritten.
	_, err := pipeline.Prepare(s, options(s, all, dir))
	wantInvalid(t, err, dir+" already holds a run; choose another --out directory, or continue it with --resume "+dir)

	// A resume keeps the run's target and selection.
	for _, sel := range []pipeline.Selection{
		mustSelection(t, "smoke", "", ""),
		mustSelection(t, "", "城市", ""),
		mustSelection(t, "", "", "1/2"),
	} {
		o := options(s, sel, "")
		o.Resume = dir
		_, err := pipeline.Prepare(s, o)
		wantInvalid(t, err, "resume it with the same selection")
	}

	// Only a run directory resumes.
	o := options(s, all, "")
	o.Resume = filepath.Join(root, "nothing")
	_, err = pipeline.Prepare(s, o)
	wantInvalid(t, err, "is not a run directory (no run.json)")

	// A selection of nothing is refused before a directory is made.
	empty := filepath.Join(root, "empty")
	_, err = pipeline.Prepare(s, options(s, mustSelection(t, "smoke", "no such case", ""), empty))
	wantInvalid(t, err, "no case to run: the suite generates no case in split smoke matching --filter no such case")
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a refused run made its directory (stat: %v)", err)
	}

	// Without --out the run goes under ROOT/.nlutest/runs, named after the
	// time and the suite.
	o = options(s, all, "")
	o.Root = root
	run, err := pipeline.Prepare(s, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".nlutest", "runs", "20261201-090001-天气-测试"); run.Dir != want {
		t.Errorf("default run directory %s, want %s", run.Dir, want)
	}
}

// A run interrupted (ctx cancelled) records what finished, says so, and
// leaves a run directory that resumes: only the unrecorded cases run, a
// torn last line is dropped, and the result equals an uninterrupted run.
func TestInterruptedRunResumes(t *testing.T) {
	s := weatherSuite(t, 40)
	root := t.TempDir()
	whole, wholeOut := runAll(t, context.Background(), s, options(s, mustSelection(t, "", "", ""), filepath.Join(root, "whole")), newFakeCaller())

	dir := filepath.Join(root, "killed")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFakeCaller()
	f.stopAfter, f.cancel = 25, cancel
	first, out := runAll(t, ctx, s, options(s, mustSelection(t, "", "", ""), dir), f)
	if !out.Interrupted || !out.Info.Interrupted {
		t.Fatalf("a cancelled run should say it was interrupted: %+v", out)
	}
	done := recordedIDs(t, first.ResultsPath())
	if len(done) < 25 || len(done) >= 80 {
		t.Fatalf("the interrupted run recorded %d cases, want 25 to 79", len(done))
	}
	// A run killed while writing leaves half a line.
	fh, err := os.OpenFile(first.ResultsPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	torn := `{"id":"0000","template":"查天`
	if _, err := fh.WriteString(torn); err != nil {
		t.Fatal(err)
	}
	fh.Close()

	var notices []string
	o := options(s, mustSelection(t, "", "", ""), "")
	o.Resume = dir
	o.Notice = func(msg string) { notices = append(notices, msg) }
	g := newFakeCaller()
	resumed, out := runAll(t, context.Background(), s, o, g)
	if out.Interrupted {
		t.Fatal("the resumed run was not interrupted")
	}
	if resumed.Recorded() != len(done) || g.total() != 80-len(done) {
		t.Errorf("resume found %d recorded and called %d; want %d and %d", resumed.Recorded(), g.total(), len(done), 80-len(done))
	}
	for id := range done {
		if g.calls[id] > 0 {
			t.Errorf("case %s was recorded but called again", id)
		}
	}
	wantNotices := []string{
		"dropped a torn last line (" + strconv.Itoa(len(torn)) + " bytes) from " + resumed.ResultsPath(),
		"resuming " + dir + ": " + strconv.Itoa(len(done)) + " of 80 cases already recorded",
	}
	if strings.Join(notices, "\n") != strings.Join(wantNotices, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), strings.Join(wantNotices, "\n"))
	}
	got := recordedIDs(t, resumed.ResultsPath())
	if len(got) != 80 {
		t.Errorf("the resumed run holds %d cases, want 80", len(got))
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("case %s recorded %d times", id, n)
		}
	}
	a, b := whole.Report(wholeOut).Metrics, resumed.Report(out).Metrics
	if a.Passed != b.Passed || a.Failed != b.Failed || a.Total != b.Total || resumed.Collector.Total() != 80 {
		t.Errorf("resumed run: %d passed %d failed of %d; whole run: %d, %d of %d", b.Passed, b.Failed, b.Total, a.Passed, a.Failed, a.Total)
	}
	meta, _ := pipeline.ReadMeta(dir)
	if !meta.Started.Equal(first.Meta.Started) {
		t.Errorf("a resumed run keeps its start time: %v, want %v", meta.Started, first.Meta.Started)
	}
}

// Left counts, per template, what a resumed run still has to call.
func TestLeftCountsWhatARunStillCalls(t *testing.T) {
	s := weatherSuite(t, 10)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFakeCaller()
	f.stopAfter, f.cancel = 4, cancel
	runAll(t, ctx, s, options(s, mustSelection(t, "", "", ""), dir), f)
	o := options(s, mustSelection(t, "", "", ""), "")
	o.Resume = dir
	run, err := pipeline.Prepare(s, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Resume(); err != nil {
		t.Fatal(err)
	}
	left := run.Left()
	if left["查天气"]+left["订机票"] != run.Todo() || run.Todo() != 20-run.Recorded() || run.Recorded() < 4 {
		t.Errorf("left %v, todo %d, recorded %d of 20", left, run.Todo(), run.Recorded())
	}
}
