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

// consoleMaxConfusion is the number of labels of a confusion matrix the
// console shows in full; the Markdown and JSON reports hold larger ones.
const consoleMaxConfusion = 12

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

// console renders one view for a terminal.
type console struct {
	v    *View
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
	return ConsoleView(w, ReportView(r, o.Baseline), o)
}

// ConsoleView renders a view for a terminal: the head, then each section's
// title in bold, its tables (wide columns left out, free text cleaned to
// one line and clipped by display width, so Chinese text lines up), the
// confusion matrices and the notes. User text never reaches the terminal
// with control characters or escape sequences in it.
func ConsoleView(w io.Writer, v *View, o Options) error {
	c := &console{
		v:    v,
		o:    o,
		p:    newPalette(o.Color),
		cell: max(16, o.width()/2),
		rw:   &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true},
	}
	if v.CellWidth > 0 {
		c.cell = v.CellWidth
	}
	c.head()
	for i := range v.Sections {
		if err := c.section(&v.Sections[i]); err != nil {
			return err
		}
	}
	if v.Verdict != nil {
		c.verdictLine()
	}
	_, err := w.Write(c.b.Bytes())
	return err
}

// VerdictLine writes the report's verdict line as the console report
// opens and closes with it ("PASS  quickstart: 3/3 thresholds met · 21
// passed, 9 failed, 0 errored of 30 cases (30ms)") followed, on a fail, by
// one reason per line: what --quiet prints.
func VerdictLine(w io.Writer, r *schema.Report, o Options) error {
	if r == nil {
		return errNilReport
	}
	c := &console{v: &View{Verdict: verdictOf(r)}, o: o, p: newPalette(o.Color)}
	c.verdictLine()
	for _, s := range c.v.Verdict.Reasons {
		fmt.Fprintf(&c.b, "      - %s\n", s)
	}
	_, err := w.Write(c.b.Bytes())
	return err
}

// statusWord is PASS or FAIL, coloured.
func (c *console) statusWord() string {
	if c.v.Verdict.Pass {
		return c.p.passBold.Sprint("PASS")
	}
	return c.p.failBold.Sprint("FAIL")
}

func (c *console) verdictLine() {
	fmt.Fprintf(&c.b, "%s  %s\n", c.statusWord(), c.v.Verdict.Headline)
}

func (c *console) head() {
	var ctx []string
	for _, f := range c.v.Context {
		if !f.Wide {
			ctx = append(ctx, oneLine(f.Label+" "+f.Value))
		}
	}
	if c.v.Verdict == nil {
		c.title(c.v.Title)
		for _, s := range ctx {
			fmt.Fprintf(&c.b, "  %s\n", s)
		}
		c.b.WriteByte('\n')
		return
	}
	c.verdictLine()
	for _, s := range c.v.Verdict.Reasons {
		fmt.Fprintf(&c.b, "      - %s\n", s)
	}
	if len(ctx) > 0 {
		fmt.Fprintf(&c.b, "      %s\n", c.p.dim.Sprint(strings.Join(ctx, " · ")))
	}
	c.b.WriteByte('\n')
}

// title writes a section title in bold.
func (c *console) title(s string) {
	fmt.Fprintf(&c.b, "%s\n", c.p.bold.Sprint(oneLine(s)))
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

func (c *console) section(s *Section) error {
	if s.Failures != nil {
		c.failures(s.Failures)
		return nil
	}
	if s.Transcripts != nil {
		c.transcripts(s)
		return nil
	}
	title := s.Title
	if s.Brief != "" {
		title = s.Brief
	}
	if s.Code != "" {
		title += " " + s.Code
	}
	if title != "" {
		c.title(title)
	}
	for i := range s.Tables {
		if err := c.viewTable(&s.Tables[i]); err != nil {
			return err
		}
	}
	for i := range s.Charts {
		if s.Charts[i].Kind == ChartConfusion {
			if err := c.confusion(&s.Charts[i]); err != nil {
				return err
			}
		}
	}
	for _, n := range s.Notes {
		if n.Mark != NoMark {
			fmt.Fprintf(&c.b, "  %s %s\n", c.mark(n.Mark), oneLine(n.Text))
		} else {
			fmt.Fprintf(&c.b, "  %s\n", oneLine(n.Text))
		}
	}
	if len(s.Notes) > 0 {
		c.b.WriteByte('\n')
	}
	return nil
}

// viewTable renders one table of a view: its title (with the cap, when
// rows are left out), the columns narrow renderers show, and its note.
func (c *console) viewTable(t *Table) error {
	title, rows := t.Title, t.Rows
	if t.Cap > 0 && len(rows) > t.Cap {
		which := "first"
		if t.Ranked {
			which = "worst"
		}
		title += fmt.Sprintf(" (%s %d of %d)", which, t.Cap, len(rows))
		rows = rows[:t.Cap]
	}
	if title != "" {
		c.title(title)
	}
	var header []string
	var al []tw.Align
	for _, col := range t.Columns {
		if col.Wide {
			continue
		}
		h, a := col.Header, col.Align
		if col.Brief != "" {
			h = col.Brief
		}
		if col.BriefAlign != 0 {
			a = col.BriefAlign
		}
		header = append(header, oneLine(h))
		al = append(al, twAlign(a))
	}
	cells := make([][]string, len(rows))
	for i, row := range rows {
		line := make([]string, 0, len(header))
		for j, x := range row {
			if j < len(t.Columns) && t.Columns[j].Wide {
				continue
			}
			line = append(line, c.cellText(x))
		}
		cells[i] = line
	}
	if err := c.tableBody(header, al, cells); err != nil {
		return err
	}
	if t.Note != "" {
		fmt.Fprintf(&c.b, "  %s\n", oneLine(t.Note))
	}
	c.b.WriteByte('\n')
	return nil
}

// cellText is a cell as the console shows it.
func (c *console) cellText(x Cell) string {
	if x.Mark != NoMark {
		return c.mark(x.Mark)
	}
	s := oneLine(x.Text)
	if x.Style&Clip != 0 {
		s = c.text(x.Text)
	}
	if x.Aside != "" {
		s += " (" + oneLine(x.Aside) + ")"
	}
	if x.Tag != "" {
		s += " (" + oneLine(x.Tag) + ")"
	}
	return s
}

func twAlign(a Align) tw.Align {
	switch a {
	case Right:
		return tw.AlignRight
	case Center:
		return tw.AlignCenter
	}
	return tw.AlignLeft
}

// table renders rows under a header with tablewriter, indented by two
// spaces, followed by a blank line. align gives each column's alignment.
func (c *console) table(header []string, align []tw.Align, rows [][]string) error {
	if err := c.tableBody(header, align, rows); err != nil {
		return err
	}
	c.b.WriteByte('\n')
	return nil
}

// tableBody renders a table's lines, indented by two spaces.
func (c *console) tableBody(header []string, align []tw.Align, rows [][]string) error {
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

// mark is the coloured symbol of a mark (MarkSymbol).
func (c *console) mark(m Mark) string {
	switch m {
	case MarkPass:
		return c.p.pass.Sprint(MarkSymbol(m))
	case MarkFail, MarkError:
		return c.p.fail.Sprint(MarkSymbol(m))
	case MarkWarn, MarkAlert:
		return c.p.warn.Sprint(MarkSymbol(m))
	}
	return c.p.dim.Sprint(MarkSymbol(MarkSkip))
}

// confusion draws a confusion matrix as a table, or says it is too wide.
func (c *console) confusion(ch *Chart) error {
	m := ch.Matrix
	if m == nil || len(m.Labels) == 0 {
		return nil
	}
	name := oneLine(ch.Name)
	if len(m.Labels) > consoleMaxConfusion {
		c.title(fmt.Sprintf("%s confusion matrix: %d labels, too wide for the console (see the Markdown or JSON report)",
			name, len(m.Labels)))
		c.b.WriteByte('\n')
		return nil
	}
	c.title(name + " confusion matrix (rows expected, columns predicted)")
	header := []string{"expected \\ predicted"}
	al := []tw.Align{tw.AlignLeft}
	for _, l := range m.Labels {
		header = append(header, c.rw.Truncate(oneLine(l), 12, "…"))
		al = append(al, tw.AlignRight)
	}
	rows := make([][]string, 0, len(m.Labels))
	for i, l := range m.Labels {
		row := []string{c.text(l)}
		for j := range m.Labels {
			row = append(row, strconv.Itoa(m.count(i, j)))
		}
		rows = append(rows, row)
	}
	return c.table(header, al, rows)
}

// count is Counts[i][j], 0 when the matrix is ragged.
func (m *Matrix) count(i, j int) int {
	if i < len(m.Counts) && j < len(m.Counts[i]) {
		return m.Counts[i][j]
	}
	return 0
}

// transcripts writes failed conversations turn by turn, capped like the
// failing cases.
func (c *console) transcripts(s *Section) {
	c.title(s.Title)
	limit := c.o.failureCap(defaultConsoleFailures)
	for i, t := range s.Transcripts {
		if limit > 0 && i >= limit {
			fmt.Fprintf(&c.b, "  … and %d more failed %s\n", len(s.Transcripts)-limit, plural(len(s.Transcripts)-limit, "conversation", "conversations"))
			break
		}
		for j, line := range t.Lines() {
			switch {
			case j == 0:
				line = c.mark(t.Mark()) + "  " + c.long(line, 2)
				if loc := location(t.File, t.Line); loc != "" {
					line += "  " + c.p.dim.Sprint(loc)
				}
			case strings.HasPrefix(line, "    ✗ "), strings.HasPrefix(line, "    error: "):
				line = c.p.fail.Sprint(c.long(line, 4))
			default:
				line = c.long(line, 4)
			}
			fmt.Fprintf(&c.b, "  %s\n", line)
		}
	}
	c.b.WriteByte('\n')
}

// failures lists the failing cases, worst first, capped.
func (c *console) failures(f *Failures) {
	fail := f.Cases
	limit := c.o.failureCap(defaultConsoleFailures)
	t := fmt.Sprintf("Failing cases (%d, worst first", len(fail))
	if r := f.Reading(); r != "" {
		t += "; " + r
	}
	c.title(t + ")")
	for i, fc := range fail {
		if limit > 0 && i >= limit {
			fmt.Fprintf(&c.b, "  … and %d more failing %s\n", len(fail)-limit, plural(len(fail)-limit, "case", "cases"))
			break
		}
		c.failure(fc, f.Mark(fc))
	}
	c.b.WriteByte('\n')
}

// failure writes one failing case: a head line, then its call error or
// failed expectations, one per line.
func (c *console) failure(fc *schema.CaseReport, m Mark) {
	head := []string{c.mark(m), c.long(fc.Text, 2)}
	if id := oneLine(fc.ID); id != "" {
		head = append(head, c.p.dim.Sprint("["+id+"]"))
	}
	if tpl := oneLine(fc.Template); tpl != "" {
		head = append(head, "template "+tpl)
	}
	if fc.Cached {
		head = append(head, "(cached)")
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
