// Package sheet owns a suite's ratings blocks (`ratings "NAME" { source,
// format, scale, dimensions, keep_if_diff_at_most, raters }`: Ratings,
// YDTDimensions) and the reading of their filled sheets back (Read: CSV or
// JSONL rows of people's scores, checked and joined to a run's cases by id
// and by the digest of the reply each row rated; every mistake a
// diagnostic at the sheet's file, line and column), and the agreement
// sheet people fill in for `nlutest judge agreement` (ReadVerdicts: their
// verdicts or 1–5 scores by case id, optionally by rubric). The block is a
// labelled, repeatable family settings block (Settings, a
// spec.LabelledSettingsBlock) that the ratings family (assert) declares,
// so spec's loader knows nothing of it; Of reads a suite's blocks back.
// It is a leaf over the suite language's public API (spec, schema,
// internal/csvcell): the ratings family, package ratings (ratings export),
// pipeline (judge agreement) and the ratings command import it; it never calls, evaluates or prints.
package sheet
