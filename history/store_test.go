package history

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// report is a report.json of suite and target whose run id finished at
// minute min with accuracy num/den and its interval.
func report(suite, target, id string, min int, num, den int, lo, hi float64) []byte {
	fin := t0.Add(time.Duration(min) * time.Minute).Format(time.RFC3339Nano)
	return fmt.Appendf(nil, `{"tool":"nlutest","version":"dev","suite":{"name":%q,"dir":".","files":[]},
"run":{"id":%q,"target":%q,"started":%q,"finished":%q,"seconds":1,"error_budget":0},
"verdict":{"outcome":"pass","by_thresholds":true},
"thresholds":[{"name":"准确率","condition":"metrics.accuracy.ci_low >= 0.8","severity":"error","outcome":"pass","observed":[{"name":"metrics.accuracy.ci_low","value":0.81}]}],
"intervals":{"confidence":0.95,"resamples":1000,"seed":1,"budget":1048576},
"metrics":{"total":%d,"passed":%d,"failed":%d,"errored":0,
 "accuracy":{"value":%g,"num":%d,"den":%d,"ci_low":%g,"ci_high":%g},
 "error_rate":{"value":0,"num":0,"den":%d},
 "scene":{"出行/天气":{"total":3,"passed":2,"failed":1,"errored":0,"accuracy":{"value":0.666666667,"num":2,"den":3}}},
 "latency":{"count":3,"mean_ms":12.5,"p50_ms":12,"p90_ms":14,"p95_ms":14,"p99_ms":14,"max_ms":14}},
"groups":[],"cases":[]}`, suite, id, target, fin, fin, den, num, den-num, float64(num)/float64(den), num, den, lo, hi, den)
}

func mustRun(t *testing.T, b []byte) *Run {
	t.Helper()
	r, err := FromReport(b, "report.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func open(t *testing.T, path string, o Options) *Store {
	t.Helper()
	st, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestStoreRoundTrip: runs of a Chinese suite and target added out of
// time order come back oldest first, numbered, with their label, commit,
// thresholds and each metric's value and interval (a ratio, a key with a
// slash, a plain number); a run added again replaces the first record.
func TestStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h", "history.db")
	st := open(t, path, Options{})
	for i, m := range []int{30, 10, 20} {
		r := mustRun(t, report("机票助手", "生产环境", "run-"+strconv.Itoa(m), m, 80+i, 100, 0.7+float64(i)/100, 0.9))
		r.Label, r.Commit = "v1."+strconv.Itoa(m), "abc"+strconv.Itoa(i)
		res, err := st.Add(r)
		if err != nil || res.Replaced || res.Runs != i+1 {
			t.Fatalf("add %d: %+v %v", i, res, err)
		}
	}
	// Another target's series stays apart.
	if _, err := st.Add(mustRun(t, report("机票助手", "预发布", "run-x", 5, 1, 2, 0.1, 0.9))); err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs("机票助手", "生产环境")
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs %v %v", runs, err)
	}
	for i, want := range []string{"run-10", "run-20", "run-30"} {
		if runs[i].ID != want || runs[i].Number != i+1 {
			t.Errorf("run %d is %s #%d; want %s #%d", i, runs[i].ID, runs[i].Number, want, i+1)
		}
	}
	r := runs[0] // minute 10: the second added, accuracy 81/100
	if r.Label != "v1.10" || r.Commit != "abc1" || len(r.Thresholds) != 1 || r.Thresholds[0].Metrics[0] != "metrics.accuracy.ci_low" || r.Intervals.Confidence != 0.95 {
		t.Errorf("record %+v", r)
	}
	p := r.Point(must(ParseAddress("metrics.accuracy")))
	if p.Value == nil || *p.Value != 0.81 || *p.CILow != 0.71 || *p.CIHigh != 0.9 || p.Label != "v1.10" || p.Run != 1 || p.Confidence != 0.95 {
		t.Errorf("accuracy point %+v", p)
	}
	if p := r.Point(must(ParseAddress(`metrics.scene["出行/天气"].accuracy`))); p.Value == nil || *p.Value != 0.666666667 || p.CILow != nil {
		t.Errorf("scene point %+v", p)
	}
	if p := r.Point(must(ParseAddress("metrics.latency.p95_ms"))); p.Value == nil || *p.Value != 14 {
		t.Errorf("latency point %+v", p)
	}
	if p := r.Point(must(ParseAddress("metrics.split.smoke.accuracy"))); p.Value != nil {
		t.Errorf("a metric the run lacks has a value: %+v", p)
	}
	again := mustRun(t, report("机票助手", "生产环境", "run-20", 20, 50, 100, 0.4, 0.6))
	if res, err := st.Add(again); err != nil || !res.Replaced || res.Runs != 3 {
		t.Fatalf("re-add: %+v %v", res, err)
	}
	runs, _ = st.Runs("机票助手", "生产环境")
	if v := runs[1].Point([]string{"accuracy"}).Value; runs[1].ID != "run-20" || *v != 0.5 {
		t.Errorf("re-added run: %s %v", runs[1].ID, *v)
	}
	series, err := st.Series()
	if err != nil || len(series) != 2 || series[0].Target != "生产环境" || series[0].Runs != 3 || series[1].Target != "预发布" ||
		!series[0].First.Equal(t0.Add(10*time.Minute)) || !series[0].Last.Equal(t0.Add(30*time.Minute)) {
		t.Errorf("series %+v %v", series, err)
	}
}

func must(steps []string, _ string, err error) []string {
	if err != nil {
		panic(err)
	}
	return steps
}

// TestStoreKeepAndRemove: with keep 5, eight runs leave the newest five
// (three dropped); remove deletes by a match and drops an emptied series.
func TestStoreKeepAndRemove(t *testing.T) {
	st := open(t, filepath.Join(t.TempDir(), "history.db"), Options{})
	if err := st.SetKeep(5); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for i := range 8 {
		res, err := st.Add(mustRun(t, report("s", "t", "r"+strconv.Itoa(i), i, 9, 10, 0.6, 0.98)))
		if err != nil {
			t.Fatal(err)
		}
		dropped += res.Dropped
	}
	runs, _ := st.Runs("s", "t")
	if dropped != 3 || len(runs) != 5 || runs[0].ID != "r3" {
		t.Fatalf("dropped %d, kept %d from %s", dropped, len(runs), runs[0].ID)
	}
	// The dropped runs' ids are free: adding r0 again adds, not replaces.
	if res, _ := st.Add(mustRun(t, report("s", "t", "r0", 100, 9, 10, 0.6, 0.98))); res.Replaced || res.Dropped != 1 {
		t.Errorf("re-adding a dropped run: %+v", res)
	}
	n, err := st.Remove("s", "t", func(r *Run) bool { return r.Number <= 2 })
	if runs, _ = st.Runs("s", "t"); err != nil || n != 2 || len(runs) != 3 || runs[0].ID != "r6" {
		t.Fatalf("removed %d (%v), left %d", n, err, len(runs))
	}
	if n, _ := st.Remove("s", "t", func(*Run) bool { return true }); n != 3 {
		t.Errorf("removed %d of 3", n)
	}
	if s, _ := st.Series(); len(s) != 0 {
		t.Errorf("an emptied series is still listed: %+v", s)
	}
	if err := st.SetKeep(0); err == nil {
		t.Error("keep 0 accepted")
	}
}

// TestStoreBadFiles: a file that is not a history, a damaged one, one of
// a newer format, another program's bbolt file, a directory or a missing
// file (read-only) each give a FileError naming the file, never a panic.
func TestStoreBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	st, err := Open(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := st.Add(mustRun(t, report("s", "t", "r"+strconv.Itoa(i), i, 9, 10, 0.6, 0.98))); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	data, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scrambled := append([]byte(nil), data...)
	for i := 4096 * 2; i < len(scrambled); i += 7 {
		scrambled[i] ^= 0x5a
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, _ := bolt.Open(foreign, 0o644, nil)
	_ = db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err })
	db.Close()
	newer := filepath.Join(dir, "newer.db")
	db, _ = bolt.Open(newer, 0o644, nil)
	_ = db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucket(metaBucket)
		_ = b.Put([]byte("format"), []byte(FormatName))
		return b.Put([]byte("version"), []byte("7"))
	})
	db.Close()
	for _, c := range []struct {
		name, path string
		readOnly   bool
		want       string
	}{
		{"text", write("text.db", []byte("accuracy,0.91\n中文,0.9\n")), false, "not an nlutest history file"},
		{"zeros", write("zeros.db", make([]byte, 16384)), false, "not an nlutest history file"},
		{"truncated", write("truncated.db", data[:len(data)/3]), true, ""},
		{"scrambled", write("scrambled.db", scrambled), true, ""},
		{"foreign bbolt", foreign, false, "not an nlutest history file (it has no"},
		{"newer", newer, true, "newer nlutest (history format 7"},
		{"directory", dir, false, "is a directory"},
		{"missing", filepath.Join(dir, "none.db"), true, "no such history file"},
		{"empty", write("empty.db", nil), true, "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readAll(c.path, c.readOnly)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != c.path {
				t.Fatalf("error %v (%T); want a FileError for %s", err, err, c.path)
			}
			t.Log(err)
			if c.want != "" && !contains(err.Error(), c.want) {
				t.Errorf("error %q; want it to say %q", err, c.want)
			}
		})
	}
}

// readAll opens path and reads every series' runs and every run's
// accuracy, as history show does.
func readAll(path string, readOnly bool) error {
	st, err := Open(path, Options{ReadOnly: readOnly, Timeout: time.Second})
	if err != nil {
		return err
	}
	defer st.Close()
	series, err := st.Series()
	if err != nil {
		return err
	}
	for _, s := range series {
		runs, err := st.Runs(s.Suite, s.Target)
		if err != nil {
			return err
		}
		for _, r := range runs {
			r.Point([]string{"accuracy"})
		}
	}
	if len(series) == 0 || series[0].Runs != 20 {
		return &FileError{Path: path, Problem: fmt.Sprintf("read %+v", series)}
	}
	return nil
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// TestStoreLocked: a file another open store holds gives a LockedError
// after the timeout; readers share the file.
func TestStoreLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	st := open(t, path, Options{})
	if _, err := st.Add(mustRun(t, report("s", "t", "r", 1, 9, 10, 0.6, 0.98))); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Open(path, Options{Timeout: 200 * time.Millisecond})
	var le *LockedError
	if !errors.As(err, &le) || time.Since(start) < 100*time.Millisecond || !contains(err.Error(), "lock") {
		t.Fatalf("second writer: %v after %s", err, time.Since(start))
	}
	st.Close()
	r1 := open(t, path, Options{ReadOnly: true, Timeout: time.Second})
	r2 := open(t, path, Options{ReadOnly: true, Timeout: time.Second})
	if a, _ := r1.Runs("s", "t"); len(a) != 1 {
		t.Error("reader 1 sees no run")
	}
	if b, _ := r2.Runs("s", "t"); len(b) != 1 {
		t.Error("reader 2 sees no run")
	}
}

// TestStoreTwoProcesses: two processes adding 15 runs each to one file
// at once, each opening and closing it per run as `nlutest run
// --history` does, record all 30.
func TestStoreTwoProcesses(t *testing.T) {
	if os.Getenv("NLUTEST_HISTORY_CHILD") != "" {
		return
	}
	path := filepath.Join(t.TempDir(), "history.db")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for p := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStoreChildAdds$", "-test.v")
			cmd.Env = append(os.Environ(), "NLUTEST_HISTORY_CHILD="+path, "NLUTEST_HISTORY_PREFIX=p"+strconv.Itoa(p))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[p] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := open(t, path, Options{ReadOnly: true})
	runs, err := st.Runs("并发", "t")
	if err != nil || len(runs) != 30 {
		t.Fatalf("%d runs recorded of 30 (%v)", len(runs), err)
	}
}

// TestStoreChildAdds is the child process of TestStoreTwoProcesses.
func TestStoreChildAdds(t *testing.T) {
	path := os.Getenv("NLUTEST_HISTORY_CHILD")
	if path == "" {
		t.Skip("run by TestStoreTwoProcesses")
	}
	prefix := os.Getenv("NLUTEST_HISTORY_PREFIX")
	for i := range 15 {
		st, err := Open(path, Options{Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Add(mustRun(t, report("并发", "t", prefix+"-"+strconv.Itoa(i), i, 9, 10, 0.6, 0.98))); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
}

func TestParseAddress(t *testing.T) {
	for _, c := range []struct {
		in, want, bound string
	}{
		{"metrics.accuracy", "[accuracy]", ""},
		{"metrics.split.smoke.accuracy", "[split smoke accuracy]", ""},
		{`metrics.split["smoke"].accuracy.ci_low`, "[split smoke accuracy]", "ci_low"},
		{`metrics.scene["出行/天气"].accuracy`, "[scene 出行/天气 accuracy]", ""},
		{`metrics.scene.出行.accuracy.ci_high`, "[scene 出行 accuracy]", "ci_high"},
		{`metrics.label.intent.labels["a\"b"].f1`, `[label intent labels a"b f1]`, ""},
		{"metrics.dimension.slots-x.f1", "[dimension slots-x f1]", ""},
	} {
		steps, bound, err := ParseAddress(c.in)
		if err != nil || fmt.Sprint(steps) != c.want || bound != c.bound {
			t.Errorf("%s: %v %q %v; want %s %q", c.in, steps, bound, err, c.want, c.bound)
		}
	}
	for _, bad := range []string{"accuracy", "metrics", "metrics.", `metrics["x`, `metrics.a b`, "metrics.a..b", `metrics[x]`} {
		if _, _, err := ParseAddress(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestFromReportRefuses(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"not json", "{", "not an nlutest report"},
		{"other tool", `{"tool":"x","run":{"id":"a"},"suite":{"name":"s"}}`, "not an nlutest run report"},
		{"interrupted", `{"tool":"nlutest","run":{"id":"a","interrupted":true},"suite":{"name":"s"},"metrics":{}}`, "interrupted"},
		{"no metrics", `{"tool":"nlutest","run":{"id":"a"},"suite":{"name":"s"}}`, "no metrics"},
	} {
		if _, err := FromReport([]byte(c.body), "r.json"); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
