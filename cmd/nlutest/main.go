// Command nlutest runs declarative NLU test suites: it reads HCL suite
// files, generates utterances, calls the NLU service or chatbot, evaluates
// expectations, computes metrics, checks thresholds and writes console,
// JUnit XML, Markdown and JSON reports with an exit code CI can gate on.
//
// This package owns the command line: flags, commands, exit codes and
// what a person sees (progress, notices, reports). It parses flags, calls
// package pipeline for everything a run does (selection, run directory,
// resume, execution, replay for eval and merge) and renders the result with
// reporters. All process state (arguments, environment,
// streams, terminal detection, clock) is injected through App, so the whole
// CLI runs in-process in tests.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := &App{
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Env:       os.LookupEnv,
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	code := app.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
