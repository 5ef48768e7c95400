// Package pipeline owns the orchestration of a run, as a library the
// command line calls:
//
//   - case selection (select.go): a split, a --filter regular expression and
//     one shard of a stable partition, over scripts (a single case is a
//     script of one turn; the shard keys on the script id, so a script is
//     always selected, run and resumed whole), and the size of the selection;
//   - the run directory (rundir.go): where it goes, run.json (how the run
//     was made, and the time its sessions spent, a killed one included),
//     report.json's place, and the rules that protect a recorded run (an
//     existing run is never overwritten; a resumed run keeps its
//     selection);
//   - names that become paths (pathname.go): PathName is the one place a
//     suite's or target's name becomes a path component, PathKey the key
//     under which two components are one directory on a file system that
//     ignores case;
//   - runs against several targets (targets.go, compare.go): targets.json,
//     how far each target's run has come, and the comparison;
//   - a live run (run.go): preparing it, resuming it (repairing a torn last
//     line and replaying what is recorded, so only unrecorded scripts run),
//     executing it through runner.Run with the evaluator, the collector, the
//     results writer and a per-result callback, counting its cases (one
//     per checked reply: Cases, Done, CaseDelta), and assembling its report;
//     a conversation's turns are recorded together when it ends, resume
//     drops a conversation cut short at the end of the results, and
//     --repeat runs every script N times (scripts.go);
//   - replay of saved results (replay.go): the parallel engine behind
//     `run --resume`, `eval` and `merge`, and the offline evaluation and
//     merging of run directories (offline.go);
//   - figures from files the suite imports at report time (external.go):
//     rating sheets joined to the run's cases (checked against the replies'
//     digests, ratings.ReplyDigests), added before the report is built (a
//     bad sheet is a *SheetError, exit 2);
//   - judge agreement (agreement.go, judge_agreement.go): reading a run's
//     memory or rubric verdicts and checking people's ratings against
//     them, with located refusals; people's CSV sheet is read by
//     ratings/sheet (ReadVerdicts), the tables and Cohen's kappa are
//     assert's (assert.Agree, assert.AgreeScores).
//
// pipeline owns orchestration only: the concepts it wires together live
// with their owners — the rating sheet's items, digests and CSV files in
// ratings and ratings/sheet, agreement and every metric in assert, the suite language in
// spec, calling targets in runner.
//
// pipeline never prints: progress goes to a callback, notices to
// Options.Notice, warnings into the report, and refusals come back as
// errors (an *InvalidError when the request itself is wrong). Rendering and
// writing reports belong to the caller (cmd/nlutest with reporters).
package pipeline
