package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Files of a run directory (besides runner.ResultsFile).
const (
	MetaFile   = "run.json"    // Meta: how the run was made
	ReportFile = "report.json" // the JSON report
)

// Meta records how a run was made, so eval, merge and resume can find the
// suite and repeat the selection. It holds no variable values (secrets
// never reach disk; pass the same --var flags again), only salted prints
// of them, which --resume and merge check (vars.go).
type Meta struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// Suite is the suite's path, absolute (so eval finds it from any
	// directory); runs recorded before it was made absolute hold it as
	// typed.
	Suite string `json:"suite"`
	// SuiteName and Fingerprint (spec.Suite.Fingerprint) identify the
	// suite the run was made with: eval refuses another suite, resume
	// says what changed, merge refuses shards of different suites.
	SuiteName   string `json:"suite_name,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Shards lists the shards a merged run joins ("1/3", "2/3", "3/3").
	Shards []string `json:"shards,omitempty"`
	// MissingShards lists the shards a partial merge (merge --partial)
	// lacks: its report says it is not the whole run.
	MissingShards []string `json:"missing_shards,omitempty"`
	Target        string   `json:"target"`
	Split         string   `json:"split,omitempty"`
	Filter        string   `json:"filter,omitempty"`
	Shard         string   `json:"shard,omitempty"`
	// Repeat is --repeat N (0 without it).
	Repeat   int       `json:"repeat,omitempty"`
	Total    int       `json:"total"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitempty"`
	// Seconds is the time spent running, summed over the sessions of a
	// resumed run (the pauses between them left out). While a session
	// runs it holds the earlier sessions' time, and Session when this one
	// began.
	Seconds float64 `json:"seconds,omitempty"`
	// Session is when the session running now began; a session that
	// ends (finished, interrupted, failed) clears it. A run.json that
	// still holds it was left by a session killed outright (SIGKILL, a
	// lost machine): resume counts that session up to its last recorded
	// result (spent).
	Session time.Time `json:"session,omitzero"`
	// VarSalt and VarPrints fingerprint the variable values the run was
	// made with: per variable name, a salted HMAC-SHA256 of its value
	// (stretched first for a sensitive one), never the value; runs made
	// before 2026-12 have neither. ChangedVars names the variables whose
	// values changed within the run (--allow-changed-vars).
	VarSalt     string            `json:"var_salt,omitempty"`
	VarPrints   map[string]string `json:"var_prints,omitempty"`
	ChangedVars []string          `json:"changed_vars,omitempty"`
	// OnlyFailed is the earlier run whose failing and erroring cases this
	// run re-runs (run --only-failed).
	OnlyFailed string `json:"only_failed,omitempty"`
}

// selectionDiff names what of the target and selection of a run
// recorded with m differs from o's, each as the recorded flag and, in
// parentheses, the one asked for now (`--repeat 3 (now 2)`); nil when
// they are the same.
func (m Meta) selectionDiff(o Meta) []string {
	var diff []string
	add := func(flag, was, now string) {
		if was != now {
			diff = append(diff, fmt.Sprintf("%s %s (now %s)", flag, was, now))
		}
	}
	add("--target", shownFlag(m.Target), shownFlag(o.Target))
	add("--split", shownFlag(m.Split), shownFlag(o.Split))
	add("--filter", shownFlag(m.Filter), shownFlag(o.Filter))
	add("--shard", shownFlag(m.Shard), shownFlag(o.Shard))
	add("--repeat", repeatText(m.Repeat), repeatText(o.Repeat))
	if filepath.Clean(m.OnlyFailed) != filepath.Clean(o.OnlyFailed) {
		add("--only-failed", shownFlag(m.OnlyFailed), shownFlag(o.OnlyFailed))
	}
	return diff
}

// shownFlag is a flag's value in a message: quoted, or "none".
func shownFlag(v string) string {
	if v == "" {
		return "none"
	}
	return fmt.Sprintf("%q", v)
}

// repeatText is a recorded --repeat in a message ("none" for one run of
// each case).
func repeatText(n int) string {
	if n <= 1 {
		return "none"
	}
	return strconv.Itoa(n)
}

// spent is how long the sessions recorded in m, of the run in dir, ran:
// Seconds, plus, when a session was killed outright (Session still set),
// that session up to the last result it recorded (lastActivity). A
// run.json written before Seconds was recorded counts Finished − Started,
// or, killed in its first session, Started to its last result.
func (m Meta) spent(dir string) time.Duration {
	d := time.Duration(m.Seconds * float64(time.Second))
	from := m.Session
	if m.Seconds <= 0 && from.IsZero() {
		if !m.Started.IsZero() && m.Finished.After(m.Started) {
			return m.Finished.Sub(m.Started)
		}
		from = m.Started
	}
	if from.IsZero() {
		return d
	}
	if last := lastActivity(filepath.Join(dir, runner.ResultsFile)); last.After(from) {
		d += last.Sub(from)
	}
	return d
}

// lastActivity is when the run recording path last did something: the
// end (start plus latency) of the last result it holds, or, when that
// line does not read (torn, or longer than 64 MiB), the file's
// modification time; zero without the file.
func lastActivity(path string) time.Time {
	st, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	line, err := lastLine(path, 64<<20)
	if err == nil {
		var r struct {
			Started   time.Time `json:"started"`
			LatencyMS float64   `json:"latency_ms"`
		}
		if json.Unmarshal(line, &r) == nil && !r.Started.IsZero() {
			return r.Started.Add(time.Duration(r.LatencyMS * float64(time.Millisecond)))
		}
	}
	return st.ModTime()
}

// FailedIDs is the set of case ids that failed or errored in the run in
// dir, as its report.json says (rewritten by eval, so an edited suite
// counts), or as its results.jsonl recorded them when the report lists
// only some cases or is missing. A case recorded twice counts at its first
// record, as eval counts it.
func FailedIDs(dir string) (map[string]bool, error) {
	if _, err := ReadMeta(dir); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	if rep, err := ReadReport(dir); err == nil && rep.CasesOmitted == 0 {
		for c := range rep.ListedCases() {
			if c.Outcome >= schema.Fail {
				ids[c.ID] = true
			}
		}
		return ids, nil
	}
	seen := map[string]bool{}
	err := runner.ReadResults(filepath.Join(dir, runner.ResultsFile), func(r *schema.Result) error {
		if !seen[r.ID] {
			seen[r.ID] = true
			if r.Outcome >= schema.Fail {
				ids[r.ID] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return ids, nil
}

// WriteMeta writes dir/run.json atomically.
func WriteMeta(dir string, m Meta) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, MetaFile), b.Bytes())
}

// ReadMeta reads dir/run.json; an error says dir is not a run directory.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, _, err := spec.OwnFiles.Read("", filepath.Join(dir, MetaFile), spec.MaxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if e := notOneRun(dir); e != nil {
				return m, e
			}
			return m, fmt.Errorf("%s is not a run directory (no %s)", dir, MetaFile)
		}
		return m, fmt.Errorf("%s is not a run directory: %s", dir, spec.FileError(err))
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, MetaFile), err)
	}
	return m, nil
}

// ReadReport reads a run directory's report.json (or a report file).
func ReadReport(path string) (*schema.Report, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	if st.IsDir() {
		path = filepath.Join(path, ReportFile)
	}
	b, _, err := spec.OwnFiles.Read("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, errors.New(spec.FileError(err))
	}
	var r schema.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not an nlutest report: %w", path, err)
	}
	return &r, nil
}

// DefaultDir is where a run goes without --out:
// ROOT/.nlutest/runs/<time>-<suite> (the suite's name made a file name by
// PathName).
func DefaultDir(root, suite string, started time.Time) string {
	return filepath.Join(root, ".nlutest", "runs", started.Format("20060102-150405")+"-"+PathName(suite))
}

// lastLine is the last complete line of the file at path (without its
// newline); an error when the file holds none, or when that line is
// longer than limit bytes.
func lastLine(path string, limit int64) ([]byte, error) {
	// Under the file rules: a FIFO or device put in the run directory is
	// refused, never waited on.
	f, err := spec.OwnFiles.Open("", path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end, err := newlineBefore(f, st.Size(), limit)
	if err != nil || end < 0 {
		return nil, errors.New("no complete line")
	}
	begin, err := newlineBefore(f, end, limit)
	if err != nil {
		return nil, err
	}
	if end-begin-1 > limit {
		return nil, errors.New("the last line is too long")
	}
	line := make([]byte, end-begin-1)
	if _, err := f.ReadAt(line, begin+1); err != nil {
		return nil, err
	}
	return line, nil
}

// newlineBefore is the offset of the last '\n' in f before offset pos,
// looking back at most limit bytes: -1 when the file has none before pos
// (the line starts the file); an error past limit.
func newlineBefore(f *os.File, pos, limit int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for from := pos; from > 0; {
		if pos-from > limit {
			return 0, errors.New("the last line is too long")
		}
		start := max(from-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:from-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i), nil
		}
		from = start
	}
	return -1, nil
}

// holdsRun reports whether dir already holds a run's results.
func holdsRun(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, runner.ResultsFile))
	return err == nil
}

// writeFileAtomic writes b to a temporary file beside path and renames it
// over path, so a reader never sees half a file.
func writeFileAtomic(path string, b []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	for _, step := range []func() error{
		func() error { _, err := f.Write(b); return err },
		func() error { return f.Chmod(0o644) },
		f.Sync,
		f.Close,
		func() error { return os.Rename(f.Name(), path) },
	} {
		if err = step(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// ReportedSuite returns the suite the report.json of run directory dir
// was made with — its directory, or its one file when it was loaded from
// one — which differs from the one run.json records when the run was
// evaluated again with another (eval --suite, merge --suite). "" when
// the run has no readable report.json. Only the report's head is read.
func ReportedSuite(dir string) string {
	f, err := spec.OwnFiles.Open("", filepath.Join(dir, ReportFile), math.MaxInt64)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k != "suite" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		var si schema.SuiteInfo
		if dec.Decode(&si) != nil || si.Dir == "" {
			return ""
		}
		if len(si.Files) == 1 {
			return si.Files[0]
		}
		return si.Dir
	}
	return ""
}
