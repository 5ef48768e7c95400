// Package runner owns the execution of scripts against a target: Run takes
// scripts (ordered turns; a single case is a script of one turn), opens a
// session per script through the target's Caller, runs the turns of a
// script in order and scripts in parallel, and hands each result with its
// evaluation to a callback. It also owns the results store (append-only
// JSONL flushed as calls finish) and the response cache; the kinds redact
// everything they record with package redact's Redactor (Build.Redactor).
//
// The kinds of target (http, rasa, exec, replay, demo), with their requests,
// concurrency and rate limits (through runner/transport) and the demo's
// in-process service, live in runner/targets.
//
// runner never prints: progress and results are handed to callbacks, and
// the command line decides what a person sees.
package runner
