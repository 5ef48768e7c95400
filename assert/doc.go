// Package assert owns what a response means: it checks each case's JSONPath
// expectations and assert conditions (outcome pass, fail or error) and
// returns the case's Evaluation (its dimension analysis), collects the
// metrics tree over all results (overall and per split, level, scene path
// prefix, core / non-core and template) with one accumulator per metric
// Family per node, evaluates threshold blocks against that tree with the
// observed values, and assembles the finished report the reporters render.
//
// A metric family is a Family (its part of schema.MetricsTree, the tree's
// descriptor) and its Acc, one file each (family_cases.go,
// family_dimension.go, family_label.go, family_latency.go, and registered
// ones such as family_text.go and family_robustness.go); a new one is
// registered with RegisterFamily. Per-case work a family shares between
// the nodes a case counts in goes through Observation.Memo. A family fed
// from files rather than calls (family_ratings.go: rating sheets) adds its
// figures with Collector.AddExternal from ImportExternal, which pipeline
// calls at report time. The pure metric formulas live in assert/metrics.
package assert
