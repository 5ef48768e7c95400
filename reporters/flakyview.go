package reporters

import (
	"fmt"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// The scripts of a run made with --repeat N that did not pass every
// repetition (metrics.repeat's lists): the flaky ones (passed and
// failed), those flaky on errors (passed and errored, never failed) and
// the consistent failures (never passed), each in a section of its own.

// repeatOf is the node's metrics.repeat, whether built by a run or read
// back from a report (raw JSON); nil when it has none.
func repeatOf(n *schema.Node) *schema.Repeat {
	var rep schema.Repeat
	if !familyValue(n, "repeat", &rep) {
		return nil
	}
	return &rep
}

// repeatList is one of metrics.repeat's lists as a section.
type repeatList struct {
	title, brief, intro string
	count               int
	cases               []schema.RepeatCase
	mark                Mark
}

// repeatLists are the lists of rep, in the order the reports show them.
func repeatLists(rep *schema.Repeat, byThresholds bool) []repeatList {
	fail := MarkFail
	if byThresholds {
		fail = MarkWarn
	}
	return []repeatList{
		{title: "Flaky cases", brief: "Flaky", count: rep.Flaky, cases: rep.FlakyCases, mark: MarkAlert,
			intro: "Cases, conversations and scenarios that passed in some repetitions (--repeat) and failed in others."},
		{title: "Flaky on errors", brief: "Flaky on errors", count: rep.FlakyErrors, cases: rep.FlakyErrorCases, mark: MarkAlert,
			intro: "Passed in some repetitions and errored in the others (a call or its evaluation errored: timeouts, HTTP errors, invalid responses), never failing an expectation."},
		{title: "Consistent failures", brief: "Consistent failures", count: rep.ConsistentFailures, cases: rep.FailingCases, mark: fail,
			intro: "Did not pass in any repetition: not flaky, but failing."},
	}
}

// flakySections lists the run's flaky cases apart from its consistent
// failures (metrics.repeat at the root).
func flakySections(r, _ *schema.Report) []Section {
	if r.Metrics == nil {
		return nil
	}
	rep := repeatOf(&r.Metrics.Node)
	if rep == nil {
		return nil
	}
	var out []Section
	for _, l := range repeatLists(rep, byThresholds(r)) {
		if l.count == 0 {
			continue
		}
		t := repeatTable(l)
		if len(out) == 0 { // how to read the tables, under the first
			t.Note = fmt.Sprintf("Of %d repetitions each: passed, failed (an expectation not met), errored; flips = changes between passing and not passing from one repetition to the next; repetitions in order: P passed, F failed, E errored. ", rep.N) + t.Note
			t.Note = strings.TrimSpace(t.Note)
		}
		out = append(out, Section{ID: "flaky", Title: fmt.Sprintf("%s (%d)", l.title, l.count), Brief: fmt.Sprintf("%s (%d of %d)", l.brief, l.count, rep.Scripts),
			Intro: l.intro, Tables: []Table{t}})
	}
	return out
}

// repeatTable is one list's table: a row per script, most flips first.
func repeatTable(l repeatList) Table {
	t := Table{Columns: []Column{col(""), col("case"), col("text"), {Header: "source", Wide: true}, rcol("passed"), rcol("failed"), rcol("errored"),
		rcol("of"), rcol("flips"), col("repetitions")}, Ranked: true}
	for _, c := range l.cases {
		t.Rows = append(t.Rows, []Cell{mark(l.mark), code(c.ID), clip(c.Text), clip(c.Kind + " " + c.Source), num(c.Passed), num(c.Failed), num(c.Errored),
			num(c.Runs), num(c.Flips), code(c.Outcomes)})
	}
	if more := l.count - len(l.cases); more > 0 {
		t.Note = fmt.Sprintf("%d more not listed (at most %d; metrics.repeat counts them all).", more, schema.MaxFlaky)
	}
	return t
}
