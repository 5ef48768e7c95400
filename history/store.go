package history

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The file's format: the meta bucket's "format" and "version" keys.
const (
	FormatName    = "nlutest-history"
	FormatVersion = 1
)

// DefaultKeep is how many runs a store keeps per suite and target unless
// set otherwise (Store.SetKeep): adding one more drops the oldest.
const DefaultKeep = 1000

// DefaultTimeout is how long Open waits for another process's lock.
const DefaultTimeout = 10 * time.Second

var (
	metaBucket   = []byte("meta")
	seriesBucket = []byte("series")
	runsBucket   = []byte("runs")
	idsBucket    = []byte("ids")
)

// FileError is a history file that cannot be used: not a history, a
// newer format, damaged, or missing when it must exist. Bad input: exit 2.
type FileError struct {
	Path    string
	Problem string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Problem }

// LockedError is a history file another process kept locked for longer
// than the timeout.
type LockedError struct {
	Path    string
	Timeout time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s: another process (a run or history command adding to it) has held the history file's lock for %s; wait for it to finish, or give each concurrent job its own history file", e.Path, e.Timeout)
}

// Options set Open.
type Options struct {
	// Timeout is how long to wait for another process's lock; 0 selects
	// DefaultTimeout.
	Timeout time.Duration
	// ReadOnly opens an existing file with a shared lock (several readers
	// at once); it never creates one.
	ReadOnly bool
}

// Store is an open history file.
type Store struct {
	db   *bolt.DB
	path string
}

// Open opens the history file at path, creating it (and its directory)
// unless opts.ReadOnly.
func Open(path string, opts Options) (st *Store, err error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if err := checkFile(path, opts.ReadOnly); err != nil {
		return nil, err
	}
	var db *bolt.DB
	err = guard(path, func() error {
		var oerr error
		db, oerr = bolt.Open(path, 0o644, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly})
		return oerr
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, &LockedError{Path: path, Timeout: opts.Timeout}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, &FileError{Path: path, Problem: "not an nlutest history file (" + err.Error() + "): give another --history path, or move this file away"}
	case err != nil:
		var fe *FileError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, &FileError{Path: path, Problem: "cannot open the history file: " + err.Error()}
	}
	st = &Store{db: db, path: path}
	if err := st.checkFormat(opts.ReadOnly); err != nil {
		_ = db.Close()
		return nil, err
	}
	return st, nil
}

// checkFile checks what Open cannot leave to bbolt: a read-only open
// needs a file with something in it (bbolt would try to initialise an
// empty one), a read-write one a directory to create it in.
func checkFile(path string, readOnly bool) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && readOnly:
		return &FileError{Path: path, Problem: "no such history file: record runs into it with nlutest history add RUN_DIR --history " + path + ", or run with --history " + path}
	case errors.Is(err, fs.ErrNotExist):
		if dir := dirOf(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &FileError{Path: path, Problem: "cannot create the history file's directory: " + err.Error()}
			}
		}
		return nil
	case err != nil:
		return &FileError{Path: path, Problem: err.Error()}
	case st.IsDir():
		return &FileError{Path: path, Problem: "is a directory; --history names a file (default .nlutest/history.db)"}
	case readOnly && st.Size() == 0:
		return &FileError{Path: path, Problem: "the file is empty: no run has been recorded in it"}
	}
	return nil
}

func dirOf(path string) string {
	i := strings.LastIndexAny(path, `/\`)
	if i <= 0 {
		return ""
	}
	return path[:i]
}

// checkFormat checks the meta bucket: a new file gets one; a file with
// buckets but no meta is another program's bbolt file.
func (s *Store) checkFormat(readOnly bool) error {
	var format, version string
	empty := true
	err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(metaBucket); m != nil {
			format, version = string(m.Get([]byte("format"))), string(m.Get([]byte("version")))
		}
		return tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
	})
	if err != nil {
		return err
	}
	switch {
	case empty && readOnly:
		return &FileError{Path: s.path, Problem: "no run has been recorded in this history file"}
	case empty:
		return s.update(func(tx *bolt.Tx) error {
			m, err := tx.CreateBucketIfNotExists(metaBucket)
			if err != nil {
				return err
			}
			if err := m.Put([]byte("format"), []byte(FormatName)); err != nil {
				return err
			}
			return m.Put([]byte("version"), []byte(strconv.Itoa(FormatVersion)))
		})
	case format != FormatName:
		return &FileError{Path: s.path, Problem: "a bbolt database, but not an nlutest history file (it has no nlutest-history format key): give another --history path"}
	}
	v, err := strconv.Atoi(version)
	switch {
	case err != nil || v < 1:
		return &FileError{Path: s.path, Problem: fmt.Sprintf("the history file's format version %q is not a number: the file is damaged", version)}
	case v > FormatVersion:
		return &FileError{Path: s.path, Problem: fmt.Sprintf("written by a newer nlutest (history format %d; this one reads format %d): upgrade nlutest, or use another history file", v, FormatVersion)}
	}
	return nil
}

// Close closes the file and releases its lock.
func (s *Store) Close() error { return s.db.Close() }

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// view and update run a transaction under guard.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return guard(s.path, func() error { return s.db.View(fn) })
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	return guard(s.path, func() error { return s.db.Update(fn) })
}

// guard runs fn, turning a panic or a memory fault inside it (bbolt
// reading a damaged page of the mapped file) into a FileError: a damaged
// history is bad input, never a crash.
func guard(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			err = &FileError{Path: path, Problem: fmt.Sprintf("the history file is damaged (%v): restore it from a copy (a CI cache's earlier one), or move it away to start a new history", r)}
		}
	}()
	return fn()
}

// Keep is how many runs the store keeps per suite and target.
func (s *Store) Keep() (int, error) {
	keep := DefaultKeep
	err := s.view(func(tx *bolt.Tx) error {
		if m := tx.Bucket(metaBucket); m != nil {
			if v, err := strconv.Atoi(string(m.Get([]byte("keep")))); err == nil && v > 0 {
				keep = v
			}
		}
		return nil
	})
	return keep, err
}

// SetKeep sets how many runs the store keeps per suite and target; the
// next Add of each series drops what is beyond it.
func (s *Store) SetKeep(n int) error {
	if n < 1 {
		return fmt.Errorf("keep must be at least 1, got %d", n)
	}
	return s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(metaBucket).Put([]byte("keep"), []byte(strconv.Itoa(n)))
	})
}

// seriesKey names a suite and target's bucket.
func seriesKey(suite, target string) []byte { return []byte(suite + "\x00" + target) }

// runKey orders a series' runs by time, then by the order they were
// added.
func runKey(t time.Time, seq uint64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(t.UnixNano()))
	binary.BigEndian.PutUint64(k[8:], seq)
	return k
}

// AddResult says what Add did.
type AddResult struct {
	// Replaced is set when the store held the same run (its id) already:
	// the new record replaces it (an eval of a run recorded before).
	Replaced bool
	// Dropped counts the oldest runs dropped to keep the store's bound.
	Dropped int
	// Runs is the number of runs of the series after the add.
	Runs int
}

// Add records run r in its suite and target's series, replacing a run
// of the same id, and drops the oldest runs beyond the store's bound.
func (s *Store) Add(r *Run) (AddResult, error) {
	var res AddResult
	if r.ID == "" || r.Suite == "" {
		return res, errors.New("a run without an id or a suite name cannot be recorded")
	}
	body, err := encodeRun(r)
	if err != nil {
		return res, err
	}
	keep, err := s.Keep()
	if err != nil {
		return res, err
	}
	err = s.update(func(tx *bolt.Tx) error {
		sb, err := tx.Bucket(seriesBucketOf(tx)).CreateBucketIfNotExists(seriesKey(r.Suite, r.Target))
		if err != nil {
			return err
		}
		runs, err := sb.CreateBucketIfNotExists(runsBucket)
		if err != nil {
			return err
		}
		ids, err := sb.CreateBucketIfNotExists(idsBucket)
		if err != nil {
			return err
		}
		if old := ids.Get([]byte(r.ID)); old != nil {
			res.Replaced = true
			if err := runs.Delete(slices.Clone(old)); err != nil {
				return err
			}
		}
		seq, err := sb.NextSequence()
		if err != nil {
			return err
		}
		k := runKey(r.When(), seq)
		if err := runs.Put(k, body); err != nil {
			return err
		}
		if err := ids.Put([]byte(r.ID), k); err != nil {
			return err
		}
		res.Dropped, res.Runs, err = trim(runs, ids, keep)
		return err
	})
	return res, err
}

// seriesBucketOf creates the series bucket on first use and returns its
// name.
func seriesBucketOf(tx *bolt.Tx) []byte {
	if tx.Bucket(seriesBucket) == nil {
		if _, err := tx.CreateBucket(seriesBucket); err != nil {
			panic(err) // only on a closed or read-only transaction
		}
	}
	return seriesBucket
}

// trim drops the oldest runs beyond keep and returns how many it dropped
// and how many are left.
func trim(runs, ids *bolt.Bucket, keep int) (dropped, left int, err error) {
	n := count(runs)
	var drop [][]byte
	c := runs.Cursor()
	for k, v := c.First(); k != nil && n-len(drop) > keep; k, v = c.Next() {
		drop = append(drop, slices.Clone(k))
		if id, err := runID(v); err == nil {
			if err := ids.Delete([]byte(id)); err != nil {
				return 0, 0, err
			}
		}
	}
	for _, k := range drop {
		if err := runs.Delete(k); err != nil {
			return 0, 0, err
		}
	}
	return len(drop), n - len(drop), nil
}

// Series is one suite and target's history, as Series lists them.
type Series struct {
	Suite, Target string
	Runs          int
	First, Last   time.Time
}

// Series lists the store's suites and targets, by suite then target.
func (s *Store) Series() ([]Series, error) {
	var out []Series
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(seriesBucket)
		if b == nil {
			return nil
		}
		return b.ForEachBucket(func(k []byte) error {
			suite, target, _ := strings.Cut(string(k), "\x00")
			se := Series{Suite: suite, Target: target}
			if runs := b.Bucket(k).Bucket(runsBucket); runs != nil {
				c := runs.Cursor()
				if f, _ := c.First(); f != nil {
					se.First = keyTime(f)
				}
				if l, _ := c.Last(); l != nil {
					se.Last = keyTime(l)
				}
				se.Runs = count(runs)
			}
			out = append(out, se)
			return nil
		})
	})
	return out, err
}

// count counts a bucket's keys.
func count(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

func keyTime(k []byte) time.Time {
	if len(k) < 8 {
		return time.Time{}
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k))).UTC()
}

// Runs returns the runs of a suite and target, oldest first, numbered
// from 1 (Run.Number); none when the store has no such series.
func (s *Store) Runs(suite, target string) ([]*Run, error) {
	var out []*Run
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(seriesBucket)
		if b == nil {
			return nil
		}
		sb := b.Bucket(seriesKey(suite, target))
		if sb == nil || sb.Bucket(runsBucket) == nil {
			return nil
		}
		return sb.Bucket(runsBucket).ForEach(func(k, v []byte) error {
			r, err := decodeRun(v)
			if err != nil {
				return &FileError{Path: s.path, Problem: fmt.Sprintf("a record of suite %q, target %q is damaged (%v): remove it with nlutest history remove, or restore the file from a copy", suite, target, err)}
			}
			r.Number = len(out) + 1
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// Remove deletes the runs of a suite and target that match says to, and
// returns how many it deleted.
func (s *Store) Remove(suite, target string, match func(*Run) bool) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(seriesBucket)
		if b == nil {
			return nil
		}
		sb := b.Bucket(seriesKey(suite, target))
		if sb == nil {
			return nil
		}
		runs, ids := sb.Bucket(runsBucket), sb.Bucket(idsBucket)
		var drop [][]byte
		var dropIDs []string
		number := 0
		err := runs.ForEach(func(k, v []byte) error {
			number++
			r, err := decodeRun(v)
			if err != nil {
				return err
			}
			r.Number = number
			if match(r) {
				drop = append(drop, slices.Clone(k))
				dropIDs = append(dropIDs, r.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, k := range drop {
			if err := runs.Delete(k); err != nil {
				return err
			}
			if err := ids.Delete([]byte(dropIDs[i])); err != nil {
				return err
			}
		}
		n = len(drop)
		if number == n {
			return b.DeleteBucket(seriesKey(suite, target))
		}
		return nil
	})
	return n, err
}

// encodeRun is a run's record: its JSON, gzipped.
func encodeRun(r *Run) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(r); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeRun(b []byte) (*Run, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxRecord+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRecord {
		return nil, fmt.Errorf("a record is larger than %d bytes", maxRecord)
	}
	var r Run
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// maxRecord bounds a record's decompressed size (a damaged or hostile
// file cannot make a reader allocate more).
const maxRecord = 256 << 20

// runID is the id of a record, for trim.
func runID(b []byte) (string, error) {
	r, err := decodeRun(b)
	if err != nil {
		return "", err
	}
	return r.ID, nil
}
