// Package reporters owns the five renderings of a finished run: the console
// report people read in a terminal, the JUnit XML file CI systems read, the
// GitHub-flavoured Markdown summary for $GITHUB_STEP_SUMMARY and pull
// requests, the self-contained HTML page with SVG charts (html.go,
// htmlchart.go), and the JSON report other tools read (its shape is documented in
// docs/report-json.md). It also owns WriteFile, which writes any of them
// atomically.
//
// The human-readable renderings share one view model (view.go): ReportView
// builds it once from a report (sections of titled tables, notes and chart
// data, and the transcripts of failed conversations: transcript.go),
// StatsView and DiffView build it for `nlutest stats` and `nlutest
// diff`, and ConsoleView, MarkdownView and HTMLView render any view. Text cleaning
// and escaping live in the renderers (console: one line, no control
// characters, clipped by display width; Markdown: HTML, pipes, backticks
// and Markdown punctuation escaped; HTML: cleaned, then HTML-escaped), so
// every table gets the same.
//
// Renderers only render: they read a *schema.Report and never call the
// network, read suites or compute metrics. Every figure they show comes from
// the report (ratios through schema.Ratio.Value), so the five reports always
// agree with each other and with the verdict.
//
// The rule every renderer keeps is SPEC §9's: a red mark means what the
// verdict means. In a suite with thresholds only threshold blocks of severity
// "error" can fail (single utterances failing is normal for NLU); in a suite
// without thresholds every case must pass.
package reporters
