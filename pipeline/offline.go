package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// EvalOptions say how saved results are evaluated offline.
type EvalOptions struct {
	// IncludeUnreviewed counts cases of unreviewed templates in metrics.
	IncludeUnreviewed bool
	Version           string // the tool's version, for the report
}

// Evaluate re-evaluates the results of one or more run directories against
// s, as it is now (cases rebuilt from the suite; a result whose case no
// longer rebuilds keeps its recorded expectations and is counted in a
// warning), and builds the report. meta describes the run (the first
// directory's run.json). Each id counts once across the directories. An
// error is a record that does not decode, or no results at all.
func Evaluate(s *spec.Suite, dirs []string, meta Meta, o EvalOptions) (*assert.Collector, *schema.Report, error) {
	ev := assert.NewEvaluator(s)
	col := assert.NewCollector(s)
	col.IncludeUnreviewed = o.IncludeUnreviewed
	rb := s.NewRebuilder()
	seen := map[string]bool{}
	var warnings []string
	for _, d := range dirs {
		stale, err := Replay(filepath.Join(d, runner.ResultsFile), ev, rb, col, seen)
		if err != nil {
			return nil, nil, err
		}
		if stale > 0 {
			warnings = append(warnings, fmt.Sprintf("%d results of %s kept their recorded expectations: their template, text or material values changed since the run", stale, d))
		}
	}
	if col.Total() == 0 && col.Unreviewed() == 0 {
		return nil, nil, fmt.Errorf("no results in %s", strings.Join(dirs, ", "))
	}
	if col.Unreviewed() > 0 {
		warnings = append(warnings, fmt.Sprintf("%d cases of unreviewed templates are reported apart and left out of metrics and thresholds", col.Unreviewed()))
	}
	budget := 0.0
	if t := s.Target(meta.Target); t != nil {
		budget = t.ErrorBudget
	}
	run := schema.RunInfo{
		ID: filepath.Base(dirs[0]), Dir: dirs[0], Target: meta.Target, Split: meta.Split, Filter: meta.Filter,
		Started: meta.Started, Finished: meta.Finished, Seconds: max(meta.Finished.Sub(meta.Started).Seconds(), 0), ErrorBudget: budget,
	}
	return col, assert.BuildReport(s, col, run, o.Version, warnings), nil
}

// ReadShards reads the run.json of each directory and refuses directories
// that are not shards of one run (another target, split or filter).
func ReadShards(dirs []string) ([]Meta, error) {
	metas := make([]Meta, len(dirs))
	for i, d := range dirs {
		var err error
		if metas[i], err = ReadMeta(d); err != nil {
			return nil, &InvalidError{err.Error()}
		}
		if metas[i].Target != metas[0].Target || metas[i].Split != metas[0].Split || metas[i].Filter != metas[0].Filter {
			return nil, invalidf("%s was run with another target, split or filter than %s; only shards of one run merge", d, dirs[0])
		}
	}
	return metas, nil
}

// Merge joins shard runs (dirs, with their metas from ReadShards) into the
// run directory out: every shard's results, each id once (the first record
// wins), and a run.json spanning them. It returns the merged run's meta and
// how many results it holds. It refuses an out that already holds a run.
func Merge(out string, dirs []string, metas []Meta) (Meta, int, error) {
	if holdsRun(out) {
		return Meta{}, 0, invalidf("%s already holds a run; choose another --out directory", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Meta{}, 0, err
	}
	rw, err := runner.CreateResults(filepath.Join(out, runner.ResultsFile))
	if err != nil {
		return Meta{}, 0, err
	}
	seen := map[string]bool{}
	meta := metas[0]
	meta.Shard, meta.Total = "", 0
	for i, d := range dirs {
		err := runner.ReadResults(filepath.Join(d, runner.ResultsFile), func(r *schema.Result) error {
			if seen[r.ID] {
				return nil
			}
			seen[r.ID] = true
			return rw.Write(r)
		})
		if err != nil {
			rw.Close()
			return Meta{}, 0, err
		}
		meta.Total += metas[i].Total
		if metas[i].Started.Before(meta.Started) {
			meta.Started = metas[i].Started
		}
		if metas[i].Finished.After(meta.Finished) {
			meta.Finished = metas[i].Finished
		}
	}
	if err := rw.Close(); err != nil {
		return Meta{}, 0, err
	}
	if err := WriteMeta(out, meta); err != nil {
		return Meta{}, 0, err
	}
	return meta, len(seen), nil
}
