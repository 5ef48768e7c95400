package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Options say what a live run does.
type Options struct {
	// Families are the metric families the suite was loaded with (nil:
	// assert.DefaultFamilies).
	Families  assert.Families
	SuitePath string       // the suite as given, recorded in run.json
	Target    *spec.Target // the target to call
	Selection Selection
	// Out is the run directory; "" means DefaultDir under Root.
	Out string
	// Resume continues the run recorded in this directory: only the cases
	// it has not recorded run.
	Resume string
	// Root is where the default run directory goes (.nlutest/runs).
	Root string
	// Concurrency overrides the target's calls in flight (0: the target's).
	Concurrency int
	// IncludeUnreviewed counts cases of unreviewed templates in metrics.
	IncludeUnreviewed bool
	// AllowChangedVars resumes a run recorded with other variable values
	// than the suite is loaded with (the report names them).
	AllowChangedVars bool
	// Repeat, when > 1, runs every selected script Repeat times, each in a
	// new session (--repeat N); results record the repetition.
	Repeat  int
	Version string           // the tool's version, for run.json and the report
	Now     func() time.Time // the clock; nil means time.Now
	// Notice, when set, receives what a person may want to know while the
	// run is prepared (a torn line dropped, how much a resume skips).
	Notice func(string)
}

// Run is a live run: prepared (selection counted, run directory chosen),
// resumed, executed, and reported.
type Run struct {
	Suite     *spec.Suite
	Dir       string // the run directory
	Meta      Meta   // what run.json records
	Counts    Counts // the selection's size
	Evaluator *assert.Evaluator
	Collector *assert.Collector
	// Warnings found while preparing (generation), for the report.
	Warnings []string

	opts    Options
	started time.Time
	// old is the run.json of a resumed run.
	old Meta
	// unlock releases the run directory's lock (Close).
	unlock func()
	// before is the time earlier sessions of a resumed run spent.
	before time.Duration
	// done holds the ids recorded in the run directory (resume); a
	// script of one turn records its result under the script's id.
	done *KeySet
	// dynTurns counts, per source, the recorded turns after the first of
	// dynamic scripts (scenarios): the selection counts such a script as
	// one case, as its length is known only once it ran. cutTurns counts,
	// per source, the turns that recorded scripts did not run: a script
	// ends at the turn whose call errored. dynDone counts the recorded
	// dynamic scripts.
	dynTurns map[string]int
	cutTurns map[string]int
	dynDone  int
	// session is what this session recorded (Execute): its cases, and
	// the same adjustments to the count as dynTurns, cutTurns, dynDone.
	session struct{ cases, extra, cut, dynamic int }
}

// Prepare checks the selection against the suite, counts it, and chooses
// and creates the run directory. It refuses (with an *InvalidError) a split
// the suite lacks, a selection that matches nothing, a directory that
// already holds a run (unless resuming it), and a resume with another
// target or selection than the run was made with.
func Prepare(s *spec.Suite, o Options) (*Run, error) {
	if err := o.Selection.Check(s); err != nil {
		return nil, err
	}
	// The fingerprint reads and hashes the suite's files: on the other
	// core while the selection is counted.
	fingerprint := make(chan string, 1)
	go func() { fingerprint <- s.Fingerprint() }()
	r := &Run{Suite: s, opts: o, done: NewKeySet()}
	counts, err := o.Selection.Count(s, func(msg string) { r.Warnings = append(r.Warnings, msg) })
	if err != nil {
		return nil, err
	}
	if counts.Total == 0 {
		if err := r.emptyShard(s); err != nil {
			return nil, err
		}
	}
	if err := refuseBotFirst(s, []*spec.Target{o.Target}, counts); err != nil {
		return nil, err
	}
	if o.Repeat > 1 {
		counts.Scripts *= o.Repeat
		counts.Total *= o.Repeat
		counts.Dynamic *= o.Repeat
		for k := range counts.PerSource {
			counts.PerSource[k] *= o.Repeat
		}
	}
	r.Counts = counts
	r.started = r.now()
	r.Meta = Meta{Tool: "nlutest", Version: o.Version, Suite: absPath(o.SuitePath), Target: o.Target.Name,
		SuiteName: s.Name, Fingerprint: <-fingerprint,
		Split: o.Selection.Split, Filter: o.Selection.Filter, Shard: o.Selection.Shard.String(),
		Repeat: repeatOf(o), OnlyFailed: o.Selection.OnlyFrom, Total: counts.Total, Started: r.started.UTC()}
	if err := r.chooseDir(); err != nil {
		return nil, err
	}
	if r.Meta.VarSalt == "" {
		if err := stampVars(&r.Meta, s); err != nil {
			r.Close()
			return nil, err
		}
	}
	r.Evaluator = assert.NewEvaluator(s)
	r.Collector = assert.NewCollector(s, o.Families)
	r.Collector.IncludeUnreviewed = o.IncludeUnreviewed
	return r, nil
}

// repeatOf is the --repeat the run records (0 for one run of each script).
func repeatOf(o Options) int {
	if o.Repeat > 1 {
		return o.Repeat
	}
	return 0
}

// chooseDir applies the run directory rules and creates the directory.
func (r *Run) chooseDir() error {
	r.Dir = r.opts.Out
	if r.opts.Resume != "" {
		r.Dir = r.opts.Resume
		old, err := ReadMeta(r.Dir)
		if err != nil {
			return invalidf("--resume: %v", err)
		}
		if diff := old.selectionDiff(r.Meta); len(diff) > 0 {
			return invalidf("--resume: %s was run with %s; resume it with the same selection (a flag left out takes the recorded value)", r.Dir, strings.Join(diff, ", "))
		}
		r.Meta.Started = old.Started
		r.old = old
		if err := r.checkResumeVars(old); err != nil {
			return err
		}
		r.before = old.spent(r.Dir)
	}
	if r.Dir == "" {
		r.Dir = DefaultDir(r.opts.Root, r.Suite.Name, r.started)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the run directory %s: %s", r.Dir, spec.FileError(err))
	}
	unlock, err := lockDir(r.Dir)
	if err != nil {
		return err
	}
	if r.opts.Resume == "" && holdsRun(r.Dir) {
		unlock()
		return invalidf("%s already holds a run; choose another --out directory, or continue it with --resume %s", r.Dir, r.Dir)
	}
	r.unlock = unlock
	return nil
}

// Close releases the run directory's lock, which Prepare takes and
// Execute releases when it returns; call Close when Execute is not
// called. A process that ends releases it too.
func (r *Run) Close() {
	if r.unlock != nil {
		r.unlock()
		r.unlock = nil
	}
}

// absPath is p made absolute (p itself when that fails).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func (r *Run) now() time.Time {
	if r.opts.Now != nil {
		return r.opts.Now()
	}
	return time.Now()
}

func (r *Run) notice(format string, args ...any) {
	if r.opts.Notice != nil {
		r.opts.Notice(fmt.Sprintf(format, args...))
	}
}

// ResultsPath is the run's results file.
func (r *Run) ResultsPath() string { return filepath.Join(r.Dir, runner.ResultsFile) }

// Resume, for a resumed run, repairs a torn last line of the results file
// and replays what it holds into the collector, so Execute calls only the
// cases not recorded yet. Without Options.Resume it does nothing.
func (r *Run) Resume() error {
	if r.opts.Resume == "" {
		return nil
	}
	path := r.ResultsPath()
	dropped, err := runner.RepairResults(path)
	if err != nil {
		return fmt.Errorf("cannot repair %s: %w", path, err)
	}
	if dropped > 0 {
		r.notice("dropped a torn last line (%d bytes) from %s", dropped, path)
	}
	n, sessions, err := dropCutScripts(path, r.Suite.ScriptTurns)
	if err != nil {
		return fmt.Errorf("cannot repair %s: %w", path, err)
	}
	r.noticeDropped(n, sessions)
	// A run killed before its first result has nothing to replay.
	if holdsRun(r.Dir) {
		if err := r.dropUnselected(path); err != nil {
			return err
		}
		// Rebuilt from the suite as it is now, as eval does, so run and
		// eval of the directory agree.
		stale, err := Replay(path, r.Evaluator, r.Suite.NewRebuilder(), r.Collector, r.done)
		if err != nil {
			return err
		}
		if stale > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d recorded results kept their recorded expectations: their template, text or material values changed since they were recorded", stale))
		}
		if err := r.countRecordedScripts(); err != nil {
			return err
		}
	}
	r.notice("resuming %s: %d of %s already recorded", r.Dir, r.Recorded(), r.CasesText())
	return nil
}

// dropUnselected, when the suite changed since the run was recorded
// (another fingerprint), removes from the results file the results whose
// id the selection no longer generates, and says what changed.
func (r *Run) dropUnselected(path string) error {
	if r.old.Fingerprint == "" || r.old.Fingerprint == r.Meta.Fingerprint {
		return nil
	}
	ids, dynamic := map[string]bool{}, map[string]bool{}
	err := r.opts.Selection.Generate(r.Suite, nil, func(sc *schema.Script) error {
		for i := range sc.Len() {
			ids[sc.At(i).ID] = true
		}
		ids[sc.ID] = true
		if sc.Next != nil {
			dynamic[sc.ID] = true
		}
		return nil
	})
	if err != nil {
		return &GenerateError{err}
	}
	// A dynamic script's later turns (ID/n) are known only once it ran.
	dropped, kept, err := runner.FilterResults(path, func(id string) bool {
		i := strings.LastIndexByte(id, '/')
		return ids[id] || (i > 0 && dynamic[id[:i]])
	})
	if err != nil {
		return fmt.Errorf("cannot rewrite %s: %w", path, err)
	}
	r.notice("the suite changed since %s was recorded (fingerprint %s, now %s): %d recorded results are evaluated against the suite as it is now; %d results whose case it no longer generates were dropped from %s",
		r.Dir, r.old.Fingerprint, r.Meta.Fingerprint, kept, dropped, path)
	if dropped > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the suite changed since the run began: %d results whose case it no longer generates were dropped", dropped))
	}
	return nil
}

// countRecordedScripts counts, over the selection's scripts of several
// turns already recorded, the turns after the first of dynamic ones
// (r.dynTurns, r.dynDone) and the turns that fixed ones did not run
// (r.cutTurns).
func (r *Run) countRecordedScripts() error {
	r.dynTurns, r.cutTurns = map[string]int{}, map[string]int{}
	reps := []int{0}
	if r.opts.Repeat > 1 {
		reps = reps[:0]
		for rep := 1; rep <= r.opts.Repeat; rep++ {
			reps = append(reps, rep)
		}
	}
	err := r.opts.Selection.Generate(r.Suite, nil, func(sc *schema.Script) error {
		if sc.Next == nil && sc.Len() < 2 {
			return nil
		}
		for _, rep := range reps {
			if !r.done.Has(schema.KeyOf(sc.Turns[0].ID, rep)) {
				continue
			}
			if sc.Next != nil {
				r.dynDone++
				for n := 2; r.done.Has(schema.KeyOf(sc.ID+"/"+strconv.Itoa(n), rep)); n++ {
					r.dynTurns[sc.Source]++
				}
				continue
			}
			for i := 1; i < sc.Len(); i++ {
				if !r.done.Has(schema.KeyOf(sc.At(i).ID, rep)) {
					r.cutTurns[sc.Source]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return &GenerateError{err}
	}
	return nil
}

// Counting a run's cases (docs/cli.md, "Counting"): a case is one call
// whose reply is checked, one result in results.jsonl — a single case,
// or one turn of a conversation, memory script or scenario, each
// repetition of --repeat apart. Before a run, a scenario counts as one
// case (its opening turn) and a script as all its turns; as scripts are
// recorded, the count takes the turns a scenario added and drops those
// a script did not run (it ends at a turn whose call errored).

// Recorded is how many cases the run directory held when this session
// began (a resume's earlier sessions).
func (r *Run) Recorded() int { return r.done.Len() }

// Done is how many cases the run has recorded: Recorded and those of
// this session.
func (r *Run) Done() int { return r.done.Len() + r.session.cases }

// Cases is how many cases the run has as far as is known now: the
// selection's, with the turns recorded scenarios added and recorded
// scripts did not run. While Open, scenarios not run yet may add more.
func (r *Run) Cases() int {
	n := r.Counts.Total + r.session.extra - r.session.cut
	for _, k := range r.dynTurns {
		n += k
	}
	for _, k := range r.cutTurns {
		n -= k
	}
	return n
}

// Open reports whether scenarios of the selection have not run yet:
// Cases is then the least the run will have.
func (r *Run) Open() bool { return r.Counts.Dynamic > r.dynDone+r.session.dynamic }

// CaseDelta is what recording res changes in the count of cases, known
// at a script's first turn (every turn of a recorded script carries
// ScriptTurns): the turns after the first of a scenario, less the turns
// of a script it did not run; 0 for any other result.
func (r *Run) CaseDelta(res *schema.Result) int {
	if res.Turn != 1 || res.ScriptTurns == 0 {
		return 0
	}
	planned := r.Suite.ScriptTurns(&res.Case)
	if planned == 0 { // a scenario: its turns are known as it runs
		return res.ScriptTurns - 1
	}
	return min(res.ScriptTurns-planned, 0)
}

// count counts a result this session records (see CaseDelta).
func (r *Run) count(res *schema.Result) {
	r.session.cases++
	if res.Turn != 1 || res.ScriptTurns == 0 {
		return
	}
	if planned := r.Suite.ScriptTurns(&res.Case); planned == 0 {
		r.session.dynamic++
		r.session.extra += res.ScriptTurns - 1
	} else if res.ScriptTurns < planned {
		r.session.cut += planned - res.ScriptTurns
	}
}

// CasesText is Cases as messages say it: "16 cases", "at least 45
// cases" while scenarios have not run, and under --repeat N what one
// repetition has ("16 cases (--repeat 2: each of the 8 selected cases 2
// times)").
func (r *Run) CasesText() string {
	s := fmt.Sprintf("%d cases", r.Cases())
	if r.Open() {
		s = "at least " + s
	}
	if n := r.opts.Repeat; n > 1 {
		s += fmt.Sprintf(" (--repeat %d: each of the %d selected cases %d times)", n, r.Counts.Total/n, n)
	}
	return s
}

// Todo is how many cases Execute will call, as far as is known now.
func (r *Run) Todo() int { return r.Cases() - r.Recorded() }

// Left is how many cases of each source Execute will call, as far as is
// known now: the selection's count, with the recorded scripts' turns
// added and not run, less what the collector already holds.
func (r *Run) Left() map[string]int {
	left := make(map[string]int, len(r.Counts.PerSource))
	for k, v := range r.Counts.PerSource {
		left[k] = v + r.dynTurns[k] - r.cutTurns[k]
	}
	for _, g := range r.Collector.Groups() {
		left[g.Name] -= g.Total
	}
	return left
}

// Outcome is how an executed run ended.
type Outcome struct {
	Info        schema.RunInfo // the report's run section
	Interrupted bool           // ctx was cancelled: the results are partial
	// Unrecorded counts failed calls that are not results (runner.NotAResult:
	// cut short by the interrupt, or the machine out of file descriptors):
	// they are not in the results file, and --resume calls them again.
	Unrecorded int
	// LocalFailure is the message of the first call that failed on this
	// side (out of file descriptors), when one did: the run is incomplete.
	LocalFailure string
}

// Execute writes run.json, calls the target with every selected case not
// yet recorded, appends each result to the results file (in groups: see
// runner.ResultsWriter and runner.Config.OnIdle), evaluates and
// collects it, and hands it to onResult (nil: nothing), one at a time. When
// ctx is cancelled, calls in flight get runner.CallGrace to finish; those
// that answer are recorded, those that fail are not (runner.NotAResult),
// and the outcome says Interrupted; the run is then resumable. A call that
// fails on this side (out of file descriptors) is not recorded either: the
// outcome's LocalFailure says the run is incomplete. An error means the
// run could not go on (a write failed, the suite failed to generate).
func (r *Run) Execute(ctx context.Context, caller runner.Caller, onResult func(*schema.Result)) (Outcome, error) {
	defer r.Close() // the run directory is recorded: another run may take it
	// Until this session ends, run.json holds the earlier sessions' time
	// and when this one began: a resume after a kill adds this session
	// up to its last result (Meta.spent).
	r.Meta.Seconds, r.Meta.Session = r.before.Seconds(), r.started.UTC()
	if err := WriteMeta(r.Dir, r.Meta); err != nil {
		return Outcome{}, fmt.Errorf("cannot write run metadata: %w", err)
	}
	rw, err := runner.CreateResults(r.ResultsPath())
	if err != nil {
		return Outcome{}, fmt.Errorf("cannot write results: %w", err)
	}
	col, ev := r.Collector, r.Evaluator
	removeSpills(r.Dir)
	conv := newTurnBuffer(r.Dir)
	defer conv.release()
	var out Outcome
	runErr := runner.Run(ctx, caller, r.generate, runner.Config[*assert.Evaluation]{
		Concurrency: runner.Concurrency(r.opts.Target, runner.CallerOptions{Concurrency: r.opts.Concurrency}),
		Evaluate:    ev.Evaluate,
		OnDropped: func(res *schema.Result) {
			out.Unrecorded++
			if res.Error.Local && out.LocalFailure == "" {
				out.LocalFailure = res.Error.Message
			}
		},
		OnResult: func(res *schema.Result, evaluation *assert.Evaluation) error {
			if res.Turn > 0 && res.Conversation != "" {
				script, err := conv.add(res, evaluation)
				if err != nil {
					return fmt.Errorf("writing results: %w", err)
				}
				return r.recordConversation(rw, script, onResult)
			}
			defer evaluation.Release()
			if err := rw.Add(res); err != nil {
				return fmt.Errorf("writing results: %w", err)
			}
			col.Add(res, evaluation)
			r.count(res)
			if onResult != nil {
				onResult(res)
			}
			return nil
		},
		OnIdle: func() error {
			if err := rw.Flush(); err != nil {
				return fmt.Errorf("writing results: %w", err)
			}
			return nil
		},
		IdleGap: runner.GroupWindow,
	})
	if err := rw.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing results: %w", err)
	}
	interrupted := ctx.Err() != nil
	if runErr != nil && !interrupted {
		return Outcome{}, runErr
	}
	finished := r.now()
	r.Meta.Finished = finished.UTC()
	spent := r.before + finished.Sub(r.started)
	r.Meta.Seconds, r.Meta.Session = spent.Seconds(), time.Time{}
	if err := WriteMeta(r.Dir, r.Meta); err != nil {
		return Outcome{}, fmt.Errorf("cannot write run metadata: %w", err)
	}
	info := schema.RunInfo{
		ID: filepath.Base(r.Dir), Dir: r.Dir, Target: r.Meta.Target, Split: r.Meta.Split, Filter: r.Meta.Filter,
		Started: r.Meta.Started, Finished: finished.UTC(), Seconds: spent.Seconds(),
		Interrupted: interrupted || out.LocalFailure != "", ErrorBudget: r.opts.Target.ErrorBudget,
	}
	out.Info, out.Interrupted = info, interrupted
	return out, nil
}

// recordConversation records the turns of a conversation that ended,
// together, then collects them: with one write, or, for one whose turns
// were spilled to disk (SpillTurns), read back one at a time and written
// in groups right after each other.
func (r *Run) recordConversation(rw *runner.ResultsWriter, s *openScript, onResult func(*schema.Result)) error {
	if s == nil {
		return nil
	}
	if s.spill != nil {
		defer s.spill.remove()
		err := s.spill.each(func(res *schema.Result) error {
			res.ScriptTurns = s.stamp
			if err := rw.Add(res); err != nil {
				return err
			}
			r.Collector.Add(res, nil)
			r.count(res)
			if onResult != nil {
				onResult(res)
			}
			return nil
		})
		if err == nil {
			err = rw.Flush()
		}
		if err != nil {
			return fmt.Errorf("writing results: %w", err)
		}
		return nil
	}
	turns := s.turns
	if len(turns) == 0 {
		return nil
	}
	rs := make([]*schema.Result, len(turns))
	for i, p := range turns {
		rs[i] = p.r
	}
	err := rw.WriteAll(rs)
	for _, p := range turns {
		if err == nil {
			r.Collector.Add(p.r, p.ev)
			r.count(p.r)
			if onResult != nil {
				onResult(p.r)
			}
		}
		p.ev.Release()
	}
	if err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// generate streams the selected scripts not yet recorded (each Repeat
// times under --repeat). A script counts as recorded when its first turn
// is: a conversation's turns are recorded together.
func (r *Run) generate(yield func(*schema.Script) error) error {
	return r.opts.Selection.Generate(r.Suite, nil, func(sc *schema.Script) error {
		if r.opts.Repeat <= 1 {
			if r.done.Has(scriptKey(sc)) {
				return nil
			}
			return yield(sc)
		}
		for rep := 1; rep <= r.opts.Repeat; rep++ {
			rs := repeated(sc, rep)
			if r.done.Has(scriptKey(rs)) {
				continue
			}
			if err := yield(rs); err != nil {
				return err
			}
		}
		return nil
	})
}

// Report assembles the run's report from what the collector holds.
func (r *Run) Report(out Outcome) *schema.Report {
	warnings := r.Warnings
	if n := r.Collector.Unreviewed(); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%d cases of unreviewed templates (reviewed = false) are reported apart and left out of metrics and thresholds; review their expectations, or pass --include-unreviewed", n))
	}
	return assert.BuildReport(r.Suite, r.Collector, out.Info, r.opts.Version, warnings)
}
