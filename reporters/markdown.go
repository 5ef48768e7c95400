package reporters

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// maxMarkdownBytes is GitHub's limit for one step's job summary
// ($GITHUB_STEP_SUMMARY): 1 MiB. Failure details are trimmed first to stay
// under it.
const maxMarkdownBytes = 1 << 20

// Markdown limits that keep the summary readable.
const (
	markdownMaxConfusion = 30  // labels of a confusion matrix shown
	markdownMaxSummary   = 300 // bytes of a failure's <summary> line
	markdownMaxDetail    = 8 << 10
)

// Markdown writes a GitHub-flavoured summary fit for $GITHUB_STEP_SUMMARY
// or a pull-request comment: the verdict heading, the thresholds table
// (never truncated), metric tables with numerators and denominators, the
// scene table, confusion matrices, latency by bucket, and the failing cases
// inside <details>. User data is HTML-escaped; `|`, backticks and newlines
// are escaped in table cells. The output stays under 1 MiB: failure
// details are trimmed first, then failures are cut with "…and N more".
// No images, no mermaid.
func Markdown(w io.Writer, r *schema.Report, o Options) error {
	return markdown(w, r, o, maxMarkdownBytes)
}

// MarkdownView renders a view as GitHub-flavoured Markdown: a heading per
// section, tables with their alignment row, collapsed tables and confusion
// matrices inside <details>. User text is escaped (no raw HTML, `|`,
// backticks and Markdown punctuation escaped, line breaks as <br>). The
// output ends with a blank line.
func MarkdownView(w io.Writer, v *View, o Options) error {
	return markdownView(w, v, o, maxMarkdownBytes, false)
}

// mdSection is one rendered part of a Markdown document.
type mdSection struct {
	id       string // Section.ID, for the "omitted" note
	text     string
	required bool
	failures *Failures // rendered last, with what is left of the budget
}

func markdown(w io.Writer, r *schema.Report, o Options, limit int) error {
	if r == nil {
		return errNilReport
	}
	return markdownView(w, ReportView(r, o.Baseline), o, limit, true)
}

// markdownView renders v within limit bytes: sections other than the head
// and the thresholds give way, least useful first, when they alone would
// break the limit; failing cases get what is left. trim ends the document
// with one newline instead of a blank line.
func markdownView(w io.Writer, v *View, o Options, limit int, trim bool) error {
	m := &md{v: v, o: o}
	parts := []mdSection{{id: "verdict", text: m.head(), required: true}}
	for i := range v.Sections {
		s := &v.Sections[i]
		if s.Failures != nil {
			parts = append(parts, mdSection{id: s.ID, failures: s.Failures})
			continue
		}
		parts = append(parts, mdSection{id: s.ID, text: m.section(s), required: s.ID == "thresholds"})
	}
	const reserve = 512 // the "…and N more" line and the failures heading
	size := func() int {
		n := 0
		for _, p := range parts {
			n += len(p.text)
		}
		return n
	}
	dropOrder := []string{"templates", "scenes", "dimensions", "labels", "latency", "warnings", "cases"}
	for _, id := range dropOrder {
		if size()+reserve <= limit {
			break
		}
		note := fmt.Sprintf("_The %s section was left out to keep this summary under %d KiB; the JSON report has it._\n\n",
			id, limit>>10)
		for i := range parts {
			if parts[i].id == id && !parts[i].required && parts[i].text != "" {
				parts[i].text, note = note, ""
			}
		}
	}
	budget := limit - size()
	var b strings.Builder
	for _, p := range parts {
		if p.failures != nil {
			b.WriteString(m.failures(p.failures, budget))
			continue
		}
		b.WriteString(p.text)
	}
	out := b.String()
	if trim {
		out = strings.TrimRight(out, "\n") + "\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// md renders the parts of one view.
type md struct {
	v  *View
	o  Options
	fl *Failures // the failing cases being rendered
}

// mdText escapes user data for Markdown text and table cells: &, < and >
// become entities (no raw HTML from responses), `|` is escaped for tables,
// backticks and `@` become entities (no code spans, no mentions), Markdown
// punctuation is backslash-escaped, and line breaks become <br>.
func mdText(s string) string {
	s = strings.TrimSpace(clean(s))
	s = strings.NewReplacer(
		"&", "&amp;",
		"<", "&lt;",
		">", "&gt;",
		"|", `\|`,
		"`", "&#96;",
		"@", "&#64;",
		"\\", `\\`,
		"*", `\*`,
		"_", `\_`,
		"[", `\[`,
		"]", `\]`,
		"\r\n", "<br>",
		"\n", "<br>",
		"\r", "<br>",
		"\t", " ",
	).Replace(s)
	return s
}

// htmlText escapes text for an HTML context where Markdown is not parsed
// (a <summary>): &, < and > become entities; quotes need none outside
// attributes.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(clean(s))
}

// mdCode renders user data as inline code (<code>…</code>) in a cell.
func mdCode(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "<code>" + mdText(s) + "</code>"
}

// mdTable writes a GitHub table; align holds 'l', 'r' or 'c' per column.
// Cells must already be escaped.
func mdTable(b *strings.Builder, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		switch {
		case i < len(align) && align[i] == 'r':
			b.WriteString("---:|")
		case i < len(align) && align[i] == 'c':
			b.WriteString(":---:|")
		default:
			b.WriteString("---|")
		}
	}
	b.WriteByte('\n')
	for _, row := range rows {
		for len(row) < len(header) {
			row = append(row, "")
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteByte('\n')
}

func (m *md) head() string {
	var b strings.Builder
	hashes := strings.Repeat("#", max(1, m.v.Level))
	vd := m.v.Verdict
	if vd == nil {
		b.WriteString(hashes + " " + mdText(m.v.Title) + "\n\n")
	} else {
		icon, word := "❌", "FAIL"
		if vd.Pass {
			icon, word = "✅", "PASS"
		}
		fmt.Fprintf(&b, "%s %s %s · %s\n\n", hashes, icon, word, mdText(vd.Headline))
	}
	var ctx []string
	for _, f := range m.v.Context {
		if f.Code {
			ctx = append(ctx, mdText(f.Label)+" "+mdCode(f.Value))
		} else {
			ctx = append(ctx, mdText(f.Label)+" "+mdText(f.Value))
		}
	}
	if len(ctx) > 0 {
		b.WriteString("<sub>" + strings.Join(ctx, " · ") + "</sub>\n\n")
	}
	if vd == nil {
		return b.String()
	}
	if vd.Description != "" {
		b.WriteString(mdText(vd.Description) + "\n\n")
	}
	if len(vd.Reasons) > 0 {
		if vd.Pass {
			b.WriteString("**Notes**\n\n")
		} else {
			b.WriteString("**Why it failed**\n\n")
		}
		for _, s := range vd.Reasons {
			b.WriteString("- " + mdText(s) + "\n")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// icon is a mark as an emoji.
func icon(m Mark) string {
	switch m {
	case MarkPass:
		return "✅"
	case MarkFail:
		return "❌"
	case MarkError:
		return "🔥"
	case MarkWarn, MarkAlert:
		return "⚠️"
	}
	return "⏭️"
}

// capitalize starts a header or term with a capital letter when it starts
// with a lower-case word ("error rate", not "p50" or "n").
func capitalize(s string) string {
	if len(s) > 1 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

func (m *md) section(s *Section) string {
	var b strings.Builder
	if s.Title != "" {
		b.WriteString(strings.Repeat("#", max(1, m.v.Level)+1) + " " + mdText(s.Title))
		if s.Code != "" {
			b.WriteString(" " + mdCode(s.Code))
		}
		b.WriteString("\n\n")
	}
	if s.Intro != "" {
		b.WriteString(mdText(s.Intro) + "\n\n")
	}
	for i := range s.Tables {
		m.table(&b, &s.Tables[i])
	}
	for i := range s.Charts {
		if s.Charts[i].Kind == ChartConfusion {
			m.confusion(&b, &s.Charts[i])
		}
	}
	shown := 0
	for _, n := range s.Notes {
		if n.Brief {
			continue
		}
		b.WriteString("- ")
		if n.Mark != NoMark {
			b.WriteString(icon(n.Mark) + " ")
		}
		b.WriteString(mdText(n.Text) + "\n")
		shown++
	}
	if shown > 0 {
		b.WriteByte('\n')
	}
	m.transcripts(&b, s.Transcripts)
	return b.String()
}

// transcripts writes each failed conversation as a <details> block holding
// its transcript, capped like the failing cases.
func (m *md) transcripts(b *strings.Builder, ts []*Transcript) {
	limit := m.o.failureCap(defaultMarkdownFailures)
	for i, t := range ts {
		if limit > 0 && i >= limit {
			fmt.Fprintf(b, "…and %d more failed conversations (every turn is in results.jsonl)\n\n", len(ts)-limit)
			return
		}
		body := capBytes(strings.Join(t.Lines()[1:], "\n"), markdownMaxDetail)
		f := fence(body)
		sum := icon(t.Mark()) + " " + htmlText(t.Name()) + ": " + htmlText(capLine(t.firstFailure(), markdownMaxSummary))
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n%stext\n%s\n%s\n\n</details>\n\n", strings.ReplaceAll(sum, "@", "&#64;"), f, body, f)
	}
}

// table writes one table of a view; a collapsed one inside <details>.
func (m *md) table(b *strings.Builder, t *Table) {
	if t.Collapsed {
		order := ""
		if t.Ranked {
			order = ", worst first"
		}
		fmt.Fprintf(b, "<details><summary>%s (%d%s)</summary>\n\n", htmlText(oneLine(t.Title)), len(t.Rows), order)
	}
	header := make([]string, len(t.Columns))
	var align strings.Builder
	for i, c := range t.Columns {
		h := mdText(c.Header)
		if m.v.Capitalize {
			h = capitalize(h)
		}
		if h == "" {
			h = " "
		}
		header[i] = h
		align.WriteByte(" lrc"[c.Align])
	}
	rows := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		cells := make([]string, len(row))
		for j, x := range row {
			cells[j] = m.cell(x)
		}
		rows[i] = cells
	}
	mdTable(b, header, align.String(), rows)
	if t.Note != "" {
		b.WriteString(mdText(t.Note) + "\n\n")
	}
	if t.Collapsed {
		b.WriteString("</details>\n\n")
	}
}

// cell is a cell as Markdown shows it.
func (m *md) cell(x Cell) string {
	if x.Mark != NoMark {
		return icon(x.Mark)
	}
	s := mdText(x.Text)
	if x.Style&Code != 0 {
		s = mdCode(x.Text)
	}
	if x.Style&Term != 0 && m.v.Capitalize {
		s = capitalize(s)
	}
	if x.Style&Strong != 0 && s != "" {
		s = "**" + s + "**"
	}
	if x.Aside != "" {
		s += " _(" + mdText(x.Aside) + ")_"
	}
	if x.Sub != "" {
		s += "<br><sub>" + mdText(x.Sub) + "</sub>"
	}
	return s
}

// confusion writes a confusion matrix inside <details>, the diagonal in
// bold; one too large for a page is left to the JSON report.
func (m *md) confusion(b *strings.Builder, ch *Chart) {
	c := ch.Matrix
	if c == nil || len(c.Labels) == 0 {
		return
	}
	if len(c.Labels) > markdownMaxConfusion {
		fmt.Fprintf(b, "_Confusion matrix: %d labels, more than %d; the JSON report has it._\n\n", len(c.Labels), markdownMaxConfusion)
		return
	}
	b.WriteString("<details><summary>Confusion matrix (rows expected, columns predicted)</summary>\n\n")
	header := []string{"expected ↓ · predicted →"}
	align := "l"
	for _, lab := range c.Labels {
		header = append(header, mdText(lab))
		align += "r"
	}
	rows := make([][]string, 0, len(c.Labels))
	for i, lab := range c.Labels {
		row := []string{"**" + mdText(lab) + "**"}
		for j := range c.Labels {
			cell := strconv.Itoa(c.count(i, j))
			if i == j {
				cell = "**" + cell + "**"
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	mdTable(b, header, align, rows)
	b.WriteString("</details>\n\n")
}

// fence returns a code fence longer than any backtick run in s.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// failureDetails renders one failing case as a <details> block; compact
// keeps only the summary line and the first line of each failure.
func (m *md) failureDetails(c *schema.CaseReport, compact bool) string {
	var sum strings.Builder
	sum.WriteString(icon(m.fl.Mark(c)) + " ")
	if t := oneLine(c.Template); t != "" {
		sum.WriteString(htmlText(t) + " › ")
	}
	sum.WriteString(htmlText(capLine(oneLine(c.Text), markdownMaxSummary)))
	if id := oneLine(c.ID); id != "" {
		sum.WriteString(" <code>" + htmlText(id) + "</code>")
	}
	if c.Cached {
		sum.WriteString(" (cached)")
	}
	sum.WriteString(": " + htmlText(capLine(caseSummary(*c), markdownMaxSummary)))
	var body string
	if compact {
		var lines []string
		if loc := location(c.File, c.Line); loc != "" {
			lines = append(lines, loc)
		}
		if c.Error != nil {
			lines = append(lines, callErrorLine(c.Error))
		}
		for _, f := range c.Failures {
			lines = append(lines, failureLine(f))
		}
		body = capBytes(strings.Join(lines, "\n"), markdownMaxDetail/4)
	} else {
		body = caseDetail(*c)
		if loc := location(c.File, c.Line); loc != "" && c.Error == nil {
			body = "template at " + loc + "\n" + body
		}
		body = capBytes(body, markdownMaxDetail)
	}
	f := fence(body)
	return "<details><summary>" + strings.ReplaceAll(sum.String(), "@", "&#64;") + "</summary>\n\n" +
		f + "text\n" + body + "\n" + f + "\n\n</details>\n\n"
}

// failures renders the failing cases within budget bytes: full details
// while they fit, then compact ones, then "…and N more".
func (m *md) failures(f *Failures, budget int) string {
	fail := f.Cases
	if len(fail) == 0 {
		return ""
	}
	m.fl = f
	var b strings.Builder
	head := fmt.Sprintf("### Failing cases (%d)\n\n", len(fail))
	if f.Thresholds || f.OverBudget {
		head += "_" + mdText(capitalize(f.Reading())) + "; these cases are listed for diagnosis._\n\n"
	}
	b.WriteString(head)
	const tail = 256 // room for the closing line
	limit := m.o.failureCap(defaultMarkdownFailures)
	shown := 0
	compact := false
	for i, c := range fail {
		if limit > 0 && i >= limit {
			break
		}
		var block string
		if !compact {
			block = m.failureDetails(c, false)
			if b.Len()+len(block)+tail > budget {
				compact = true
			}
		}
		if compact {
			block = m.failureDetails(c, true)
			if b.Len()+len(block)+tail > budget {
				break
			}
		}
		b.WriteString(block)
		shown++
	}
	if rest := len(fail) - shown; rest > 0 {
		fmt.Fprintf(&b, "_…and %d more failing %s; the JSON report has them all._\n\n", rest, plural(rest, "case", "cases"))
	}
	return b.String()
}
