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
	"os"

	"golang.org/x/term"
)

func main() {
	os.Exit(mainCode(os.Args[1:]))
}

// mainCode runs one command line as the process: real streams, the
// environment, and the signal handling of withSignals.
func mainCode(args []string) int {
	ctx, release := withSignals(os.Stderr, os.Exit)
	defer release()
	app := &App{
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Env:       os.LookupEnv,
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	return app.Run(ctx, args)
}
