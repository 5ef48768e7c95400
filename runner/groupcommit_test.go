package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// then keeps — at once without an IdleGap, within GroupWindow with the
// live run's. k calls answer; the next four (concurrency 4) are held until
// the test has read the file.
func TestGroupCommitWritesWhenTheRunWaits(t *testing.T) {
	for _, gap := range []time.Duration{0, GroupWindow} {
		for _, k := range []int{1, 5, GroupResults + 7, 3 * GroupResults} {
			t.Run(fmt.Sprintf("gap=%v/%d", gap, k), func(t *testing.T) { groupCommitWhenWaiting(t, gap, k) })
		}
	}
}

func groupCommitWhenWaiting(t *testing.T, gap time.Duration, k int) {
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
			IdleGap: gap,
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
}

// IdleGap spaces OnIdle's calls: not two within the gap, and turns handed
// on within it still get OnIdle when it ends, while the run waits for a
// call in flight, or as the run ends. Concurrency 1: the first call
// answers at once, the second once OnIdle has followed the first (so
// within the gap), the third once OnIdle has followed the second.
func TestIdleGapSpacesOnIdle(t *testing.T) {
	const gap = 300 * time.Millisecond
	first, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	f := &fakeCaller{hook: func(string, int) {
		switch calls.Add(1) {
		case 2:
			<-first
		case 3:
			<-release
		}
	}}
	handed := 0
	var idles []time.Time
	var handedAt []int // handed at each OnIdle
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), f, source(script("单句0", "查天气"), script("单句1", "查天气"), script("单句2", "查天气")), Config[struct{}]{
			Concurrency: 1,
			OnResult:    func(*schema.Result, struct{}) error { handed++; return nil },
			OnIdle: func() error {
				idles, handedAt = append(idles, time.Now()), append(handedAt, handed)
				switch handed {
				case 1:
					close(first)
				case 2:
					close(release)
				}
				return nil
			},
			IdleGap: gap,
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // the second turn never got OnIdle while the third was held
		close(release)
		t.Fatal("OnIdle never followed the second turn while the run waited for the third")
	}
	if want := []int{1, 2, 3}; !slices.Equal(handedAt, want) {
		t.Fatalf("OnIdle ran with %v turns handed on, want %v (once per turn, the second after the gap)", handedAt, want)
	}
	if d := idles[1].Sub(idles[0]); d < gap {
		t.Errorf("OnIdle's first two calls came %v apart, within the gap of %v", d, gap)
	}
	// The third turn, handed on within the gap too, gets OnIdle as Run
	// ends rather than when the gap does.
}
