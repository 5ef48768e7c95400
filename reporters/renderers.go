package reporters

import (
	"io"

	"github.com/nlutest/nlutest/schema"
)

// Renderer is one report format that run, eval and merge write on request:
// the command line's --report-NAME FILE (repeatable) is derived from it, as
// are the checks that keep a report off the run's own files and the line
// that lists the reports written. A new format is a file with its render
// function and a Renderer, and a line in DefaultRenderers (or in the
// renderers a program passes down).
type Renderer struct {
	// Name is the format's name: the flag --report-NAME, and what the
	// report paths line calls it ("junit → out.xml").
	Name string
	// Help is the flag's help.
	Help string
	// Write renders the finished report to w. Files never get colour
	// (opts.Color is false).
	Write func(w io.Writer, rep *schema.Report, opts Options) error
	// Summary marks a format a CI job summary collects: a FILE equal to
	// $GITHUB_STEP_SUMMARY is appended to, as GitHub gathers every step's
	// summary in that one file.
	Summary bool
	// Compare renders a run against several targets (the comparison and
	// each target's report, in the comparison's order); nil when the
	// format has no comparison form (run then says it skipped the file).
	Compare func(w io.Writer, c *schema.Comparison, reps []*schema.Report, opts Options) error
	// ReadsListing marks a format that reads a report's cases only through
	// schema.Report's ListedCases, CaseAt and NumCases, as every format
	// nlutest ships does. A report run or eval builds lists its cases
	// from the collector and leaves Cases nil; for a format without the
	// mark, Expand fills Cases first, so a renderer that reads Cases
	// works as it always did.
	ReadsListing bool
}

// Expand fills the Cases of each report (schema.Report.ExpandCases) unless
// the format reads the listing itself (ReadsListing). Run, eval and merge
// call it before Write or Compare.
func (r Renderer) Expand(reps ...*schema.Report) {
	if r.ReadsListing {
		return
	}
	for _, rep := range reps {
		rep.ExpandCases()
	}
}

// DefaultRenderers returns the report formats nlutest ships, in the order
// their flags are listed.
func DefaultRenderers() []Renderer {
	return []Renderer{
		{Name: "junit", Help: "write a JUnit XML report to FILE (repeatable)", Write: JUnit, Compare: compareJUnit, ReadsListing: true},
		{Name: "markdown", Help: "write a Markdown report to FILE, replacing it (append it to $GITHUB_STEP_SUMMARY with cat FILE >>; repeatable)", Write: Markdown, Summary: true,
			Compare: func(w io.Writer, c *schema.Comparison, _ []*schema.Report, o Options) error {
				return MarkdownView(w, ComparisonView(c, o), o)
			}, ReadsListing: true},
		{Name: "json", Help: "write the JSON report to FILE (repeatable)", Write: func(w io.Writer, rep *schema.Report, _ Options) error { return JSON(w, rep) },
			Compare: func(w io.Writer, c *schema.Comparison, _ []*schema.Report, _ Options) error {
				return ComparisonJSON(w, c)
			}, ReadsListing: true},
		{Name: "html", Help: "write a self-contained HTML report with charts to FILE (repeatable)", Write: HTML,
			Compare: func(w io.Writer, c *schema.Comparison, _ []*schema.Report, o Options) error {
				return HTMLView(w, ComparisonView(c, o), o)
			}, ReadsListing: true},
	}
}
