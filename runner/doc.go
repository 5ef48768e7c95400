// Package runner owns the execution of scripts (ordered turns, one session
// each; a single case is a script of one turn) against a target: building each
// request from the suite's expressions, the demo target's in-process
// service, concurrency and rate limits (through runner/transport), the
// results store (append-only JSONL flushed as calls finish) and redaction of
// secrets in everything it records.
//
// runner never prints: progress and results are handed to callbacks, and
// the command line decides what a person sees.
package runner
