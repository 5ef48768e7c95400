// Package assert owns what a response means: it checks each case's JSONPath
// expectations and assert conditions (outcome pass, fail or error), collects
// the metrics tree over all results (overall and per split, level, scene
// path prefix, core / non-core and template), evaluates threshold blocks
// against that tree with the observed values, and assembles the finished
// report the reporters render. The pure metric formulas live in
// assert/metrics.
package assert
