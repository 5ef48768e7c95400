package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/history"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// DefaultHistoryFile is where `nlutest history` keeps runs unless
// --history says otherwise, under the working directory.
const DefaultHistoryFile = ".nlutest/history.db"

// historyFlags are the flags run, eval and merge share with `history
// add`: the history file and how the run is named in it.
type historyFlags struct {
	path, label, commit string
}

// register registers --history, --label and --commit; def is the
// default history file ("" on run, eval and merge: no history).
func (hf *historyFlags) register(fs *flag.FlagSet, def string) {
	help := "record the finished run in the history FILE (created if needed) and read the earlier runs from it: the thresholds' trends and the drift gate (history blocks)"
	if def != "" {
		help = "the history file"
	}
	fs.StringVar(&hf.path, "history", def, help)
	fs.StringVar(&hf.label, "label", "", "the run's name in the history (a version, a build); default the commit's first 12 characters, else the run id")
	fs.StringVar(&hf.commit, "commit", "", "the commit the run tested (default $GIT_COMMIT, $GITHUB_SHA or $CI_COMMIT_SHA)")
}

// resolve fills the commit and label defaults from the environment.
func (hf *historyFlags) resolve(a *App) {
	for _, k := range []string{"GIT_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA"} {
		if hf.commit == "" {
			hf.commit = strings.TrimSpace(a.getenv(k))
		}
	}
	if hf.label == "" && hf.commit != "" {
		hf.label = hf.commit[:min(12, len(hf.commit))]
	}
}

// historyPath is the history file's path relative to the working
// directory.
func (a *App) historyPath(p string) string {
	if p == "" || filepath.IsAbs(p) || a.Getwd == "" {
		return p
	}
	return filepath.Join(a.Getwd, p)
}

// historyFail prints a history error and returns its exit code: 2 for a
// file that is not a usable history or a report that cannot be recorded,
// 3 for a file locked too long.
func (a *App) historyFail(err error) int {
	var (
		fe *history.FileError
		le *history.LockedError
	)
	switch {
	case errors.As(err, &fe):
		fmt.Fprintf(a.Stderr, "nlutest: history: %s\n", fe)
		return ExitInvalid
	case errors.As(err, &le):
		fmt.Fprintf(a.Stderr, "nlutest: history: %s\n", le)
		return ExitCannotRun
	}
	var ue usageError
	if errors.As(err, &ue) {
		return a.fail(err)
	}
	fmt.Fprintf(a.Stderr, "nlutest: history: %s\n", err)
	return ExitInvalid
}

// checkHistory opens the history file of --history once before a run
// calls anything, so a damaged, foreign or locked file stops it at once
// (a file not there yet is made when the run is recorded).
func (a *App) checkHistory(hf *historyFlags) int {
	if hf.path == "" {
		return ExitPass
	}
	if _, err := os.Stat(a.historyPath(hf.path)); errors.Is(err, os.ErrNotExist) {
		return ExitPass
	}
	st, err := history.Open(a.historyPath(hf.path), history.Options{})
	if err != nil {
		return a.historyFail(err)
	}
	_ = st.Close()
	return ExitPass
}

// applyHistory adds the thresholds' history and the drift gates' answers
// to rep, from the runs of --history before this one (none without it:
// a drift gate then answers no data).
func (a *App) applyHistory(s *spec.Suite, rep *schema.Report, hf *historyFlags) int {
	hf.resolve(a)
	o := assert.HistoryOptions{Label: hf.label, Commit: hf.commit}
	if hf.path != "" {
		st, err := history.Open(a.historyPath(hf.path), history.Options{})
		if err != nil {
			return a.historyFail(err)
		}
		runs, err := st.Runs(rep.Suite.Name, rep.Run.Target)
		_ = st.Close()
		if err != nil {
			return a.historyFail(err)
		}
		earlier := earlierRuns(runs, rep)
		o.Past = func(steps []string) []schema.HistoryPoint {
			pts := make([]schema.HistoryPoint, len(earlier))
			for i, r := range earlier {
				pts[i] = r.Point(steps)
			}
			return pts
		}
	}
	assert.ApplyHistory(s, rep, o)
	return ExitPass
}

// earlierRuns are the runs recorded before rep's run finished, without
// rep's own (an eval of a recorded run compares it with those before it).
func earlierRuns(runs []*history.Run, rep *schema.Report) []*history.Run {
	var out []*history.Run
	for _, r := range runs {
		if r.ID != rep.Run.ID && (rep.Run.Finished.IsZero() || r.When().Before(rep.Run.Finished)) {
			out = append(out, r)
		}
	}
	return out
}

// recordHistory adds the finished run to --history, after its reports
// were written with exit code code, and returns the command's exit code.
func (a *App) recordHistory(rep *schema.Report, hf *historyFlags, code int) int {
	if hf.path == "" || code == ExitCannotRun {
		return code
	}
	if rep.Run.Interrupted {
		fmt.Fprintf(a.Stderr, "nlutest: history: the run was interrupted, so it was not recorded in %s\n", hf.path)
		return code
	}
	b, err := json.Marshal(historyRecord{Tool: "nlutest", Suite: rep.Suite, Run: rep.Run, Verdict: rep.Verdict, Thresholds: rep.Thresholds, Intervals: rep.Intervals, Metrics: rep.Metrics})
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: history: %s\n", err)
		return ExitCannotRun
	}
	r, err := history.FromReport(b, "the run's report")
	if err != nil {
		return a.historyFail(err)
	}
	if c := a.addRuns(hf, 0, []*history.Run{r}); c != ExitPass {
		return c
	}
	return code
}

// historyRecord is the part of a report a history keeps, written as
// report.json writes it.
type historyRecord struct {
	Tool       string                   `json:"tool"`
	Suite      schema.SuiteInfo         `json:"suite"`
	Run        schema.RunInfo           `json:"run"`
	Verdict    schema.Verdict           `json:"verdict"`
	Thresholds []schema.ThresholdResult `json:"thresholds"`
	Intervals  *schema.Intervals        `json:"intervals,omitempty"`
	Metrics    *schema.Metrics          `json:"metrics"`
}

// addRuns records runs in the history file with the flags' label and
// commit (keep > 0 sets the store's bound first), and says what it did.
func (a *App) addRuns(hf *historyFlags, keep int, runs []*history.Run) int {
	hf.resolve(a)
	st, err := history.Open(a.historyPath(hf.path), history.Options{})
	if err != nil {
		return a.historyFail(err)
	}
	defer st.Close()
	if keep > 0 {
		if err := st.SetKeep(keep); err != nil {
			return a.historyFail(err)
		}
	}
	for _, r := range runs {
		r.Label, r.Commit, r.Added = hf.label, hf.commit, a.now().UTC()
		res, err := st.Add(r)
		if err != nil {
			return a.historyFail(err)
		}
		what := "recorded"
		if res.Replaced {
			what = "replaced"
		}
		fmt.Fprintf(a.Stderr, "nlutest: history: %s run %s (%s) of suite %q, target %q in %s: %d run%s kept", what, r.ID, r.Name(), r.Suite, r.Target, hf.path, res.Runs, plural(res.Runs))
		if res.Dropped > 0 {
			fmt.Fprintf(a.Stderr, ", the %d oldest dropped", res.Dropped)
		}
		fmt.Fprintln(a.Stderr)
	}
	return ExitPass
}

const historyUsage = `Usage:
  nlutest history add RUN_DIR... [--history FILE] [--label L] [--commit C] [--keep N]
  nlutest history show [--history FILE] [--suite S] [--target T] [--metric M]... [--last K] [--format text|markdown|json]
  nlutest history list [--history FILE] [--suite S] [--target T]
  nlutest history remove --run ID_OR_LABEL... [--history FILE] [--suite S] [--target T]

The history file (default .nlutest/history.db) keeps finished runs' metrics per suite and target;
run, eval and merge add to it with --history FILE. See docs/cli.md.
`

// cmdHistory runs `nlutest history SUBCOMMAND`.
func (a *App) cmdHistory(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.Stderr, historyUsage)
		return ExitInvalid
	}
	switch args[0] {
	case "add":
		return a.historyAdd(args[1:])
	case "show":
		return a.historyShow(args[1:])
	case "list":
		return a.historyList(args[1:])
	case "remove":
		return a.historyRemove(args[1:])
	case "-h", "--help", "help":
		fmt.Fprint(a.Stdout, historyUsage)
		return ExitPass
	}
	return a.fail(usagef("unknown history command %q (add, show, list or remove)%s", args[0], didYouMeanWord(args[0], []string{"add", "show", "list", "remove"})))
}

// didYouMeanWord suggests the word of words closest to w.
func didYouMeanWord(w string, words []string) string {
	for _, c := range words {
		if strings.HasPrefix(c, w) || strings.HasPrefix(w, c) {
			return fmt.Sprintf("; did you mean %q?", c)
		}
	}
	return ""
}

// historyAdd records run directories (or report.json files).
func (a *App) historyAdd(args []string) int {
	var hf historyFlags
	fs := newFlagSet(a, "history add", "history add RUN_DIR... [flags]")
	hf.register(fs, DefaultHistoryFile)
	keep := fs.Int("keep", 0, "keep at most N runs per suite and target in the file from now on, dropping the oldest (default 1000)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) == 0 {
		return a.fail(usagef("history add takes one or more run directories (or report.json files)"))
	}
	if *keep < 0 {
		return a.fail(usagef("--keep must be at least 1"))
	}
	var runs []*history.Run
	for _, p := range pos {
		path := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			path = filepath.Join(p, pipeline.ReportFile)
		}
		b, _, err := spec.OwnFiles.Read("", path, spec.MaxDataBytes)
		if err != nil {
			return a.historyFail(fmt.Errorf("%s: %s (history add takes a run directory holding report.json, or a report.json)", p, spec.FileError(err)))
		}
		r, err := history.FromReport(b, path)
		if err != nil {
			return a.historyFail(err)
		}
		runs = append(runs, r)
	}
	return a.addRuns(&hf, *keep, runs)
}

// seriesFilter are the --suite and --target flags of show, list and
// remove.
type seriesFilter struct{ suite, target string }

func (f *seriesFilter) register(fs *flag.FlagSet) {
	fs.StringVar(&f.suite, "suite", "", "only the suite named S (the suite block's name)")
	fs.StringVar(&f.target, "target", "", "only the target named T")
}

// pick returns the series the filter selects, or a usage error naming
// what the file holds.
func (f *seriesFilter) pick(all []history.Series) ([]history.Series, error) {
	var out []history.Series
	for _, s := range all {
		if (f.suite == "" || s.Suite == f.suite) && (f.target == "" || s.Target == f.target) {
			out = append(out, s)
		}
	}
	if len(out) == 0 && (f.suite != "" || f.target != "") {
		var have []string
		for _, s := range all {
			have = append(have, fmt.Sprintf("suite %q target %q", s.Suite, s.Target))
		}
		if len(have) == 0 {
			have = []string{"no run"}
		}
		return nil, usagef("the history holds no run of suite %q target %q; it holds %s", f.suite, f.target, strings.Join(have, ", "))
	}
	return out, nil
}

// openHistory opens the history file for reading and lists the series
// the filter selects.
func (a *App) openHistory(path string, f *seriesFilter) (*history.Store, []history.Series, int) {
	st, err := history.Open(a.historyPath(path), history.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, a.historyFail(err)
	}
	all, err := st.Series()
	if err != nil {
		st.Close()
		return nil, nil, a.historyFail(err)
	}
	series, err := f.pick(all)
	if err != nil {
		st.Close()
		return nil, nil, a.fail(err)
	}
	return st, series, ExitPass
}

// historyShow prints each gated metric's series, slope and changes.
func (a *App) historyShow(args []string) int {
	var f seriesFilter
	fs := newFlagSet(a, "history show", "history show [flags]")
	path := fs.String("history", DefaultHistoryFile, "the history file")
	f.register(fs)
	var metrics listFlag
	fs.Var(&metrics, "metric", "a metric to show (metrics.accuracy, metrics.split.smoke.accuracy); repeatable (default: every metric the last run's thresholds read, else metrics.accuracy)")
	last := fs.Int("last", assert.DefaultTrendRuns, "show the last K runs; the slope and changes are over them")
	format := fs.String("format", "text", "output: text, markdown or json")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	switch {
	case len(pos) > 0:
		return a.fail(usagef("history show takes flags only, not %q", pos[0]))
	case *last < 1:
		return a.fail(usagef("--last must be at least 1"))
	case !slices.Contains([]string{"text", "markdown", "json"}, *format):
		return a.fail(usagef("--format takes text, markdown or json, not %q", *format))
	}
	for _, m := range metrics {
		if _, _, err := history.ParseAddress(m); err != nil {
			return a.fail(usagef("--metric: %v", err))
		}
	}
	st, series, code := a.openHistory(*path, &f)
	if st == nil {
		return code
	}
	defer st.Close()
	var out []reporters.HistorySeries
	for _, s := range series {
		runs, err := st.Runs(s.Suite, s.Target)
		if err != nil {
			return a.historyFail(err)
		}
		out = append(out, showSeries(s, runs, metrics, *last))
	}
	return a.printHistory(*path, *format, out)
}

// showSeries lays out one suite and target's metrics over its last runs.
func showSeries(s history.Series, runs []*history.Run, metrics []string, last int) reporters.HistorySeries {
	hs := reporters.HistorySeries{Suite: s.Suite, Target: s.Target, Runs: s.Runs, First: s.First, Last: s.Last, Gates: map[string][]string{}}
	runs = runs[max(0, len(runs)-last):]
	names := metrics
	if len(names) == 0 {
		names = gatedMetrics(runs[len(runs)-1], hs.Gates)
	}
	for _, name := range names {
		steps, _, _ := history.ParseAddress(name)
		m := schema.MetricHistory{Metric: name}
		var seed uint64
		conf := 0.0
		for _, r := range runs {
			m.Points = append(m.Points, r.Point(steps))
			if r.Intervals != nil {
				seed, conf = r.Intervals.Seed, r.Intervals.Confidence
			}
		}
		m.Slope, m.Changes = assert.Trend(m.Points, seed, conf, "history/"+s.Suite+"/"+s.Target+"/"+name)
		hs.Metrics = append(hs.Metrics, m)
	}
	return hs
}

// gatedMetrics are the metrics the run's thresholds read (bounds stand
// for their metric), recording in gates which thresholds read each;
// metrics.accuracy when it has none.
func gatedMetrics(r *history.Run, gates map[string][]string) []string {
	var names []string
	for _, th := range r.Thresholds {
		for _, m := range th.Metrics {
			steps, bound, err := history.ParseAddress(m)
			if err != nil {
				continue
			}
			if bound != "" {
				m = strings.TrimSuffix(m, "."+bound)
			}
			_ = steps
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
			if !slices.Contains(gates[m], th.Name) {
				gates[m] = append(gates[m], th.Name)
			}
		}
	}
	if len(names) == 0 {
		names = []string{"metrics.accuracy"}
	}
	return names
}

// printHistory writes the series in format.
func (a *App) printHistory(path, format string, series []reporters.HistorySeries) int {
	var out bytes.Buffer
	var err error
	switch format {
	case "json":
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if series == nil {
			series = []reporters.HistorySeries{}
		}
		err = enc.Encode(struct {
			History string                    `json:"history"`
			Series  []reporters.HistorySeries `json:"series"`
		}{path, series})
	case "markdown":
		err = reporters.MarkdownView(&out, reporters.HistoryView(path, series), reporters.Options{})
	default:
		err = reporters.ConsoleView(&out, reporters.HistoryView(path, series), reporters.Options{Color: a.useColor("auto", a.StdoutTTY)})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: history show: %s\n", err)
		return ExitCannotRun
	}
	if _, err := a.Stdout.Write(out.Bytes()); err != nil && !closedPipe(err) {
		return ExitCannotRun
	}
	return ExitPass
}

// historyList lists the suites and targets of the file and their runs.
func (a *App) historyList(args []string) int {
	var f seriesFilter
	fs := newFlagSet(a, "history list", "history list [flags]")
	path := fs.String("history", DefaultHistoryFile, "the history file")
	f.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) > 0 {
		return a.fail(usagef("history list takes flags only, not %q", pos[0]))
	}
	st, series, code := a.openHistory(*path, &f)
	if st == nil {
		return code
	}
	defer st.Close()
	var b strings.Builder
	for _, s := range series {
		fmt.Fprintf(&b, "suite %q target %q: %d run%s, %s – %s\n", s.Suite, s.Target, s.Runs, plural(s.Runs), fmtTime(s.First), fmtTime(s.Last))
		runs, err := st.Runs(s.Suite, s.Target)
		if err != nil {
			return a.historyFail(err)
		}
		for _, r := range runs {
			fmt.Fprintf(&b, "  %3d  %s  %-7s %s  label %s  commit %s\n", r.Number, fmtTime(r.When()), r.Verdict, r.ID, orDash(r.Label), orDash(r.Commit))
		}
	}
	if len(series) == 0 {
		b.WriteString("the history holds no run\n")
	}
	fmt.Fprint(a.Stdout, b.String())
	return ExitPass
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// historyRemove deletes runs named by id or label.
func (a *App) historyRemove(args []string) int {
	var f seriesFilter
	fs := newFlagSet(a, "history remove", "history remove --run ID_OR_LABEL... [flags]")
	path := fs.String("history", DefaultHistoryFile, "the history file")
	f.register(fs)
	var names listFlag
	fs.Var(&names, "run", "a run to remove, by its id or its label; repeatable")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) > 0 || len(names) == 0 {
		return a.fail(usagef("history remove takes --run ID_OR_LABEL (repeatable), and --suite and --target when the file holds several"))
	}
	st, err := history.Open(a.historyPath(*path), history.Options{})
	if err != nil {
		return a.historyFail(err)
	}
	defer st.Close()
	all, err := st.Series()
	if err != nil {
		return a.historyFail(err)
	}
	series, err := f.pick(all)
	if err != nil {
		return a.fail(err)
	}
	total := 0
	for _, s := range series {
		n, err := st.Remove(s.Suite, s.Target, func(r *history.Run) bool {
			return slices.Contains(names, r.ID) || r.Label != "" && slices.Contains(names, r.Label)
		})
		if err != nil {
			return a.historyFail(err)
		}
		total += n
	}
	if total == 0 {
		return a.fail(usagef("no run of the history has the id or label %s (nlutest history list shows them)", strings.Join(names, ", ")))
	}
	fmt.Fprintf(a.Stderr, "nlutest: history: removed %d run%s from %s\n", total, plural(total), *path)
	return ExitPass
}
