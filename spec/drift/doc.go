// Package drift owns the model of a threshold's drift gate, its history
// block (docs/language.md#history): the metrics it watches, each with the
// direction it improves in ([Metric]), the window of earlier runs, the
// drop allowed and the test's alpha ([Gate], [DefaultWindow],
// [DefaultAlpha], [DefaultMinRuns]), and how a threshold's condition says
// which way a metric improves ([Direction]).
//
// The package does not decode the block, resolve its metric against the
// metrics tree or compute the drift: the suite loader (package spec)
// decodes and checks the block, and the evaluator (assert) reads the
// history file and tests each watched metric.
package drift
