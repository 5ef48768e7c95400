// Package assert owns what a response means: it checks each case's JSONPath
// expectations and assert conditions (outcome pass, fail or error) and
// returns the case's Evaluation (its dimension analysis), collects the
// metrics tree over all results (overall and per split, level, scene path
// prefix, core / non-core and template) with one accumulator per metric
// Family per node, evaluates threshold blocks against that tree with the
// observed values, and assembles the finished report the reporters render.
//
// A metric family is a Family (its part of the metrics tree's descriptor,
// spec.Suite.Tree) and its Acc, one file each (family_cases.go,
// family_dimension.go, family_label.go, family_latency.go, family_text.go,
// family_robustness.go…); DefaultFamilies lists the built-in ones, and a
// program passes the families it wants to NewCollector (docs/architecture.md). Per-case work a family shares between
// the nodes a case counts in goes through Observation.Memo. A family fed
// from files rather than calls (family_ratings.go: rating sheets) adds its
// figures with Collector.AddExternal from ImportExternal, which pipeline
// calls at report time. The pure metric formulas live in assert/metrics.
package assert
