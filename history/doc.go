// Package history owns nlutest's store of finished runs: one file
// (bbolt, an embedded key/value database with ACID transactions and a
// file lock) holding, per suite and target, each run's metrics tree as
// report.json wrote it, with its label, commit, times, verdict,
// thresholds and interval settings (docs/cli.md, "nlutest history").
// It reads the store for the drift gate and for `nlutest history show`:
// a metric's series of values and intervals, oldest first
// ([Store.Runs], [Run.Point]).
//
// The file records its format (FormatName, FormatVersion); a file that
// is not a history, a newer format or a damaged one gives a
// [*FileError], never a panic, and a file another process holds
// longer than the lock timeout gives a [*LockedError]. The package never
// prints and knows nothing of suites: the caller names the metrics by
// their addresses (metrics.split["smoke"].accuracy).
package history
