package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// fileLines counts the lines of the file at path.
func fileLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// Add gathers results without writing them; Flush writes them; a group
// is written by Add itself once it holds GroupResults results; Write
// writes at once, with whatever was added before.
func TestResultsWriterGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsFile)
	w, err := CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	res := func(i int) *schema.Result {
		return &schema.Result{Case: schema.Case{ID: fmt.Sprintf("订票-%d", i), Text: "去北京"}, Outcome: schema.Pass}
	}
	for i := range 3 {
		if err := w.Add(res(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := fileLines(t, path); n != 0 {
		t.Fatalf("%d lines written before Flush, want 0", n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := fileLines(t, path); n != 3 {
		t.Fatalf("%d lines after Flush, want 3", n)
	}
	for i := range GroupResults {
		if err := w.Add(res(3 + i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := fileLines(t, path); n != 3+GroupResults {
		t.Fatalf("%d lines once a group of %d was added, want %d", n, GroupResults, 3+GroupResults)
	}
	if err := w.Add(res(100)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(res(101)); err != nil {
		t.Fatal(err)
	}
	if n := fileLines(t, path); n != 5+GroupResults {
		t.Fatalf("%d lines after Write, want %d", n, 5+GroupResults)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := ReadResults(path, func(r *schema.Result) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		want := fmt.Sprintf("订票-%d", i)
		if i >= 3+GroupResults {
			want = fmt.Sprintf("订票-%d", 100+i-3-GroupResults)
		}
		if id != want {
			t.Fatalf("line %d is %s, want %s", i+1, id, want)
		}
	}
}

// The group commit of a live run (ResultsWriter.Add in OnResult, Flush in
// OnIdle): once every finished call has been handed on and the run waits
// for calls in flight, every result is in the file — what a run killed
// then keeps. k calls answer; the next four (concurrency 4) are held until
// the test has read the file.
func TestGroupCommitWritesWhenTheRunWaits(t *testing.T) {
	for _, k := range []int{1, 5, GroupResults + 7, 3 * GroupResults} {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ResultsFile)
			w, err := CreateResults(path)
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			var calls atomic.Int32
			f := &fakeCaller{hook: func(string, int) {
				if calls.Add(1) > int32(k) {
					<-release
				}
			}}
			var scripts []*schema.Script
			for i := range k + 4 {
				scripts = append(scripts, script(fmt.Sprintf("单句%d", i), "查天气"))
			}
			handed := 0
			waiting := make(chan struct{})
			var once sync.Once
			done := make(chan error, 1)
			go func() {
				done <- Run(context.Background(), f, source(scripts...), Config[struct{}]{
					Concurrency: 4,
					OnResult:    func(r *schema.Result, _ struct{}) error { handed++; return w.Add(r) },
					OnIdle: func() error {
						err := w.Flush()
						if handed == k {
							once.Do(func() { close(waiting) })
						}
						return err
					},
				})
			}()
			select {
			case <-waiting:
			case <-time.After(time.Minute): // only a run that never waits gets here
				close(release)
				t.Fatalf("the run never waited with %d results handed on", k)
			}
			if n := fileLines(t, path); n != k {
				t.Errorf("%d results in the file while the run waits for its calls in flight, want all %d handed on", n, k)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n := fileLines(t, path); n != k+4 {
				t.Errorf("%d results in the file at the end, want %d", n, k+4)
			}
		})
	}
}
