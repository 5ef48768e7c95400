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
	// Families are the metric families the suite was loaded with (nil:
	// assert.DefaultFamilies).
	Families assert.Families
	// IncludeUnreviewed counts cases of unreviewed templates in metrics.
	IncludeUnreviewed bool
	Version           string // the tool's version, for the report
	// Pairing, when set, has the collector record the units a paired
	// comparison with another run of the same pairing needs
	// (assert.Collector.RecordUnits; the returned collector's Units).
	Pairing *assert.Pairing
}

// Evaluate re-evaluates the results of one or more run directories against
// s, as it is now (cases rebuilt from the suite; a result whose case no
// longer rebuilds keeps its recorded expectations and is counted in a
// warning), and builds the report. It refuses a suite of another name than
// the run's (meta.SuiteName), and dataset rows that share an id
// (spec.Suite.CheckCaseIDs). meta describes the run (the first
// directory's run.json). Each id counts once across the directories. An
// error is a record that does not decode, or no results at all.
func Evaluate(s *spec.Suite, dirs []string, meta Meta, o EvalOptions) (*assert.Collector, *schema.Report, error) {
	if meta.SuiteName != "" && meta.SuiteName != s.Name {
		return nil, nil, invalidf("%s was recorded with suite %q, not %q (%s); evaluate it with its own suite (--suite PATH)", dirs[0], meta.SuiteName, s.Name, s.Dir)
	}
	if err := s.CheckCaseIDs(); err != nil {
		return nil, nil, err
	}
	ev := assert.NewEvaluator(s)
	col := assert.NewCollector(s, o.Families)
	col.IncludeUnreviewed = o.IncludeUnreviewed
	if o.Pairing != nil {
		col.RecordUnits(o.Pairing)
	}
	rb := s.NewRebuilder()
	seen := NewKeySet()
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
	if len(meta.ChangedVars) > 0 {
		warnings = append(warnings, changedVarsWarning(meta.ChangedVars))
	}
	if len(meta.MissingShards) > 0 {
		warnings = append(warnings, fmt.Sprintf("a partial merge (--partial): shards %s only, %s missing; the metrics and verdict are those of the shards merged, not of the whole run", strings.Join(meta.Shards, ", "), strings.Join(meta.MissingShards, ", ")))
	}
	imported, err := importExternal(col, s, dirs)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, imported...)
	budget := 0.0
	if t := s.Target(meta.Target); t != nil {
		budget = t.ErrorBudget
	}
	// A run's time is its sessions' (run.json's seconds, as run reported
	// it); merged shards ran side by side: the span from the first start
	// to the last finish.
	seconds := max(meta.Finished.Sub(meta.Started).Seconds(), 0)
	if meta.Seconds > 0 && len(meta.Shards) == 0 {
		seconds = meta.Seconds
	}
	run := schema.RunInfo{
		ID: filepath.Base(dirs[0]), Dir: dirs[0], Target: meta.Target, Split: meta.Split, Filter: meta.Filter,
		Started: meta.Started, Finished: meta.Finished, Seconds: seconds, ErrorBudget: budget,
	}
	ReleaseGarbage(col.Total())
	return col, assert.BuildReport(s, col, run, o.Version, warnings), nil
}

// ReadShards reads the run.json of each directory and refuses directories
// that are not the shards of one run: another target, split or filter,
// another suite (name or fingerprint), a directory or shard given twice,
// or — unless partial — a shard missing (1/3 and 2/3 without 3/3).
func ReadShards(dirs []string, partial bool) ([]Meta, error) {
	metas := make([]Meta, len(dirs))
	byDir := map[string]string{}
	for i, d := range dirs {
		var err error
		if metas[i], err = ReadMeta(d); err != nil {
			return nil, &InvalidError{err.Error()}
		}
		if prev, ok := byDir[absPath(d)]; ok {
			return nil, invalidf("%s is given twice (as %s and %s); name each shard once", d, prev, d)
		}
		byDir[absPath(d)] = d
		m, m0 := metas[i], metas[0]
		if m.Target != m0.Target || m.Split != m0.Split || m.Filter != m0.Filter {
			return nil, invalidf("%s was run with another target, split or filter than %s; only shards of one run merge", d, dirs[0])
		}
		if m.SuiteName != m0.SuiteName || m.Fingerprint != "" && m0.Fingerprint != "" && m.Fingerprint != m0.Fingerprint {
			return nil, invalidf("%s was run with suite %q (%s), %s with suite %q (%s): only shards of one suite merge; run the shards again with the same suite", d, m.SuiteName, m.Fingerprint, dirs[0], m0.SuiteName, m0.Fingerprint)
		}
	}
	if err := checkShardSet(dirs, metas, partial); err != nil {
		return nil, err
	}
	return metas, nil
}

// checkShardSet refuses a shard given twice, shards of different splits
// into N, a whole run merged with anything, and a missing shard (unless
// partial) — one shard alone included: shard 1/2 is half a run. A whole
// run alone is complete (merged, it is copied and evaluated again).
func checkShardSet(dirs []string, metas []Meta, partial bool) error {
	if len(dirs) == 1 && metas[0].Shard == "" {
		return nil
	}
	seen := map[int]string{}
	n := 0
	for i, m := range metas {
		sh, err := ParseShard(m.Shard)
		if err != nil || sh.N == 0 {
			return invalidf("%s is a whole run, not a shard (--shard K/N); merge joins the shards of one run", dirs[i])
		}
		if n != 0 && sh.N != n {
			return invalidf("%s is shard %s, but %s is shard %s: only shards of one split into N merge", dirs[i], m.Shard, dirs[0], metas[0].Shard)
		}
		n = sh.N
		if prev, ok := seen[sh.K]; ok {
			return invalidf("shard %s is given twice: %s and %s; name each shard once", m.Shard, prev, dirs[i])
		}
		seen[sh.K] = dirs[i]
	}
	if partial {
		return nil
	}
	if missing := missingShards(metas); len(missing) > 0 {
		return invalidf("shard %s missing: a merge of some shards is not the whole run; add the missing shard, or pass --partial to report on the shards given", strings.Join(missing, ", "))
	}
	return nil
}

// missingShards lists the shards K/N of the split the metas' shards come
// from that none of them is ("2/3", "3/3"); nil when they are all there
// or the metas are not shards.
func missingShards(metas []Meta) []string {
	have := map[int]bool{}
	n := 0
	for _, m := range metas {
		if sh, err := ParseShard(m.Shard); err == nil && sh.N > 0 {
			have[sh.K], n = true, sh.N
		}
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if !have[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	return missing
}

// Merge joins shard runs (dirs, with their metas from ReadShards) into the
// run directory out: every shard's results, each id once (the first record
// wins), and a run.json spanning them. It returns the merged run's meta and
// how many results it holds. It refuses an out that already holds a run,
// and a shard recorded with other variable values than s was loaded with
// (unless o.AllowChangedVars: the merged run then names them). The
// merged run is built in a temporary directory beside out and renamed
// into place, so a failed merge leaves nothing behind.
func Merge(s *spec.Suite, out string, dirs []string, metas []Meta, o MergeOptions) (Meta, int, error) {
	if err := s.CheckCaseIDs(); err != nil {
		return Meta{}, 0, err
	}
	changed, err := checkShardVars(s, dirs, metas, o)
	if err != nil {
		return Meta{}, 0, err
	}
	if holdsRun(out) {
		return Meta{}, 0, invalidf("%s already holds a run; choose another --out directory", out)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			return Meta{}, 0, invalidf("%s is not empty; choose a new --out directory", out)
		}
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Meta{}, 0, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".merging-*")
	if err != nil {
		return Meta{}, 0, err
	}
	meta, n, err := mergeInto(tmp, dirs, metas, func(m *Meta) error {
		m.ChangedVars = changed
		return stampVars(m, s)
	})
	if err == nil {
		_ = os.Remove(out) // an empty directory made beforehand
		err = os.Rename(tmp, out)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return Meta{}, 0, err
	}
	return meta, n, nil
}

// mergeInto writes the merged results and run.json into dir; stamp sets
// the merged run's variable prints.
func mergeInto(dir string, dirs []string, metas []Meta, stamp func(*Meta) error) (Meta, int, error) {
	rw, err := runner.CreateResults(filepath.Join(dir, runner.ResultsFile))
	if err != nil {
		return Meta{}, 0, err
	}
	seen := NewKeySet()
	meta := metas[0]
	meta.Shard, meta.Total, meta.Shards = "", 0, nil
	if metas[0].Shard != "" {
		meta.MissingShards = missingShards(metas)
	}
	for i, d := range dirs {
		err := runner.ReadResults(filepath.Join(d, runner.ResultsFile), func(r *schema.Result) error {
			// Keyed as eval and resume key records: each repetition of
			// a case under --repeat is a record of its own.
			if !seen.Add(schema.KeyOf(r.ID, r.Repeat)) {
				return nil
			}
			return rw.Write(r)
		})
		if err != nil {
			rw.Close()
			return Meta{}, 0, err
		}
		meta.Total += metas[i].Total
		if metas[i].Shard != "" {
			meta.Shards = append(meta.Shards, metas[i].Shard)
		}
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
	if metas[0].Shard == "" {
		// One whole run, copied: a merged one keeps what it joins and lacks.
		meta.Shards = metas[0].Shards
	}
	if err := stamp(&meta); err != nil {
		return Meta{}, 0, err
	}
	if err := WriteMeta(dir, meta); err != nil {
		return Meta{}, 0, err
	}
	return meta, seen.Len(), nil
}
