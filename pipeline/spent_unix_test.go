//go:build unix

package pipeline

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
)

// TestSpentRefusesAFIFO: a FIFO in place of results.jsonl is not waited
// on: the killed session counts nothing more, and spent returns at once.
func TestSpentRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, runner.ResultsFile), 0o644); err != nil {
		t.Skip(err)
	}
	t0 := time.Now().Add(time.Hour) // after the FIFO's modification time
	done := make(chan time.Duration, 1)
	go func() { done <- Meta{Started: t0, Seconds: 2, Session: t0}.spent(dir) }()
	select {
	case got := <-done:
		if got != 2*time.Second {
			t.Errorf("spent = %v, want 2s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("spent waits on a FIFO")
	}
}
