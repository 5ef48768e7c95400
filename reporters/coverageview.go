package reporters

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// coverageKindTitles are the kinds' section titles.
var coverageKindTitles = map[string]string{
	"intents": "Intents", "entities": "Entities", "slots": "Slots", "responses": "Responses",
	"actions": "Actions", "forms": "Forms", "flows": "Flows", "flow_steps": "Flow steps",
}

// coverageStatus is a status's mark and words.
func coverageStatus(st string) (Mark, string) {
	switch st {
	case schema.CoveragePassing:
		return MarkPass, "passing"
	case schema.CoverageFailingOnly:
		return MarkFail, "failing only"
	case schema.CoverageUndeclared:
		return MarkError, "undeclared"
	}
	return MarkAlert, "untested"
}

// maxCoverageNames caps the names a run report lists per kind and status.
const maxCoverageNames = 20

// coverageSummary is the table of each kind's counts and the share
// exercised, then all kinds.
func coverageSummary(kinds []string, counts func(k string) *schema.CoverageCounts, t schema.CoverageCounts) Table {
	sum := Table{Columns: []Column{col("kind"), rcol("items"), rcol("passing"), rcol("failing only"), rcol("untested"), rcol("undeclared"), rcol("exercised")}}
	for _, k := range kinds {
		c := counts(k)
		sum.Rows = append(sum.Rows, []Cell{text(k), num(c.Items), num(c.Passing), num(c.FailingOnly), num(c.Untested), num(c.Undeclared), text(fmtRatio(c.Ratio))})
	}
	sum.Rows = append(sum.Rows, []Cell{{Text: "all", Style: Strong}, num(t.Items), num(t.Passing), num(t.FailingOnly), num(t.Untested), num(t.Undeclared), text(fmtRatio(t.Ratio))})
	return sum
}

// coverageSections shows a run's metrics.coverage: each kind's counts,
// then, kind by kind, the items only failing cases exercised, those no
// case exercised and the undeclared ones cases checked (at most
// maxCoverageNames each; nlutest coverage lists them all, in the model's
// order, with where each is declared).
func coverageSections(r, _ *schema.Report) []Section {
	if r.Metrics == nil {
		return nil
	}
	c := schema.CoverageOf(&r.Metrics.Node)
	if c == nil {
		return nil
	}
	var kinds []string
	for _, k := range schema.CoverageKinds {
		if *c.Kind(k) != nil {
			kinds = append(kinds, k)
		}
	}
	sec := Section{ID: "family-coverage", Title: "Coverage of the bot's model", Code: "metrics.coverage",
		Intro:  "Items of the bot's model (the coverage block) the cases exercised: passing when a passing case did, failing only when every case that did failed. nlutest coverage RUN lists every item.",
		Tables: []Table{coverageSummary(kinds, func(k string) *schema.CoverageCounts { return &(*c.Kind(k)).CoverageCounts }, c.CoverageCounts)}}
	for _, k := range kinds {
		ck := *c.Kind(k)
		byStatus := map[string][]string{}
		for name, it := range ck.Item {
			byStatus[it.Status()] = append(byStatus[it.Status()], name)
		}
		for name := range ck.UndeclaredItem {
			byStatus[schema.CoverageUndeclared] = append(byStatus[schema.CoverageUndeclared], name)
		}
		for _, st := range []string{schema.CoverageFailingOnly, schema.CoverageUntested, schema.CoverageUndeclared} {
			names := byStatus[st]
			if len(names) == 0 {
				continue
			}
			slices.Sort(names)
			more := ""
			if len(names) > maxCoverageNames {
				more = fmt.Sprintf(" … and %d more", len(names)-maxCoverageNames)
				names = names[:maxCoverageNames]
			}
			mark, words := coverageStatus(st)
			sec.Notes = append(sec.Notes, Note{Mark: mark, Text: fmt.Sprintf("%s %s: %s%s", k, words, strings.Join(names, ", "), more)})
		}
	}
	return []Section{sec}
}

// CoverageView lays out `nlutest coverage`: a summary per kind of item,
// then each kind's items with their status — passing (a passing case
// exercised it), failing only (only failing or errored cases did),
// untested, or undeclared (checked, but not in the model) — the cases
// that exercised it (passed, failed), the cases whose answer showed it
// (seen), and where the model declares it.
func CoverageView(c *schema.CoverageReport) *View {
	t := c.Totals
	title := fmt.Sprintf("Coverage of the bot's model by suite %q: %d of %d items exercised%s, %d only by failing cases, %d untested",
		c.Suite, t.Passing+t.FailingOnly, t.Items, percent(t.Ratio), t.FailingOnly, t.Untested)
	v := &View{Title: title, Level: 1, Context: []Field{{Label: "run", Value: c.Run, Code: true}, {Label: "cases", Value: fmt.Sprint(c.Cases)},
		{Label: "model", Value: strings.Join(c.Files, ", "), Code: true, Wide: true}}}
	var kinds []string
	byKind := map[string]*schema.CoverageCounts{}
	for i := range c.Kinds {
		kinds = append(kinds, c.Kinds[i].Kind)
		byKind[c.Kinds[i].Kind] = &c.Kinds[i].CoverageCounts
	}
	sum := coverageSummary(kinds, func(k string) *schema.CoverageCounts { return byKind[k] }, t)
	v.Sections = append(v.Sections, Section{ID: "coverage-summary", Title: "Summary", Tables: []Table{sum},
		Intro: "Exercised: (passing + failing only) / items. An item is exercised by a case that checks it — an expected intent or entity, a slot a state check or condition reads, a response a reply check names — and an action, form, flow or flow step by a case that runs it (the recorded tracker)."})
	for _, k := range c.Kinds {
		tb := Table{Columns: []Column{col("item"), {Header: "", Align: Center}, col("status"), rcol("passed"), rcol("failed"), rcol("seen"), col("declared at"), {Header: "detail", Wide: true}}}
		for _, r := range k.Rows {
			mark, words := coverageStatus(r.Status)
			tb.Rows = append(tb.Rows, []Cell{clip(r.Name), {Mark: mark}, text(words), num(r.Passed), num(r.Failed), num(r.Seen), code(r.At), clip(r.Detail)})
		}
		title := coverageKindTitles[k.Kind]
		v.Sections = append(v.Sections, Section{ID: "coverage-" + k.Kind, Title: title,
			Brief:  fmt.Sprintf("%s: %d of %d exercised, %d failing only, %d untested", title, k.Passing+k.FailingOnly, k.Items, k.FailingOnly, k.Untested),
			Tables: []Table{tb}})
	}
	return v
}

// percent is " (43.5 %)", or "" without items.
func percent(r schema.Ratio) string {
	if v, ok := r.Value(); ok {
		return fmt.Sprintf(" (%.1f %%)", 100*v)
	}
	return ""
}

// CoverageJSON writes the coverage report as one indented JSON document.
func CoverageJSON(w io.Writer, c *schema.CoverageReport) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
