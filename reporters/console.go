package reporters

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/nlutest/nlutest/schema"
)

// Console caps that keep a terminal report readable; the Markdown and JSON
// reports hold the rest.
const (
	consoleMaxValues    = 15 // per-value rows of one dimension
	consoleMaxLabels    = 30 // per-label rows of one label dimension
	consoleMaxConfusion = 12 // labels of a confusion matrix shown in full
)

// palette holds the console's colours. Each is switched on or off per
// object, so neither color.NoColor nor the environment is consulted.
type palette struct {
	pass, fail, warn, bold, dim *color.Color
	passBold, failBold          *color.Color
}

func newPalette(on bool) palette {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return palette{
		pass: mk(color.FgGreen),
		fail: mk(color.FgRed),
		warn: mk(color.FgYellow),
		bold: mk(color.Bold),
		dim:  mk(color.Faint),

		passBold: mk(color.FgGreen, color.Bold),
		failBold: mk(color.FgRed, color.Bold),
	}
}

// console renders one report for a terminal.
type console struct {
	r    *schema.Report
	o    Options
	p    palette
	b    bytes.Buffer
	cell int                  // display-width cap of free-text cells
	rw   *runewidth.Condition // East-Asian-ambiguous characters narrow, as in the tables
}

// Console writes the human report: the verdict line, thresholds, the main
// metric tables, the failing cases worst first (capped), and the verdict
// again. Output is plain text unless o.Color is set; symbols (✓ ✗ !) keep
// it readable without colour. Tables are drawn by tablewriter with East
// Asian ambiguous widths off, so Chinese text lines up.
func Console(w io.Writer, r *schema.Report, o Options) error {
	if r == nil {
		return errNilReport
	}
	c := &console{
		r:    r,
		o:    o,
		p:    newPalette(o.Color),
		cell: max(16, o.width()/2),
		rw:   &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true},
	}
	steps := []func() error{
		c.verdict, c.thresholds, c.cases, c.scenes, c.templates,
		c.dimensions, c.labels, c.latency, c.failures, c.warnings,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	c.verdictLine()
	_, err := w.Write(c.b.Bytes())
	return err
}

// statusWord is PASS or FAIL, coloured.
func (c *console) statusWord() string {
	if verdictPass(c.r) {
		return c.p.passBold.Sprint("PASS")
	}
	return c.p.failBold.Sprint("FAIL")
}

func (c *console) verdictLine() {
	fmt.Fprintf(&c.b, "%s  %s\n", c.statusWord(), headline(c.r))
}

func (c *console) verdict() error {
	c.verdictLine()
	for _, s := range reasons(c.r) {
		fmt.Fprintf(&c.b, "      - %s\n", s)
	}
	var ctx []string
	if s := oneLine(c.r.Run.Target); s != "" {
		ctx = append(ctx, "target "+s)
	}
	if s := oneLine(c.r.Run.Split); s != "" {
		ctx = append(ctx, "split "+s)
	}
	if s := oneLine(c.r.Run.Filter); s != "" {
		ctx = append(ctx, "filter "+s)
	}
	if s := oneLine(c.r.Run.ID); s != "" {
		ctx = append(ctx, "run "+s)
	}
	if s := oneLine(c.r.Version); s != "" {
		ctx = append(ctx, toolName(c.r)+" "+s)
	}
	if len(ctx) > 0 {
		fmt.Fprintf(&c.b, "      %s\n", c.p.dim.Sprint(strings.Join(ctx, " · ")))
	}
	c.b.WriteByte('\n')
	return nil
}

// title writes a section title in bold.
func (c *console) title(s string) {
	fmt.Fprintf(&c.b, "%s\n", c.p.bold.Sprint(s))
}

// text cleans and caps a free-text cell by display width.
func (c *console) text(s string) string {
	s = oneLine(s)
	if c.rw.StringWidth(s) > c.cell {
		s = c.rw.Truncate(s, c.cell, "…")
	}
	return s
}

// long cleans a free-text line and caps it at n console widths, so a huge
// utterance or response value cannot flood the terminal.
func (c *console) long(s string, n int) string {
	s = oneLine(s)
	if limit := n * c.o.width(); c.rw.StringWidth(s) > limit {
		s = c.rw.Truncate(s, limit, "…")
	}
	return s
}

// table renders rows under a header with tablewriter, indented by two
// spaces, followed by a blank line. align gives each column's alignment.
func (c *console) table(header []string, align []tw.Align, rows [][]string) error {
	var buf bytes.Buffer
	t := ConsoleTable(&buf, align)
	t.Header(header)
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return fmt.Errorf("console table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("console table: %w", err)
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		c.b.WriteString("  " + line)
	}
	c.b.WriteByte('\n')
	return nil
}

// ConsoleTable is the one table style of nlutest's console output (the
// report, `nlutest stats`): no borders, a rule under the header, no
// wrapping (cells are capped by the caller), East Asian ambiguous width off
// (gotcha #17, so Chinese text lines up) and header text as written
// (gotcha #18).
func ConsoleTable(w io.Writer, align []tw.Align) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithEastAsian(tw.Off),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.On},
			},
		})),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
}

func aligns(spec string) []tw.Align {
	out := make([]tw.Align, len(spec))
	for i, ch := range spec {
		switch ch {
		case 'r':
			out[i] = tw.AlignRight
		case 'c':
			out[i] = tw.AlignCenter
		default:
			out[i] = tw.AlignLeft
		}
	}
	return out
}

// thresholdMark is the coloured symbol of a threshold result.
func (c *console) thresholdMark(t schema.ThresholdResult) string {
	switch thresholdStatus(t) {
	case statusPass:
		return c.p.pass.Sprint("✓")
	case statusFail:
		return c.p.fail.Sprint("✗")
	case statusError:
		return c.p.fail.Sprint("!")
	case statusWarn:
		if t.Outcome == schema.Error {
			return c.p.warn.Sprint("!")
		}
		return c.p.warn.Sprint("✗")
	}
	return c.p.dim.Sprint("-")
}

func (c *console) thresholds() error {
	if len(c.r.Thresholds) == 0 {
		return nil
	}
	c.title("Thresholds")
	header := []string{"", "threshold", "condition", "observed"}
	al := "llll"
	base := c.o.Baseline
	if base != nil {
		header = append(header, "Δ")
		al += "r"
	}
	var rows [][]string
	for _, t := range c.r.Thresholds {
		name := c.text(t.Name)
		if isWarn(t) {
			name += " (warn)"
		}
		obs := observedText(t.Observed)
		if t.Outcome == schema.Error {
			obs = c.text("error: " + t.Error)
		} else if t.Outcome < schema.Pass {
			obs = "not evaluated"
		}
		row := []string{c.thresholdMark(t), name, oneLine(t.Condition), obs}
		if base != nil {
			d := ""
			if bt := baselineThreshold(base, t.Name); bt != nil {
				d = fmtDelta(firstObserved(t), firstObserved(*bt))
			}
			row = append(row, d)
		}
		rows = append(rows, row)
	}
	if err := c.table(header, aligns(al), rows); err != nil {
		return err
	}
	// Why a threshold could not be evaluated, in full (the cell is capped).
	notEvaluated := false
	for _, t := range c.r.Thresholds {
		if t.Outcome == schema.Error && t.Error != "" {
			fmt.Fprintf(&c.b, "  %s %s: %s\n", c.thresholdMark(t), oneLine(t.Name), oneLine(t.Error))
			notEvaluated = true
		}
	}
	if notEvaluated {
		c.b.WriteByte('\n')
	}
	return nil
}

func (c *console) cases() error {
	scopes := caseScopes(c.r.Metrics)
	if len(scopes) == 0 {
		return nil
	}
	c.title("Cases")
	header := []string{"scope", "total", "passed", "failed", "errored", "accuracy", "error rate"}
	al := "lrrrrrr"
	if c.o.Baseline != nil {
		header = append(header, "Δ accuracy")
		al += "r"
	}
	var rows [][]string
	for _, s := range scopes {
		n := s.Node
		row := []string{c.text(s.Label), strconv.Itoa(n.Total), strconv.Itoa(n.Passed),
			strconv.Itoa(n.Failed), strconv.Itoa(n.Errored), fmtRatio(n.Accuracy), fmtRatio(n.ErrorRate)}
		if c.o.Baseline != nil {
			row = append(row, fmtDelta(ratioValue(&n.Accuracy), baselineAccuracy(c.o.Baseline, s.Key)))
		}
		rows = append(rows, row)
	}
	return c.table(header, aligns(al), rows)
}

func (c *console) scenes() error {
	if c.r.Metrics == nil || len(c.r.Metrics.Scene) == 0 {
		return nil
	}
	c.title("Scenes")
	var rows [][]string
	for _, k := range sortedKeys(c.r.Metrics.Scene) {
		n := c.r.Metrics.Scene[k]
		if n == nil {
			continue
		}
		rows = append(rows, []string{c.text(k), strconv.Itoa(n.Total), strconv.Itoa(n.Passed),
			strconv.Itoa(n.Failed), strconv.Itoa(n.Errored), fmtRatio(n.Accuracy)})
	}
	return c.table([]string{"scene", "total", "passed", "failed", "errored", "accuracy"}, aligns("lrrrrr"), rows)
}

// outcomeMark is the coloured symbol of a case or group outcome.
func (c *console) outcomeMark(o schema.Outcome) string {
	switch o {
	case schema.Pass:
		return c.p.pass.Sprint("✓")
	case schema.Fail:
		return c.p.fail.Sprint("✗")
	case schema.Error:
		return c.p.fail.Sprint("!")
	}
	return c.p.dim.Sprint("-")
}

func (c *console) templates() error {
	if len(c.r.Groups) == 0 {
		return nil
	}
	c.title("Templates")
	var rows [][]string
	for _, g := range c.r.Groups {
		name := c.text(g.Name)
		if k := groupKind(g); k != "template" {
			name = k + " " + name
		}
		if g.Unreviewed {
			name += " (draft)"
		}
		acc := ""
		if c.r.Metrics != nil {
			if n := c.r.Metrics.Template[g.Name]; n != nil {
				acc = fmtRatio(n.Accuracy)
			}
		}
		rows = append(rows, []string{c.outcomeMark(g.Outcome), name, strconv.Itoa(g.Total), strconv.Itoa(g.Passed),
			strconv.Itoa(g.Failed), strconv.Itoa(g.Errored), acc, fmtSeconds(g.Seconds), c.text(location(g.File, g.Line))})
	}
	return c.table([]string{"", "template", "total", "passed", "failed", "errored", "accuracy", "time", "at"},
		aligns("llrrrrrrl"), rows)
}

func (c *console) dimensions() error {
	if c.r.Metrics == nil || len(c.r.Metrics.Dimension) == 0 {
		return nil
	}
	dims := c.r.Metrics.Dimension
	var counted, whole [][]string
	for _, k := range sortedKeys(dims) {
		d := dims[k]
		if d == nil {
			continue
		}
		switch d.Kind {
		case schema.KindCase:
			whole = append(whole, []string{c.text(k), strconv.Itoa(d.Total), strconv.Itoa(d.Correct), fmtRatioPtr(d.Accuracy)})
		case schema.KindLabel:
			// Shown with the label metrics.
		default:
			counted = append(counted, []string{c.text(k), oneLine(d.Kind), fmtRatioPtr(d.Precision),
				fmtRatioPtr(d.Recall), fmtRatioPtr(d.F1), fmtRatioPtr(d.ErrorRate)})
		}
	}
	if len(counted) > 0 {
		c.title("Dimensions")
		if err := c.table([]string{"dimension", "kind", "precision", "recall", "F1", "error rate"}, aligns("llrrrr"), counted); err != nil {
			return err
		}
	}
	if len(whole) > 0 {
		c.title("Whole-case dimensions")
		if err := c.table([]string{"dimension", "total", "correct", "accuracy"}, aligns("lrrr"), whole); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(dims) {
		d := dims[k]
		if d == nil || len(d.Values) == 0 {
			continue
		}
		keys := dimensionValues(d)
		t := fmt.Sprintf("%s by value", oneLine(k))
		if len(keys) > consoleMaxValues {
			t += fmt.Sprintf(" (worst %d of %d)", consoleMaxValues, len(keys))
			keys = keys[:consoleMaxValues]
		}
		var rows [][]string
		for _, v := range keys {
			x := d.Values[v]
			if x == nil {
				continue
			}
			rows = append(rows, []string{c.text(v), fmtRatioPtr(x.Precision), fmtRatioPtr(x.Recall),
				fmtRatioPtr(x.F1), fmtRatioPtr(x.ErrorRate)})
		}
		c.title(t)
		if err := c.table([]string{"value", "precision", "recall", "F1", "error rate"}, aligns("lrrrr"), rows); err != nil {
			return err
		}
	}
	return nil
}

func (c *console) labels() error {
	if c.r.Metrics == nil {
		return nil
	}
	for _, name := range sortedKeys(c.r.Metrics.Label) {
		l := c.r.Metrics.Label[name]
		if l == nil {
			continue
		}
		c.title("Label " + oneLine(name))
		rows := labelSummaryRows(l, false)
		if err := c.table([]string{"metric", "value"}, aligns("lr"), rows); err != nil {
			return err
		}
		if len(l.Labels) > 0 {
			keys := sortedKeys(l.Labels)
			t := oneLine(name) + " per label"
			if len(keys) > consoleMaxLabels {
				t += fmt.Sprintf(" (first %d of %d)", consoleMaxLabels, len(keys))
				keys = keys[:consoleMaxLabels]
			}
			var lrows [][]string
			for _, k := range keys {
				s := l.Labels[k]
				if s == nil {
					continue
				}
				lrows = append(lrows, []string{c.text(k), fmtRatio(s.Precision), fmtRatio(s.Recall), fmtRatio(s.F1), strconv.Itoa(s.Support)})
			}
			c.title(t)
			if err := c.table([]string{"label", "precision", "recall", "F1", "support"}, aligns("lrrrr"), lrows); err != nil {
				return err
			}
		}
		if err := c.confusion(name, l.Confusion); err != nil {
			return err
		}
	}
	return nil
}

func (c *console) confusion(name string, m *schema.Confusion) error {
	if m == nil || len(m.Labels) == 0 {
		return nil
	}
	if len(m.Labels) > consoleMaxConfusion {
		c.title(fmt.Sprintf("%s confusion matrix: %d labels, too wide for the console (see the Markdown or JSON report)",
			oneLine(name), len(m.Labels)))
		c.b.WriteByte('\n')
		return nil
	}
	c.title(oneLine(name) + " confusion matrix (rows expected, columns predicted)")
	header := []string{"expected \\ predicted"}
	al := "l"
	for _, l := range m.Labels {
		header = append(header, c.rw.Truncate(oneLine(l), 12, "…"))
		al += "r"
	}
	var rows [][]string
	for i, l := range m.Labels {
		row := []string{c.text(l)}
		for j := range m.Labels {
			v := 0
			if i < len(m.Counts) && j < len(m.Counts[i]) {
				v = m.Counts[i][j]
			}
			row = append(row, strconv.Itoa(v))
		}
		rows = append(rows, row)
	}
	return c.table(header, aligns(al), rows)
}

func (c *console) latency() error {
	if c.r.Metrics == nil || c.r.Metrics.Latency == nil {
		return nil
	}
	rows := latencyRows(c.r.Metrics.Latency, oneLine)
	c.title("Latency (ms; buckets by input length)")
	return c.table([]string{"bucket", "count", "mean", "p50", "p90", "p95", "p99", "max"}, aligns("lrrrrrrr"), rows)
}

func (c *console) failures() error {
	fail := failingCases(c.r)
	if len(fail) == 0 {
		return nil
	}
	limit := c.o.failureCap(defaultConsoleFailures)
	t := fmt.Sprintf("Failing cases (%d, worst first", len(fail))
	if c.r.Verdict.ByThresholds || len(c.r.Thresholds) > 0 {
		t += "; the thresholds decide the verdict"
	}
	c.title(t + ")")
	for i, fc := range fail {
		if limit > 0 && i >= limit {
			fmt.Fprintf(&c.b, "  … and %d more failing %s\n", len(fail)-limit, plural(len(fail)-limit, "case", "cases"))
			break
		}
		head := []string{c.outcomeMark(fc.Outcome), c.long(fc.Text, 2)}
		if id := oneLine(fc.ID); id != "" {
			head = append(head, c.p.dim.Sprint("["+id+"]"))
		}
		if tpl := oneLine(fc.Template); tpl != "" {
			head = append(head, "template "+tpl)
		}
		if loc := location(fc.File, fc.Line); loc != "" {
			head = append(head, c.p.dim.Sprint(loc))
		}
		fmt.Fprintf(&c.b, "  %s\n", strings.Join(head, "  "))
		if fc.Error != nil {
			fmt.Fprintf(&c.b, "      %s\n", c.p.fail.Sprint(c.long(callErrorLine(fc.Error), 4)))
		}
		for _, f := range fc.Failures {
			line := c.long(failureLine(f), 4)
			if loc := location(f.File, f.Line); loc != "" {
				line += "  " + c.p.dim.Sprint(loc)
			}
			fmt.Fprintf(&c.b, "      %s\n", line)
		}
		if fc.Error == nil && len(fc.Failures) == 0 {
			fmt.Fprintf(&c.b, "      %s\n", fc.Outcome)
		}
	}
	c.b.WriteByte('\n')
	return nil
}

func (c *console) warnings() error {
	if len(c.r.Warnings) == 0 {
		return nil
	}
	c.title("Warnings")
	for _, w := range c.r.Warnings {
		fmt.Fprintf(&c.b, "  %s %s\n", c.p.warn.Sprint("!"), oneLine(w))
	}
	c.b.WriteByte('\n')
	return nil
}
