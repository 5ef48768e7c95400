// Package schema owns the records that cross nlutest's stage boundaries:
// the generated case (one JSONL line of `nlutest generate`), the result of
// calling the target with it (one JSONL line of a run's results file), and the
// finished report that every reporter renders. It also defines the ordered
// outcome type shared by all stages, and the descriptor of the metrics tree
// (MetricsTree, tree.go): the one place the tree's shape is written, which
// thresholds, validate, --list-metrics, JUnit and the report JSON read.
//
// Field names are part of nlutest's file formats; they are documented in
// docs/records.md and must only change together with that document. The
// case record's fields are listed once, in CaseFields (fields.go): the
// `case` object of expressions and the CSV columns derive from it, and
// fields_test.go fails when the hand-written encoder or decoders miss one.
//
// This package imports only the standard library, ojg and jsondoc (this
// module's JSON leaf package: tokenizer, writer, tape), so any tool can read
// nlutest's files by importing it alone.
package schema
