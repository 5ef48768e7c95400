// Package compare owns the comparisons of runs: a candidate run against a
// baseline metric by metric, with paired significance tests on the
// units both runs have (Runs: `nlutest diff`, and each target of a run
// against several targets against the first), and the side-by-side
// comparison of the runs of one suite against several targets
// (Targets: comparison.json). It reads the runs' reports and the units
// their collectors recorded (assert.Collector.RecordUnits) and does the
// statistics with assert/infer; it does no I/O. docs/statistics.md,
// "Comparing two runs", gives the tests.
package compare
