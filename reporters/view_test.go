package reporters

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// TestReportViewCharts: the view carries the data a graphical renderer
// needs without walking the report again.
func TestReportViewCharts(t *testing.T) {
	r := iaoFail()
	v := ReportView(r, nil)
	charts := map[ChartKind]int{}
	for _, s := range v.Sections {
		for _, c := range s.Charts {
			charts[c.Kind]++
			for _, p := range c.Points {
				if len(p.Values) != len(c.Series) {
					t.Errorf("%s %q: point %q has %d values for %d series", c.Kind, c.Title, p.Label, len(p.Values), len(c.Series))
				}
			}
			if c.Kind == ChartHistogram && len(c.Points) != len(latencyBuckets(r.Metrics.Latency)) {
				t.Errorf("latency histogram has %d buckets, want %d", len(c.Points), len(latencyBuckets(r.Metrics.Latency)))
			}
			if c.Kind == ChartBars && c.Title == "Accuracy by scene" {
				for _, p := range c.Points {
					n := r.Metrics.Scene[p.Label]
					if want := ratioOrNaN(&n.Accuracy); !(p.Values[0] == want || math.IsNaN(want) && math.IsNaN(p.Values[0])) {
						t.Errorf("scene %s accuracy %v, want %v", p.Label, p.Values[0], want)
					}
				}
			}
		}
	}
	if charts[ChartHistogram] != 1 || charts[ChartBars] < 1 {
		t.Errorf("charts by kind: %v", charts)
	}
	for name, l := range r.Metrics.Label {
		if l.Confusion != nil && charts[ChartConfusion] == 0 {
			t.Errorf("label %s has a confusion matrix but the view has none", name)
		}
	}
}

// TestViewEscaping: the same hostile cell, rendered by both renderers, is
// cleaned for a terminal and escaped for Markdown.
func TestViewEscaping(t *testing.T) {
	evil := "a|b `x` <script>\x1b[31mred\x1b[0m\nline2 _e_"
	v := &View{Title: "t", Level: 1, Sections: []Section{{Title: "S", Tables: []Table{{
		Columns: []Column{{Header: "c"}, {Header: "n", Align: Right}},
		Rows:    [][]Cell{{clip(evil), num(1)}},
	}}}}}
	var con, md bytes.Buffer
	if err := ConsoleView(&con, v, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := con.String(); strings.ContainsAny(s, "\x1b") || strings.Contains(s, "line2\n") || !strings.Contains(s, "red") {
		t.Errorf("console output not cleaned:\n%q", s)
	}
	if err := MarkdownView(&md, v, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "| a\\|b &#96;x&#96; &lt;script&gt;red<br>line2 \\_e\\_ | 1 |"
	if !strings.Contains(md.String(), want) {
		t.Errorf("Markdown cell not escaped; want %q in:\n%s", want, md.String())
	}
}

// TestDiffView: flips are grouped by direction and capped, threshold
// changes read "name: A → B", and a case text's escape sequences never
// reach the terminal (the old diff printed them raw).
func TestDiffView(t *testing.T) {
	a, b := iaoPass(), iaoPass()
	flipped := 0
	for i := range b.Cases {
		if b.Cases[i].Outcome == schema.Pass && flipped < 2 {
			b.Cases[i].Outcome = schema.Fail
			b.Cases[i].Text = "\x1b[31m红\x1b[0m"
			flipped++
		}
	}
	if flipped < 2 {
		t.Fatal("fixture has fewer than two passing cases")
	}
	v := DiffView(a, b, DiffOptions{NameA: "A", NameB: "B", MaxCases: 1})
	var con bytes.Buffer
	if err := ConsoleView(&con, v, Options{}); err != nil {
		t.Fatal(err)
	}
	out := con.String()
	if strings.Contains(out, "\x1b") {
		t.Errorf("diff console output holds an escape sequence:\n%q", out)
	}
	var worse *Section
	for i := range v.Sections {
		if strings.HasPrefix(v.Sections[i].Title, "Worse:") {
			worse = &v.Sections[i]
		}
	}
	if worse == nil {
		t.Fatalf("no Worse section:\n%s", out)
	}
	if tb := worse.Tables[0]; len(tb.Rows) != 1 || !strings.HasPrefix(tb.Note, "… and ") {
		t.Errorf("worse flips not capped at 1: %d rows, note %q", len(tb.Rows), tb.Note)
	}
	if !strings.Contains(v.Title, "cases got worse") {
		t.Errorf("title %q", v.Title)
	}
}
