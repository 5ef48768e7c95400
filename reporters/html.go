package reporters

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// HTML limits: the file stays one self-contained page well under 5 MB,
// however large the run.
const (
	maxHTMLBytes     = 4 << 20 // the whole page; failing cases get what is left
	htmlMaxRows      = 500     // rows of one table
	htmlMaxFailures  = 1000    // failing cases listed
	htmlMaxDetail    = 6 << 10 // bytes of one failing case's detail
	htmlMaxConfusion = 60      // labels of a confusion-matrix heat map
	htmlMaxBars      = 60      // points of a bar chart
)

// HTML writes the run report as one self-contained HTML page: the verdict
// and thresholds first, every table of the view, charts drawn as inline
// SVG (confusion-matrix heat maps, per-label bars, latency by input
// length, accuracy by scene as a tree) and the failing cases with a small
// inline script to search and filter them. The page loads nothing: no
// fonts, scripts, styles or images from the network, so a CI artifact
// opens offline. Lists are capped and say how many were left out; the page
// stays under 5 MB for any run.
func HTML(w io.Writer, r *schema.Report, o Options) error {
	if r == nil {
		return errNilReport
	}
	return HTMLView(w, ReportView(r, o.Baseline), o)
}

// HTMLView renders any view (a run report, stats, a diff) as one
// self-contained HTML page. User text is cleaned and HTML-escaped.
func HTMLView(w io.Writer, v *View, o Options) error {
	h := &htmlDoc{v: v, o: o}
	var body strings.Builder
	h.head(&body)
	var failures *Failures
	transcripts := false
	for i := range v.Sections {
		if v.Sections[i].Failures != nil {
			failures = v.Sections[i].Failures
		}
		transcripts = transcripts || len(v.Sections[i].Transcripts) > 0
	}
	// Without a failing-case list the search box goes above the first
	// transcripts, so conversations (and any other transcript section) can
	// still be searched.
	h.searchAbove = failures == nil && transcripts
	for i := range v.Sections {
		if s := &v.Sections[i]; s.Failures == nil {
			h.section(&body, s)
		}
	}
	if failures != nil {
		h.failures(&body, failures, maxHTMLBytes-body.Len())
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + esc(h.title()) + "</title>\n<style>" + htmlCSS + "</style>\n</head>\n<body>\n<main>\n")
	b.WriteString(body.String())
	b.WriteString("</main>\n")
	if failures != nil || transcripts {
		b.WriteString("<script>" + htmlJS + "</script>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// htmlDoc renders the parts of one view.
type htmlDoc struct {
	v      *View
	o      Options
	charts int // charts drawn so far, for unique SVG ids
	// searchAbove asks for the search box above the next transcripts (a
	// view with transcripts and no failing-case list).
	searchAbove bool
}

// esc cleans user text and escapes it for HTML text and quoted attributes.
func esc(s string) string { return html.EscapeString(clean(s)) }

func (h *htmlDoc) title() string {
	if vd := h.v.Verdict; vd != nil {
		word := "FAIL"
		if vd.Pass {
			word = "PASS"
		}
		return word + " · " + oneLine(vd.Headline)
	}
	return oneLine(h.v.Title)
}

func (h *htmlDoc) head(b *strings.Builder) {
	vd := h.v.Verdict
	if vd == nil {
		b.WriteString("<header class=\"head\">\n<h1>" + esc(oneLine(h.v.Title)) + "</h1>\n")
	} else {
		class, word := "fail", "FAIL"
		if vd.Pass {
			class, word = "pass", "PASS"
		}
		fmt.Fprintf(b, "<header class=\"head verdict %s\" id=\"verdict\">\n<h1><span class=\"badge\">%s</span> %s</h1>\n",
			class, word, esc(oneLine(vd.Headline)))
	}
	if len(h.v.Context) > 0 {
		b.WriteString("<p class=\"ctx\">")
		for i, f := range h.v.Context {
			if i > 0 {
				b.WriteString(" · ")
			}
			val := esc(f.Value)
			if f.Code {
				val = "<code>" + val + "</code>"
			}
			b.WriteString("<span>" + esc(f.Label) + " " + val + "</span>")
		}
		b.WriteString("</p>\n")
	}
	if vd != nil {
		if vd.Description != "" {
			b.WriteString("<p>" + esc(vd.Description) + "</p>\n")
		}
		if len(vd.Reasons) > 0 {
			label := "Why it failed"
			if vd.Pass {
				label = "Notes"
			}
			b.WriteString("<p class=\"whyhead\">" + label + "</p>\n<ul>\n")
			for _, s := range vd.Reasons {
				b.WriteString("<li>" + esc(s) + "</li>\n")
			}
			b.WriteString("</ul>\n")
		}
	}
	b.WriteString("</header>\n")
}

func (h *htmlDoc) section(b *strings.Builder, s *Section) {
	id := ""
	if s.ID != "" {
		id = " id=\"" + esc(s.ID) + "\""
	}
	b.WriteString("<section" + id + ">\n")
	if s.Title != "" {
		b.WriteString("<h2>" + esc(s.Title))
		if s.Code != "" {
			b.WriteString(" <code>" + esc(s.Code) + "</code>")
		}
		b.WriteString("</h2>\n")
	}
	if s.Intro != "" {
		b.WriteString("<p class=\"intro\">" + esc(s.Intro) + "</p>\n")
	}
	if len(s.Charts) > 0 {
		b.WriteString("<div class=\"charts\">\n")
		for i := range s.Charts {
			h.chart(b, &s.Charts[i])
		}
		b.WriteString("</div>\n")
	}
	for i := range s.Tables {
		h.table(b, &s.Tables[i])
	}
	var notes []Note
	for _, n := range s.Notes {
		if !n.Brief {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		b.WriteString("<ul class=\"notes\">\n")
		for _, n := range notes {
			b.WriteString("<li>" + htmlMark(n.Mark) + esc(n.Text) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	h.transcripts(b, s.Transcripts)
	b.WriteString("</section>\n")
}

// transcripts writes each failed conversation as a folded block holding
// its transcript, turn by turn.
//
// Every transcript, whatever its section (conversations, scenarios…), is a
// details.transcript element the search script filters like the failing
// cases, by its text and by its source and outcome.
func (h *htmlDoc) transcripts(b *strings.Builder, ts []*Transcript) {
	if len(ts) > 0 && h.searchAbove {
		h.searchAbove = false
		h.filterBar(b, [numFacets]map[string]int{}, len(ts))
	}
	for _, t := range ts {
		kind := t.Kind
		if kind == "" {
			kind = "conversation"
		}
		fmt.Fprintf(b, "<details class=\"transcript\" data-source=\"%s\" data-outcome=\"%s\"><summary>", esc(oneLine(kind+" "+t.Source)), esc(t.Outcome.String()))
		b.WriteString(htmlMark(t.Mark()) + esc(t.Name()) + ": " + esc(t.firstFailure()) + "</summary>\n<pre>")
		for _, line := range t.Lines()[1:] {
			b.WriteString(esc(line) + "\n")
		}
		b.WriteString("</pre></details>\n")
	}
}

// htmlMark is a mark as a coloured symbol followed by a space; "" for none.
func htmlMark(m Mark) string {
	if m == NoMark {
		return ""
	}
	return markSpan(m) + " "
}

// markSpan is a mark's symbol (MarkSymbol, as on the console) in its
// colour, named in its title.
func markSpan(m Mark) string {
	class, title := "", ""
	switch m {
	case MarkPass:
		class, title = "pass", "pass"
	case MarkFail:
		class, title = "fail", "fail"
	case MarkError:
		class, title = "err", "error"
	case MarkWarn, MarkAlert:
		class, title = "warn", "warning"
	case MarkSkip:
		class, title = "skip", "not evaluated"
	default:
		return ""
	}
	return `<span class="m ` + class + `" title="` + title + `">` + MarkSymbol(m) + `</span>`
}

func (h *htmlDoc) table(b *strings.Builder, t *Table) {
	if t.Collapsed {
		order := ""
		if t.Ranked {
			order = ", worst first"
		}
		fmt.Fprintf(b, "<details><summary>%s (%d%s)</summary>\n", esc(oneLine(t.Title)), len(t.Rows), order)
	} else if t.Title != "" {
		b.WriteString("<h3>" + esc(oneLine(t.Title)) + "</h3>\n")
	}
	b.WriteString("<div class=\"tw\"><table>\n<thead><tr>")
	for _, c := range t.Columns {
		hd := c.Header
		if h.v.Capitalize {
			hd = capitalize(hd)
		}
		b.WriteString("<th" + alignClass(c.Align) + ">" + esc(hd) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	rows := t.Rows
	if len(rows) > htmlMaxRows {
		rows = rows[:htmlMaxRows]
	}
	for _, row := range rows {
		b.WriteString("<tr>")
		for j, x := range row {
			al := Left
			if j < len(t.Columns) {
				al = t.Columns[j].Align
			}
			b.WriteString("<td" + alignClass(al) + ">" + h.cell(x) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
	if left := len(t.Rows) - len(rows); left > 0 {
		fmt.Fprintf(b, "<p class=\"more\">…and %d more %s; the JSON report has them all.</p>\n", left, plural(left, "row", "rows"))
	}
	if t.Note != "" {
		b.WriteString("<p class=\"note\">" + esc(t.Note) + "</p>\n")
	}
	if t.Collapsed {
		b.WriteString("</details>\n")
	}
}

func alignClass(a Align) string {
	switch a {
	case Right:
		return ` class="r"`
	case Center:
		return ` class="c"`
	}
	return ""
}

func (h *htmlDoc) cell(x Cell) string {
	if x.Mark != NoMark {
		return markSpan(x.Mark)
	}
	s := esc(x.Text)
	if x.Style&Term != 0 && h.v.Capitalize {
		s = esc(capitalize(x.Text))
	}
	if x.Style&Code != 0 && s != "" {
		s = "<code>" + s + "</code>"
	}
	if x.Style&Strong != 0 && s != "" {
		s = "<strong>" + s + "</strong>"
	}
	if x.Aside != "" {
		s += " <em>(" + esc(x.Aside) + ")</em>"
	}
	if x.Sub != "" {
		s += "<br><small>" + esc(x.Sub) + "</small>"
	}
	return s
}

// failures lists the failing cases with a search box and filters (source,
// expectation, error type, outcome), within budget bytes: each case is a
// <details> with its summary line and its full detail (expected vs actual,
// request, response), capped.
func (h *htmlDoc) failures(b *strings.Builder, f *Failures, budget int) {
	fail := f.Cases
	fmt.Fprintf(b, "<section id=\"failures\">\n<h2>Failing cases (%d)</h2>\n", len(fail))
	if f.Thresholds || f.OverBudget {
		b.WriteString("<p class=\"intro\">" + esc(capitalize(f.Reading())) + "; these cases are listed for diagnosis.</p>\n")
	}
	limit := h.o.failureCap(htmlMaxFailures)
	if limit <= 0 || limit > htmlMaxFailures {
		limit = htmlMaxFailures
	}
	var list strings.Builder
	shown := 0
	facets := [numFacets]map[string]int{{}, {}, {}, {}, {}}
	const tail = 1 << 10
	for i, c := range fail {
		if i >= limit {
			break
		}
		keys := caseFacets(c)
		block := h.failureBlock(c, keys, f.Mark(c))
		if b.Len()+list.Len()+len(block)+tail+facetBytes(facets) > budget {
			break
		}
		list.WriteString(block)
		for k := range keys {
			for _, v := range keys[k] {
				facets[k][v]++
			}
		}
		shown++
	}
	h.filterBar(b, facets, shown)
	b.WriteString("<div id=\"cases\">\n" + list.String() + "</div>\n")
	b.WriteString("<p id=\"none\" class=\"more\" hidden>No case matches the filters.</p>\n")
	if rest := len(fail) - shown; rest > 0 {
		fmt.Fprintf(b, "<p class=\"more\">…and %d more failing %s left out of this page; the JSON report has them all.</p>\n",
			rest, plural(rest, "case", "cases"))
	}
	b.WriteString("</section>\n")
}

// Filter facets of a failing case.
const (
	facetSource = iota
	facetExpect
	facetError
	facetOutcome
	facetScene
	numFacets
)

var facetNames = [numFacets][2]string{{"source", "template or source"}, {"expect", "expectation"}, {"error", "error type"}, {"outcome", "outcome"}, {"scene", "scene"}}

// facetOrder is the order of the filter bar's selects.
var facetOrder = [numFacets]int{facetSource, facetScene, facetExpect, facetError, facetOutcome}

// caseFacets are the values a case is filtered by: its source, the paths
// of its failed expectations (or "assert"), its error type, its outcome
// and its scene path with every prefix ("出行", "出行/天气"), so choosing
// a scene shows the cases of the scenes under it too.
func caseFacets(c *schema.CaseReport) [numFacets][]string {
	var k [numFacets][]string
	for i := range c.Scene {
		if p := oneLine(strings.Join(c.Scene[:i+1], "/")); p != "" {
			k[facetScene] = append(k[facetScene], p)
		}
	}
	src := oneLine(c.Template)
	if src == "" && c.Source != "" {
		src = oneLine(c.SourceKind + " " + c.Source)
	}
	if src != "" {
		k[facetSource] = []string{src}
	}
	for _, f := range c.Failures {
		p := oneLine(f.Path)
		if f.Kind != "expect" || p == "" {
			p = oneLine(f.Kind)
		}
		if p != "" && !contains(k[facetExpect], p) {
			k[facetExpect] = append(k[facetExpect], p)
		}
	}
	if c.Error != nil {
		t := oneLine(c.Error.Type)
		if t == "" {
			t = "Error"
		}
		k[facetError] = []string{t}
	}
	k[facetOutcome] = []string{c.Outcome.String()}
	return k
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// facetBytes estimates the size of the filter bar's options.
func facetBytes(f [numFacets]map[string]int) int {
	n := 0
	for _, m := range f {
		for k := range m {
			n += 2*len(k) + 48
		}
	}
	return n
}

func (h *htmlDoc) filterBar(b *strings.Builder, facets [numFacets]map[string]int, shown int) {
	b.WriteString("<div class=\"filters\">\n<input type=\"search\" id=\"q\" placeholder=\"Search text, id, expected, actual, response…\" aria-label=\"search\">\n")
	for _, k := range facetOrder {
		m := facets[k]
		if len(m) == 0 {
			continue
		}
		fmt.Fprintf(b, "<select data-f=\"%s\" aria-label=\"%s\"><option value=\"\">any %s</option>", facetNames[k][0], facetNames[k][1], facetNames[k][1])
		vals := make([]string, 0, len(m))
		for v := range m {
			vals = append(vals, v)
		}
		sort.Slice(vals, func(i, j int) bool { return naturalLess(vals[i], vals[j]) })
		for _, v := range vals {
			fmt.Fprintf(b, "<option value=\"%s\">%s (%d)</option>", esc(v), esc(capLine(v, 80)), m[v])
		}
		b.WriteString("</select>\n")
	}
	fmt.Fprintf(b, "<span id=\"count\">%d shown</span>\n</div>\n", shown)
}

// failureBlock is one failing case: a summary line (mark, source, text,
// id, reason) and its detail.
func (h *htmlDoc) failureBlock(c *schema.CaseReport, keys [numFacets][]string, m Mark) string {
	var b strings.Builder
	b.WriteString("<details class=\"case\"")
	for k, vals := range keys {
		if k == facetScene && len(vals) == 0 {
			continue
		}
		fmt.Fprintf(&b, " data-%s=\"%s\"", facetNames[k][0], esc(strings.Join(vals, "\n")))
	}
	b.WriteString("><summary>" + markSpan(m) + " ")
	if len(keys[facetSource]) > 0 {
		b.WriteString("<span class=\"src\">" + esc(keys[facetSource][0]) + "</span> › ")
	}
	b.WriteString("<span class=\"txt\">" + esc(capLine(oneLine(c.Text), 300)) + "</span>")
	if id := oneLine(c.ID); id != "" {
		b.WriteString(" <code>" + esc(id) + "</code>")
	}
	if c.Cached {
		b.WriteString(" <em>(cached)</em>")
	}
	b.WriteString(" <span class=\"why\">" + esc(capLine(caseSummary(*c), 300)) + "</span></summary>\n")
	if loc := location(c.File, c.Line); loc != "" {
		b.WriteString("<p class=\"loc\">template at <code>" + esc(loc) + "</code></p>\n")
	}
	if len(c.Failures) > 0 {
		b.WriteString("<table class=\"ev\"><thead><tr><th>expectation</th><th>expected</th><th>actual</th></tr></thead><tbody>\n")
		for _, f := range c.Failures {
			h.failureRow(&b, f)
		}
		b.WriteString("</tbody></table>\n")
	}
	b.WriteString("<pre>" + esc(capBytes(caseDetail(*c), htmlMaxDetail)) + "</pre>\n</details>\n")
	return b.String()
}

func (h *htmlDoc) failureRow(b *strings.Builder, f schema.Failure) {
	what, exp, act := failureLine(f), "", ""
	if f.Kind == "expect" {
		what = oneLine(f.Path)
		exp = capLine(oneLine(fmtValue(f.Expected)), 1000)
		act = capLine(oneLine(fmtValue(f.Actual)), 1000)
		if f.Missing {
			act = "(missing)"
		}
	}
	cell := "<code>" + esc(what) + "</code>"
	if loc := location(f.File, f.Line); loc != "" {
		cell += "<br><small>" + esc(loc) + "</small>"
	}
	b.WriteString("<tr><td>" + cell + "</td><td>" + esc(exp) + "</td><td class=\"act\">" + esc(act) + "</td></tr>\n")
}
