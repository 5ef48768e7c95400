package reporters

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// HistorySeries is one suite and target's history as `nlutest history
// show` lays it out: each metric's series with its slope and changes.
type HistorySeries struct {
	Suite  string `json:"suite"`
	Target string `json:"target"`
	// Runs is how many runs the history keeps of the suite and target.
	Runs    int                    `json:"runs"`
	First   time.Time              `json:"first"`
	Last    time.Time              `json:"last"`
	Metrics []schema.MetricHistory `json:"metrics"`
	// Gates names, per metric, the thresholds that read it.
	Gates map[string][]string `json:"gates,omitempty"`
}

// HistoryView is the view of `nlutest history show`: per suite and
// target, a table per metric (run, time, label, commit, value, interval,
// a mark at each change of level) with its slope and changes as notes.
func HistoryView(file string, series []HistorySeries) *View {
	v := &View{Title: "History " + file, Level: 1}
	if len(series) == 0 {
		v.Sections = []Section{{Title: "No runs", Notes: []Note{{Text: "the history holds no run of this suite and target"}}}}
	}
	for _, s := range series {
		for _, m := range s.Metrics {
			v.Sections = append(v.Sections, metricHistorySection(s, m))
		}
	}
	return v
}

func metricHistorySection(s HistorySeries, m schema.MetricHistory) Section {
	title := fmt.Sprintf("%s · %s", s.Suite, s.Target)
	if s.Target == "" {
		title = s.Suite
	}
	sec := Section{ID: "history", Title: title, Code: m.Metric}
	if gates := s.Gates[m.Metric]; len(gates) > 0 {
		sec.Intro = "gated by threshold " + strings.Join(gates, ", ")
	}
	sec.Tables = []Table{historyTable(m)}
	sec.Notes = historyNotes(m)
	return sec
}

// historyTable lists a metric's runs, oldest first.
func historyTable(m schema.MetricHistory) Table {
	t := Table{Columns: []Column{rcol("run"), col("time (UTC)"), col("label"), col("commit"), rcol("value"), rcol("interval"), {Header: "change", Align: Center}}}
	changes := map[int]bool{}
	for _, c := range m.Changes {
		changes[c.Index] = true
	}
	for i, p := range m.Points {
		ch := Cell{}
		if changes[i] {
			ch = Cell{Text: "◆"}
		}
		label := clip(p.Label)
		if p.Current {
			label.Aside = "this run"
		}
		t.Rows = append(t.Rows, []Cell{num(p.Run), text(p.Time.UTC().Format("2006-01-02 15:04")), label, code(shortCommit(p.Commit)),
			{Text: fmtPtr(p.Value), Style: Strong}, text(fmtInterval(p.CILow, p.CIHigh)), ch})
	}
	return t
}

// historyNotes are a metric's slope, changes and drift answer.
func historyNotes(m schema.MetricHistory) []Note {
	var notes []Note
	if sl := m.Slope; sl != nil {
		notes = append(notes, Note{Text: fmt.Sprintf("slope over the last %d runs: %s per run [%s, %s] (Theil–Sen, Sen's interval)",
			sl.Runs, fmtSlope(sl.Slope), fmtSlope(sl.CILow), fmtSlope(sl.CIHigh))})
	} else {
		notes = append(notes, Note{Text: "slope: fewer than 3 runs with a value"})
	}
	if len(m.Changes) == 0 && m.Slope != nil {
		notes = append(notes, Note{Text: "no change of level (change-point test at alpha 0.05)"})
	}
	for _, c := range m.Changes {
		p := m.Points[c.Index]
		notes = append(notes, Note{Mark: MarkAlert, Text: fmt.Sprintf("change of level at %s: %s → %s (p = %.3g)", pointName(p), fmtFixed(c.Before), fmtFixed(c.After), c.P)})
	}
	if d := m.Drift; d != nil {
		notes = append(notes, Note{Mark: driftMark(d), Text: "drift: " + d.Text})
	}
	return notes
}

func driftMark(d *schema.Drift) Mark {
	switch d.Outcome {
	case schema.DriftPass:
		return MarkPass
	case schema.DriftFail:
		return MarkFail
	}
	return MarkSkip
}

// pointName names a run of a series: "run 9 (v1.9, 2026-12-01 17:00)".
func pointName(p schema.HistoryPoint) string {
	var parts []string
	if p.Label != "" {
		parts = append(parts, p.Label)
	}
	if c := shortCommit(p.Commit); c != "" {
		parts = append(parts, c)
	}
	if !p.Time.IsZero() {
		parts = append(parts, p.Time.UTC().Format("2006-01-02 15:04"))
	}
	return fmt.Sprintf("run %d (%s)", p.Run, strings.Join(parts, ", "))
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func fmtPtr(f *float64) string {
	if f == nil {
		return noData
	}
	return fmtFixed(*f)
}

func fmtInterval(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return ""
	}
	return "[" + fmtFixed(*lo) + ", " + fmtFixed(*hi) + "]"
}

// fmtSlope writes a slope per run with four significant digits and a
// sign.
func fmtSlope(f float64) string {
	if f == 0 || math.Abs(f) < 5e-10 {
		return "0"
	}
	return fmt.Sprintf("%+.4g", f)
}
