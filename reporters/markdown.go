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

// mdSection is one part of the Markdown report.
type mdSection struct {
	name     string // for the "omitted" note
	text     string
	required bool
}

func markdown(w io.Writer, r *schema.Report, o Options, limit int) error {
	if r == nil {
		return errNilReport
	}
	m := &md{r: r, o: o}
	before := []mdSection{
		{name: "verdict", text: m.head(), required: true},
		{name: "thresholds", text: m.thresholds(), required: true},
		{name: "cases", text: m.cases()},
		{name: "scenes", text: m.scenes()},
		{name: "templates", text: m.templates()},
		{name: "dimensions", text: m.dimensions()},
		{name: "labels", text: m.labels()},
		{name: "latency", text: m.latency()},
	}
	after := []mdSection{{name: "warnings", text: m.warnings()}}

	// Sections other than the verdict and the thresholds give way, least
	// useful first, when they alone would break the limit; failures get
	// what is left.
	const reserve = 512 // the "…and N more" line and the failures heading
	size := func() int {
		n := 0
		for _, s := range append(append([]mdSection{}, before...), after...) {
			n += len(s.text)
		}
		return n
	}
	dropOrder := []string{"templates", "scenes", "dimensions", "labels", "latency", "warnings", "cases"}
	for _, name := range dropOrder {
		if size()+reserve <= limit {
			break
		}
		for _, list := range [][]mdSection{before, after} {
			for i := range list {
				if list[i].name == name && !list[i].required && list[i].text != "" {
					list[i].text = fmt.Sprintf("_The %s section was left out to keep this summary under %d KiB; the JSON report has it._\n\n",
						name, limit>>10)
				}
			}
		}
	}
	failures := m.failures(limit - size())

	var b strings.Builder
	for _, s := range before {
		b.WriteString(s.text)
	}
	b.WriteString(failures)
	for _, s := range after {
		b.WriteString(s.text)
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// md renders the sections of one report.
type md struct {
	r *schema.Report
	o Options
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
	icon := "❌"
	if verdictPass(m.r) {
		icon = "✅"
	}
	fmt.Fprintf(&b, "## %s %s · %s\n\n", icon, verdictWord(m.r), mdText(headline(m.r)))
	var ctx []string
	code := func(label, v string) {
		if v = strings.TrimSpace(oneLine(v)); v != "" {
			ctx = append(ctx, label+" "+mdCode(v))
		}
	}
	code("target", m.r.Run.Target)
	code("split", m.r.Run.Split)
	code("filter", m.r.Run.Filter)
	code("run", m.r.Run.ID)
	if !m.r.Run.Started.IsZero() {
		ctx = append(ctx, "started "+m.r.Run.Started.UTC().Format("2006-01-02 15:04:05")+" UTC")
	}
	if v := oneLine(m.r.Version); v != "" {
		ctx = append(ctx, mdText(toolName(m.r))+" "+mdText(v))
	}
	if len(ctx) > 0 {
		b.WriteString("<sub>" + strings.Join(ctx, " · ") + "</sub>\n\n")
	}
	if d := oneLine(m.r.Suite.Description); d != "" {
		b.WriteString(mdText(d) + "\n\n")
	}
	if rs := reasons(m.r); len(rs) > 0 {
		if verdictPass(m.r) {
			b.WriteString("**Notes**\n\n")
		} else {
			b.WriteString("**Why it failed**\n\n")
		}
		for _, s := range rs {
			b.WriteString("- " + mdText(s) + "\n")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func thresholdIcon(t schema.ThresholdResult) string {
	switch thresholdStatus(t) {
	case statusPass:
		return "✅"
	case statusFail:
		return "❌"
	case statusError:
		return "🔥"
	case statusWarn:
		return "⚠️"
	}
	return "⏭️"
}

func (m *md) thresholds() string {
	if len(m.r.Thresholds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Thresholds\n\n")
	header := []string{" ", "Threshold", "Condition", "Observed", "n", "Severity"}
	align := "cllrrl"
	base := m.o.Baseline
	if base != nil {
		header = append(header, "Δ baseline")
		align += "r"
	}
	var rows [][]string
	for _, t := range m.r.Thresholds {
		obs := "**" + mdText(observedText(t.Observed)) + "**"
		if observedText(t.Observed) == "" {
			obs = ""
		}
		switch {
		case t.Outcome == schema.Error:
			obs = "error: " + mdText(t.Error)
		case t.Outcome < schema.Pass:
			obs = "not evaluated"
		}
		name := mdText(t.Name)
		if msg := oneLine(t.Message); msg != "" && t.Outcome != schema.Pass {
			name += "<br><sub>" + mdText(msg) + "</sub>"
		}
		sev := mdText(t.Severity)
		if sev == "" {
			sev = "error"
		}
		row := []string{thresholdIcon(t), name, mdCode(t.Condition), obs, mdText(observedN(t.Observed)), sev}
		if base != nil {
			d := ""
			if bt := baselineThreshold(base, t.Name); bt != nil {
				d = fmtDelta(firstObserved(t), firstObserved(*bt))
			}
			row = append(row, d)
		}
		rows = append(rows, row)
	}
	mdTable(&b, header, align, rows)
	return b.String()
}

func (m *md) cases() string {
	scopes := caseScopes(m.r.Metrics)
	if len(scopes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Cases\n\n")
	header := []string{"Scope", "Total", "Passed", "Failed", "Errored", "Accuracy", "Error rate"}
	align := "lrrrrrr"
	if m.o.Baseline != nil {
		header = append(header, "Δ accuracy")
		align += "r"
	}
	var rows [][]string
	for _, s := range scopes {
		n := s.Node
		row := []string{mdText(s.Label), strconv.Itoa(n.Total), strconv.Itoa(n.Passed), strconv.Itoa(n.Failed),
			strconv.Itoa(n.Errored), fmtRatio(n.Accuracy), fmtRatio(n.ErrorRate)}
		if m.o.Baseline != nil {
			row = append(row, fmtDelta(ratioValue(&n.Accuracy), baselineAccuracy(m.o.Baseline, s.Key)))
		}
		rows = append(rows, row)
	}
	mdTable(&b, header, align, rows)
	return b.String()
}

func (m *md) scenes() string {
	if m.r.Metrics == nil || len(m.r.Metrics.Scene) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Scenes\n\n")
	var rows [][]string
	for _, k := range sortedKeys(m.r.Metrics.Scene) {
		n := m.r.Metrics.Scene[k]
		if n == nil {
			continue
		}
		rows = append(rows, []string{mdText(k), strconv.Itoa(n.Total), strconv.Itoa(n.Passed), strconv.Itoa(n.Failed),
			strconv.Itoa(n.Errored), fmtRatio(n.Accuracy)})
	}
	mdTable(&b, []string{"Scene", "Total", "Passed", "Failed", "Errored", "Accuracy"}, "lrrrrr", rows)
	return b.String()
}

func outcomeIcon(o schema.Outcome) string {
	switch o {
	case schema.Pass:
		return "✅"
	case schema.Fail:
		return "❌"
	case schema.Error:
		return "🔥"
	}
	return "⏭️"
}

func (m *md) templates() string {
	if len(m.r.Groups) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Templates\n\n")
	var rows [][]string
	for _, g := range m.r.Groups {
		name := mdText(g.Name)
		if k := groupKind(g); k != "template" {
			name = mdText(k) + " " + name
		}
		if g.Unreviewed {
			name += " _(draft)_"
		}
		acc := ""
		if m.r.Metrics != nil {
			if n := m.r.Metrics.Template[g.Name]; n != nil {
				acc = fmtRatio(n.Accuracy)
			}
		}
		rows = append(rows, []string{outcomeIcon(g.Outcome), name, strconv.Itoa(g.Total), strconv.Itoa(g.Passed),
			strconv.Itoa(g.Failed), strconv.Itoa(g.Errored), acc, fmtSeconds(g.Seconds), mdCode(location(g.File, g.Line))})
	}
	mdTable(&b, []string{" ", "Template", "Total", "Passed", "Failed", "Errored", "Accuracy", "Time", "At"}, "clrrrrrrl", rows)
	return b.String()
}

func (m *md) dimensions() string {
	if m.r.Metrics == nil || len(m.r.Metrics.Dimension) == 0 {
		return ""
	}
	dims := m.r.Metrics.Dimension
	var counted, whole [][]string
	for _, k := range sortedKeys(dims) {
		d := dims[k]
		if d == nil {
			continue
		}
		switch d.Kind {
		case schema.KindCase:
			whole = append(whole, []string{mdText(k), strconv.Itoa(d.Total), strconv.Itoa(d.Correct), fmtRatioPtr(d.Accuracy)})
		case schema.KindLabel:
		default:
			counted = append(counted, []string{mdText(k), mdText(d.Kind), strconv.Itoa(d.Expected), strconv.Itoa(d.Recognized),
				strconv.Itoa(d.Correct), strconv.Itoa(d.Wrong), fmtRatioPtr(d.Precision), fmtRatioPtr(d.Recall),
				fmtRatioPtr(d.F1), fmtRatioPtr(d.ErrorRate)})
		}
	}
	var b strings.Builder
	if len(counted) > 0 {
		b.WriteString("### Dimensions\n\n")
		mdTable(&b, []string{"Dimension", "Kind", "Expected", "Recognized", "Correct", "Wrong", "Precision", "Recall", "F1", "Error rate"},
			"llrrrrrrrr", counted)
	}
	if len(whole) > 0 {
		b.WriteString("### Whole-case dimensions\n\n")
		mdTable(&b, []string{"Dimension", "Total", "Correct", "Accuracy"}, "lrrr", whole)
	}
	for _, k := range sortedKeys(dims) {
		d := dims[k]
		if d == nil || len(d.Values) == 0 {
			continue
		}
		fmt.Fprintf(&b, "<details><summary>%s by value (%d, worst first)</summary>\n\n", htmlText(oneLine(k)), len(d.Values))
		var rows [][]string
		for _, v := range dimensionValues(d) {
			x := d.Values[v]
			if x == nil {
				continue
			}
			rows = append(rows, []string{mdText(v), strconv.Itoa(x.Expected), strconv.Itoa(x.Recognized), strconv.Itoa(x.Correct),
				fmtRatioPtr(x.Precision), fmtRatioPtr(x.Recall), fmtRatioPtr(x.F1), fmtRatioPtr(x.ErrorRate)})
		}
		mdTable(&b, []string{"Value", "Expected", "Recognized", "Correct", "Precision", "Recall", "F1", "Error rate"}, "lrrrrrrr", rows)
		b.WriteString("</details>\n\n")
	}
	return b.String()
}

func (m *md) labels() string {
	if m.r.Metrics == nil || len(m.r.Metrics.Label) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range sortedKeys(m.r.Metrics.Label) {
		l := m.r.Metrics.Label[name]
		if l == nil {
			continue
		}
		fmt.Fprintf(&b, "### Label %s\n\n", mdCode(name))
		rows := labelSummaryRows(l, true)
		mdTable(&b, []string{"Metric", "Value"}, "lr", rows)
		if len(l.Labels) > 0 {
			var lrows [][]string
			for _, k := range sortedKeys(l.Labels) {
				s := l.Labels[k]
				if s == nil {
					continue
				}
				lrows = append(lrows, []string{mdText(k), fmtRatio(s.Precision), fmtRatio(s.Recall), fmtRatio(s.F1), strconv.Itoa(s.Support)})
			}
			mdTable(&b, []string{"Label", "Precision", "Recall", "F1", "Support"}, "lrrrr", lrows)
		}
		if c := l.Confusion; c != nil && len(c.Labels) > 0 {
			if len(c.Labels) > markdownMaxConfusion {
				fmt.Fprintf(&b, "_Confusion matrix: %d labels, more than %d; the JSON report has it._\n\n", len(c.Labels), markdownMaxConfusion)
				continue
			}
			b.WriteString("<details><summary>Confusion matrix (rows expected, columns predicted)</summary>\n\n")
			header := []string{"expected ↓ · predicted →"}
			align := "l"
			for _, lab := range c.Labels {
				header = append(header, mdText(lab))
				align += "r"
			}
			var crows [][]string
			for i, lab := range c.Labels {
				row := []string{"**" + mdText(lab) + "**"}
				for j := range c.Labels {
					v := 0
					if i < len(c.Counts) && j < len(c.Counts[i]) {
						v = c.Counts[i][j]
					}
					cell := strconv.Itoa(v)
					if i == j {
						cell = "**" + cell + "**"
					}
					row = append(row, cell)
				}
				crows = append(crows, row)
			}
			mdTable(&b, header, align, crows)
			b.WriteString("</details>\n\n")
		}
	}
	return b.String()
}

func (m *md) latency() string {
	if m.r.Metrics == nil || m.r.Metrics.Latency == nil {
		return ""
	}
	rows := latencyRows(m.r.Metrics.Latency, mdText)
	var b strings.Builder
	b.WriteString("### Latency (ms)\n\nBuckets by input length (characters for CJK text, words otherwise).\n\n")
	mdTable(&b, []string{"Bucket", "Count", "Mean", "p50", "p90", "p95", "p99", "Max"}, "lrrrrrrr", rows)
	return b.String()
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
func (m *md) failureDetails(c schema.CaseReport, compact bool) string {
	var sum strings.Builder
	sum.WriteString(outcomeIcon(c.Outcome) + " ")
	if t := oneLine(c.Template); t != "" {
		sum.WriteString(htmlText(t) + " › ")
	}
	sum.WriteString(htmlText(capLine(oneLine(c.Text), markdownMaxSummary)))
	if id := oneLine(c.ID); id != "" {
		sum.WriteString(" <code>" + htmlText(id) + "</code>")
	}
	sum.WriteString(": " + htmlText(capLine(caseSummary(c), markdownMaxSummary)))
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
		body = caseDetail(c)
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
func (m *md) failures(budget int) string {
	fail := failingCases(m.r)
	if len(fail) == 0 {
		return ""
	}
	var b strings.Builder
	head := fmt.Sprintf("### Failing cases (%d)\n\n", len(fail))
	if len(m.r.Thresholds) > 0 {
		head += "_The thresholds decide the verdict; these cases are listed for diagnosis._\n\n"
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

func (m *md) warnings() string {
	if len(m.r.Warnings) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Warnings\n\n")
	for _, w := range m.r.Warnings {
		b.WriteString("- ⚠️ " + mdText(w) + "\n")
	}
	b.WriteByte('\n')
	return b.String()
}
