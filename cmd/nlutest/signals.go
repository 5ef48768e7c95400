package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long a command may take to stop after the first
// SIGINT or SIGTERM before the process quits anyway (exit 130): every
// command ends within 2 s of an interrupt. A second interrupt quits at
// once. A variable only so tests can lengthen it in a child process.
var stopGrace = time.Second

// withSignals returns a context cancelled by the first SIGINT or SIGTERM,
// and makes a write to a closed stdout or stderr an EPIPE error instead of
// the silent death Go's runtime deals by default (`nlutest run … | head -1`
// must still write its report files: os/signal, "SIGPIPE"). After the
// first signal, exit(130) is called when the command has not returned
// within stopGrace, or at once on a second signal. release undoes it all.
func withSignals(stderr io.Writer, exit func(int)) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// Notified, SIGPIPE no longer kills the process: writes to a broken
	// pipe fail with EPIPE, which the commands treat as non-fatal.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	quit := make(chan struct{})
	go watchSignals(sigs, quit, cancel, stderr, exit)
	return ctx, func() {
		signal.Stop(sigs)
		signal.Stop(pipe)
		close(quit)
		cancel()
	}
}

// watchSignals cancels on the first signal, then exits 130 on a second
// one or when the grace has passed, unless quit closes first.
func watchSignals(sigs <-chan os.Signal, quit <-chan struct{}, cancel func(), stderr io.Writer, exit func(int)) {
	select {
	case <-sigs:
	case <-quit:
		return
	}
	cancel()
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-sigs:
		fmt.Fprintln(stderr, "\nnlutest: interrupted again: quitting now")
	case <-timer.C:
		fmt.Fprintf(stderr, "\nnlutest: still busy %s after the interrupt: quitting\n", stopGrace)
	case <-quit:
		return
	}
	exit(ExitInterrupted)
}
