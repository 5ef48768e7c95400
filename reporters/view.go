package reporters

import (
	"math"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// View is what a human-readable report shows, independent of the format:
// a head, then sections of titled tables, charts and notes. It is built
// once (ReportView, StatsView, DiffView) and rendered by each renderer
// (ConsoleView, MarkdownView, HTMLView). Cells
// hold user text raw: each renderer cleans and escapes it for its format,
// so cleaning is written once per format, not once per table.
type View struct {
	// Verdict is the head of a run report; nil for other documents.
	Verdict *Verdict
	// Title is the head of other documents (stats, diff).
	Title string
	// Context are short facts under the head: target, run id, A and B.
	Context []Field
	// Level is the Markdown heading level of the head; sections are one
	// level deeper.
	Level int
	// Capitalize starts column headers and term cells with a capital
	// letter in wide renderers (Markdown, HTML), as the run report reads;
	// stats keep headers as written.
	Capitalize bool
	// CellWidth caps the display width of clipped cells in narrow
	// renderers (the console); 0 means half the console width.
	CellWidth int
	Sections  []Section
}

// Verdict is the head of a run report.
type Verdict struct {
	Pass        bool
	Headline    string   // "iao-hotel: 3/3 thresholds met · 41 passed, …"
	Reasons     []string // why it failed (or notes on a pass), one line each
	Description string   // the suite's description (wide renderers)
}

// Field is one fact of a head's context line: "target demo".
type Field struct {
	Label, Value string
	Code         bool // the value is shown as code where the format has it
	Wide         bool // only wide renderers show it
}

// Section is a titled part of a document. Sections sharing an ID are one
// unit for a renderer that must leave parts out (Markdown's size limit).
type Section struct {
	ID    string
	Title string
	// Code is a name shown after the title as code: "Label `intent`".
	Code string
	// Brief replaces Title in narrow renderers, which do not show Intro.
	Brief string
	// Intro is a sentence under the title (wide renderers).
	Intro    string
	Tables   []Table
	Charts   []Chart
	Notes    []Note
	Failures *Failures
	// Transcripts are conversations shown turn by turn (failed ones).
	Transcripts []*Transcript
}

// Table is one table: columns, rows of cells and a note on how to read it
// (what n means).
type Table struct {
	// Title is shown above the table by narrow renderers, and as the
	// summary of a collapsed table by wide ones.
	Title   string
	Columns []Column
	Rows    [][]Cell
	Note    string
	// Collapsed tables are folded away in wide renderers (<details>).
	Collapsed bool
	// Ranked rows come worst first, so a capped list shows what matters.
	Ranked bool
	// Cap is the number of rows narrow renderers show (0: all).
	Cap int
}

// Align is a column's alignment; the zero value is Left (or, for
// BriefAlign, the column's Align).
type Align uint8

// Alignments.
const (
	Left Align = iota + 1
	Right
	Center
)

// Column is a table column.
type Column struct {
	Header string
	// Brief replaces Header in narrow renderers.
	Brief string
	Align Align
	// BriefAlign replaces Align in narrow renderers.
	BriefAlign Align
	// Wide columns are left out by narrow renderers.
	Wide bool
}

// Style says how a cell's text is meant; renderers map it to their format.
type Style uint8

// Cell styles.
const (
	// Clip marks free text that narrow renderers cut to the cell width.
	Clip Style = 1 << iota
	// Code is shown as code (conditions, file locations).
	Code
	// Strong is emphasised (an observed value, a matrix diagonal).
	Strong
	// Term is a metric name, capitalised like headers.
	Term
)

// Mark is a status symbol: MarkSymbol's on the console and in HTML,
// emoji in Markdown.
type Mark uint8

// Marks.
const (
	NoMark    Mark = iota
	MarkPass       // met, passed
	MarkFail       // a gate not met, a case failed
	MarkError      // could not be evaluated, a call errored
	MarkWarn       // a warn-severity threshold not met
	MarkAlert      // a warning (or a warn-severity threshold not evaluated)
	MarkSkip       // not evaluated
)

// MarkSymbol is the symbol of a mark on the console and in HTML, the
// same in both (colour tells more where there is colour; the symbols
// alone keep a failure that does not decide the verdict apart from one
// that does): ✓ pass, ✗ fail, ! error, ⚠ a non-gating failure or a
// warning, - not evaluated; "" for NoMark.
func MarkSymbol(m Mark) string {
	switch m {
	case NoMark:
		return ""
	case MarkPass:
		return "✓"
	case MarkFail:
		return "✗"
	case MarkError:
		return "!"
	case MarkWarn, MarkAlert:
		return "⚠"
	}
	return "-"
}

// Cell is one table cell. Text is raw: renderers clean and escape it.
type Cell struct {
	Text  string
	Mark  Mark // when set, the cell shows the mark and no text
	Style Style
	// Aside is shown in parentheses after the text: "(draft)".
	Aside string
	// Tag is shown in parentheses by narrow renderers only, standing in
	// for a wide column they leave out: "(warn)".
	Tag string
	// Sub is a second, smaller line in wide renderers.
	Sub string
}

// Note is one line of a list under a section's tables.
type Note struct {
	Mark Mark
	Text string
	// Brief notes are shown by narrow renderers only: they repeat in full
	// what a clipped cell cut.
	Brief bool
}

// Failures is the list of failing cases, errors first, then worst first.
// Each renderer caps it (Options.MaxFailures) and lays cases out itself.
type Failures struct {
	Cases []*schema.CaseReport
	// ByThresholds says the thresholds, not these cases, decide.
	ByThresholds bool
	// Thresholds says the suite has thresholds.
	Thresholds bool
	// OverBudget says errored calls beyond the target's error budget fail
	// the verdict.
	OverBudget bool
}

// Mark is the mark of a listed case: a failure that does not decide the
// verdict (the thresholds do) is a warning, not a red mark (SPEC §9).
func (f *Failures) Mark(c *schema.CaseReport) Mark {
	if c.Outcome == schema.Fail && f.ByThresholds {
		return MarkWarn
	}
	return outcomeMark(c.Outcome)
}

// Reading says how the list relates to the verdict, or "" when every case
// had to pass.
func (f *Failures) Reading() string {
	switch {
	case f.OverBudget && f.ByThresholds:
		return "errored calls beyond the target's error budget fail the verdict; the thresholds decide the rest"
	case f.OverBudget:
		return "errored calls beyond the target's error budget fail the verdict"
	case f.ByThresholds:
		return "the thresholds decide the verdict"
	}
	return ""
}

// ChartKind names what a chart shows.
type ChartKind string

// Chart kinds.
const (
	// ChartConfusion is a confusion matrix: rows expected, columns
	// predicted (Matrix).
	ChartConfusion ChartKind = "confusion"
	// ChartHistogram is a histogram: one point per bucket, in order.
	ChartHistogram ChartKind = "histogram"
	// ChartBars is a bar chart: one point per label, one bar per series.
	ChartBars ChartKind = "bars"
	// ChartDistribution is a histogram of one value over the cases: one
	// point per bin, in order, one series (the number of cases).
	ChartDistribution ChartKind = "distribution"
	// ChartReliability is a reliability diagram: one point per confidence
	// bin, in order, Values accuracy and mean confidence (NaN when empty).
	ChartReliability ChartKind = "reliability"
	// ChartROC is a curve in the unit square: Values of each point are x
	// and y (a ROC curve: FPR, TPR), Series their names.
	ChartROC ChartKind = "roc"
	// ChartTrend is a metric's history (Trend): one point per run, oldest
	// first, with its interval, the changes of level and the drift gate's
	// window level.
	ChartTrend ChartKind = "trend"
)

// Chart is data for a graphical renderer; text renderers draw only the
// confusion matrix (as a table) and leave the others to the tables.
type Chart struct {
	Kind  ChartKind
	Title string
	// Name is what the chart is about (a label dimension's name).
	Name string
	// Unit of the values: "ms", "ratio".
	Unit string
	// Series names the values of each point: "p50", "p95" …, or
	// "precision", "recall", "F1".
	Series []string
	Points []Point
	Matrix *Matrix
	// Tree says the point labels are "/"-separated paths (scenes), in
	// order, each prefix before its children: a graphical renderer may
	// draw them as a tree.
	Tree bool
	// Trend is the history a ChartTrend draws.
	Trend *schema.MetricHistory
}

// Point is one bar or bucket. Values line up with the chart's Series; a
// value without data is NaN. N is the sample size behind the point. Lo and
// Hi, when set, line up with Values too: each value's confidence interval
// (NaN where it has none), which graphical renderers draw as error bars.
type Point struct {
	Label  string
	Values []float64
	N      int
	Lo, Hi []float64
}

// withCI sets p's intervals from the ratios its values come from, in
// order; a point none of whose ratios has one gets none.
func (p Point) withCI(rs ...*schema.Ratio) Point {
	lo, hi := make([]float64, len(rs)), make([]float64, len(rs))
	any := false
	for i, r := range rs {
		lo[i], hi[i] = math.NaN(), math.NaN()
		if r == nil {
			continue
		}
		if l, h, ok := r.CI(); ok {
			lo[i], hi[i], any = l, h, true
		}
	}
	if any {
		p.Lo, p.Hi = lo, hi
	}
	return p
}

// ci returns the interval of value k, and false without one.
func (p *Point) ci(k int) (lo, hi float64, ok bool) {
	if k >= len(p.Lo) || k >= len(p.Hi) || math.IsNaN(p.Lo[k]) || math.IsNaN(p.Hi[k]) {
		return 0, 0, false
	}
	return p.Lo[k], p.Hi[k], true
}

// Matrix is a confusion matrix: Counts[i][j] cases expected Labels[i]
// were predicted Labels[j].
type Matrix struct {
	Labels []string
	Counts [][]int
}

// startedText formats a run's start for the context line.
func startedText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" }
