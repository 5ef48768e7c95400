package main

import (
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Tests here must not depend on the machine being idle (issue 24, item
// 14): a timeout that must not fire is generous, and where a timeout must
// fire, the command or service blocks until the test releases it, so it
// fires however fast or slow the machine is. What a test waits for is
// bounded by hangLimit, which only a hung program reaches.

// hangLimit bounds a wait for something that must happen: a run ending, a
// child exiting, a service starting. It is never a timing assertion: a
// working program is far within it however loaded the machine, and a
// hung one would wait for ever.
const hangLimit = 3 * time.Minute

// holdDir returns a directory that exists until the test ends. A command
// told to wait while it exists (blockShell, with HOLD set to it) never
// finishes on its own, so a timeout must fire to end its call; once the
// test is over it ends by itself.
func holdDir(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}

// blockShell is a shell loop that waits while the directory named by the
// environment variable HOLD exists.
const blockShell = `while [ -d "$HOLD" ]; do sleep 0.05; done`

// gate holds a service's requests, from the n-th one after arm, until
// release: a run against it cannot finish before the test has acted (a
// kill, an interrupt), whatever the machine's speed.
type gate struct {
	mu    sync.Mutex
	armed bool
	left  int           // requests to let through before holding
	held  chan struct{} // closed when the first request is held
	open  chan struct{} // closed by release
}

func newGate(t *testing.T) *gate {
	g := &gate{open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

// arm lets n-1 requests through and holds the n-th and every later one;
// the returned channel is closed when the n-th arrives.
func (g *gate) arm(n int) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.left, g.held, g.open = true, n-1, make(chan struct{}), make(chan struct{})
	return g.held
}

// release lets the held requests go on (those whose client was killed end)
// and disarms the gate.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed {
		close(g.open)
		g.armed = false
	}
}

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		var open chan struct{}
		if g.armed {
			if g.left == 0 {
				open = g.open
				select {
				case <-g.held:
				default:
					close(g.held)
				}
			} else {
				g.left--
			}
		}
		g.mu.Unlock()
		if open != nil {
			select {
			case <-open:
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// killHeld starts cmd (a child run against a service behind g), holds the
// service from its n-th request on, and kills the child's process group
// after pause once a request is held. It reports whether the child was
// killed mid-way: false when it finished before its n-th request.
func killHeld(t *testing.T, cmd *exec.Cmd, g *gate, n int, pause time.Duration) bool {
	t.Helper()
	held := g.arm(n)
	defer g.release()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-held:
		time.Sleep(pause) // the calls before the n-th go on: not an assertion
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err := <-done
		return err != nil && strings.Contains(err.Error(), "killed")
	case <-done:
		return false
	case <-time.After(hangLimit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("the run neither reached its %d-th request nor ended within %s", n, hangLimit)
		return false
	}
}
