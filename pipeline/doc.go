// Package pipeline owns the orchestration of a run, as a library the
// command line calls:
//
//   - case selection (select.go): a split, a --filter regular expression and
//     one shard of a stable partition, over scripts (a single case is a
//     script of one turn; the shard keys on the script id, so a script is
//     always selected, run and resumed whole), and the size of the selection;
//   - the run directory (rundir.go): where it goes, run.json (how the run
//     was made), report.json's place, and the rules that protect a recorded
//     run (an existing run is never overwritten; a resumed run keeps its
//     selection);
//   - a live run (run.go): preparing it, resuming it (repairing a torn last
//     line and replaying what is recorded, so only unrecorded scripts run),
//     executing it through runner.Run with the evaluator, the collector, the
//     results writer and a per-result callback, and assembling its report;
//     a conversation's turns are recorded together when it ends, resume
//     drops a conversation cut short at the end of the results, and
//     --repeat runs every script N times (scripts.go);
//   - replay of saved results (replay.go): the parallel engine behind
//     `run --resume`, `eval` and `merge`, and the offline evaluation and
//     merging of run directories (offline.go);
//   - figures from files the suite imports at report time (external.go):
//     rating sheets joined to the run's cases, added before the report is
//     built (a bad sheet is a *SheetError, exit 2).
//
// pipeline never prints: progress goes to a callback, notices to
// Options.Notice, warnings into the report, and refusals come back as
// errors (an *InvalidError when the request itself is wrong). Rendering and
// writing reports belong to the caller (cmd/nlutest with reporters).
package pipeline
